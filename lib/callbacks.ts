import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isForbiddenAddress } from './webhooks/url-policy';

/** The callback URL may not be called at all (scheme, credentials, or a private target the operator forbids). */
export class CallbackUrlRefused extends Error {}

export interface CallbackResponse {
  statusCode: number;
  /** The first 200 characters of the response body. */
  preview: string;
}

const PREVIEW_CHARS = 200;
const MAX_READ_BYTES = 64 * 1024;

/**
 * POSTs a JSON body to a legacy `callback_url` (http or https). The host is resolved once and checked: loopback,
 * private and link-local targets are refused unless the operator allows private networks (dev and tests). The
 * connection goes to the checked address only, so DNS cannot be re-pointed in between; redirects are not
 * followed (a 3xx is an unsuccessful attempt).
 */
export async function postCallback(
  rawUrl: string,
  body: string,
  options: { allowPrivateNetworks: boolean; timeoutMs: number; headers?: Record<string, string> },
): Promise<CallbackResponse> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new CallbackUrlRefused('callback_url is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CallbackUrlRefused('callback_url must be http:// or https://');
  if (url.username || url.password) throw new CallbackUrlRefused('callback_url must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  if (!options.allowPrivateNetworks && addresses.some((a) => isForbiddenAddress(a.address))) {
    throw new CallbackUrlRefused('callback_url points at a private, loopback or link-local address');
  }
  const target = addresses[0]!;
  const pinned: LookupFunction = (_hostname, opts, callback) => {
    if ((opts as { all?: boolean }).all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };

  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<CallbackResponse>((resolve, reject) => {
    const req = transport.request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        timeout: options.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Payrail-Callback/1',
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_READ_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () =>
          resolve({ statusCode: res.statusCode ?? 0, preview: Buffer.concat(chunks).toString('utf8').slice(0, PREVIEW_CHARS) }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no response within ${options.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
