import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { vetUrl, type UrlPolicy, type VettedTarget } from './url-policy';

/**
 * Payrail's one way to call a server over HTTP: a merchant's (webhooks and legacy callbacks: a POST) or an API it reads
 * (Circle's Iris: a GET of JSON). Every request goes to a vetted target, pinned to the addresses the URL policy
 * checked, bounded as a whole, redirects never followed, only a bounded part of the response read.
 */

/** Spec 2.7: the delivery log keeps the first 200 characters of the response body. */
export const RESPONSE_PREVIEW_CHARS = 200;
/** Enough bytes for 200 characters of UTF-8; the rest of the body is never read. */
const RESPONSE_PREVIEW_BYTES = RESPONSE_PREVIEW_CHARS * 4;

export interface PostResult {
  /** HTTP status of the response; null when none arrived (timeout, refused connection, TLS failure). */
  statusCode: number | null;
  responsePreview: string | null;
  /** Why no response arrived; null when one did, even if its body was cut short. */
  error: string | null;
}

/**
 * Resolves the target's host to the vetted addresses and to nothing else. The TLS name (SNI, certificate check) and
 * the Host header stay the URL's host name.
 */
function pinnedLookup(addresses: string[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    const allowed = addresses.map((address) => ({ address, family: isIP(address) })).filter((a) => family === 0 || a.family === family);
    const first = allowed[0];
    if (!first) {
      callback(Object.assign(new Error(`no permitted address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all) {
      callback(null, allowed);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

/** The first 200 characters (code points) of the body, storable as PostgreSQL text. */
export function responsePreview(body: Buffer): string {
  return Array.from(body.toString('utf8')).slice(0, RESPONSE_PREVIEW_CHARS).join('').replaceAll('\u0000', '\uFFFD');
}

const failureReason = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException;
  return e.name === 'AbortError' || e.name === 'TimeoutError' ? 'timed out' : (e.code ?? e.message);
};

/**
 * One POST of `body`. `timeoutMs` bounds the whole exchange (connect, TLS, request, response): a server that
 * drips bytes cannot hold the socket longer. Never throws: every failure is part of the result.
 */
export function postJson(options: { target: VettedTarget; body: string; headers: Record<string, string>; timeoutMs: number }): Promise<PostResult> {
  const { target } = options;
  const transport = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let statusCode: number | null = null;
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      resolve({ statusCode, responsePreview: statusCode === null ? null : responsePreview(Buffer.concat(chunks)), error });
    };
    const req = transport.request(
      target.url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
        lookup: pinnedLookup(target.addresses),
        // A fresh connection per request: a pooled socket would skip the lookup above.
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (res) => {
        statusCode = res.statusCode ?? null;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
          if (received >= RESPONSE_PREVIEW_BYTES) res.destroy();
        });
        // A body cut short (by the cap above or by the timeout) still leaves the status and what arrived of it.
        res.on('close', () => finish(null));
      },
    );
    req.on('error', (err) => finish(statusCode === null ? failureReason(err) : null));
    req.end(options.body);
  });
}

/** What a GET of JSON answered: its status, and its body parsed (undefined when it is not JSON). */
export interface JsonResponse {
  status: number;
  body: unknown;
}

/** A GET of JSON from a URL, through the vetted client. Throws when the URL is refused or no whole response arrives. */
export type GetJson = (url: string) => Promise<JsonResponse>;

/** A JSON answer larger than this is refused: the APIs Payrail reads answer a few kilobytes. */
const JSON_RESPONSE_MAX_BYTES = 1024 * 1024;

/**
 * One GET of JSON from a vetted target. `timeoutMs` bounds the whole exchange; a body over 1 MiB, a redirect and a
 * connection that ends early are failures (thrown), so the caller's retries decide how long to keep asking.
 */
export function getJson(options: { target: VettedTarget; timeoutMs: number }): Promise<JsonResponse> {
  const { target } = options;
  const transport = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      target.url,
      { method: 'GET', headers: { accept: 'application/json' }, lookup: pinnedLookup(target.addresses), agent: false, signal: AbortSignal.timeout(options.timeoutMs) },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.destroy();
          reject(new Error(`${target.url.host} answered a redirect (HTTP ${status}), which is not followed`));
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > JSON_RESPONSE_MAX_BYTES) res.destroy(new Error(`${target.url.host} answered more than ${JSON_RESPONSE_MAX_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            body = undefined;
          }
          resolve({ status, body });
        });
      },
    );
    req.on('error', (err) => reject(new Error(`GET ${target.url.host}${target.url.pathname} failed: ${failureReason(err)}`)));
    req.end();
  });
}

/** `getJson` of any URL `policy` allows: each URL vetted (resolved once, pinned) before it is asked. */
export const vettedJsonClient =
  (policy: UrlPolicy, timeoutMs: number): GetJson =>
  async (url) =>
    getJson({ target: await vetUrl(url, policy), timeoutMs });
