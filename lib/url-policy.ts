import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Where Payrail never sends a request: loopback, private, link-local (cloud metadata), CGNAT, multicast, reserved. */
const forbidden = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  forbidden.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  // IPv4-compatible (::a.b.c.d, including :: and ::1), NAT64 and 6to4 addresses can all reach IPv4 targets.
  ['::', 96],
  ['64:ff9b::', 96],
  // Local-use NAT64 (RFC 8215).
  ['64:ff9b:1::', 48],
  // Teredo tunnels to IPv4.
  ['2001::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  // Deprecated site-local, still routed internally by some networks.
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  forbidden.addSubnet(net, prefix, 'ipv6');
}

export class UrlRefused extends Error {}

/** The URL as logs may show it: no query string or fragment (they often carry tokens), no credentials. */
export function loggableUrl(rawUrl: string): string {
  try {
    const url = new URL(rawUrl);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * IPv4-mapped IPv6 addresses (::ffff:0:0/96) are refused in every spelling: a real target has a plain address. (They
 * have a list of their own: a BlockList holding that subnet also matches every plain IPv4 address.)
 */
const ipv4Mapped = new BlockList();
ipv4Mapped.addSubnet('::ffff:0:0', 96, 'ipv6');

export function isForbiddenAddress(address: string): boolean {
  if (isIP(address) === 6) return ipv4Mapped.check(address, 'ipv6') || forbidden.check(address, 'ipv6');
  return forbidden.check(address, 'ipv4');
}

export interface UrlPolicy {
  /** Schemes allowed, e.g. `['https:']` for webhooks. */
  schemes: ReadonlyArray<'https:' | 'http:'>;
  /** Lets requests target private and loopback addresses: for development and tests only. */
  allowPrivateNetworks: boolean;
  /** How errors name the URL (`webhookUrl`, `callback_url`). */
  label: string;
}

/** A URL that passed the policy, with the only addresses a request to it may connect to. */
export interface VettedTarget {
  url: URL;
  addresses: string[];
}

/**
 * Checks a URL and resolves its host once. Refuses other schemes, credentials in the URL, and any target that is
 * (or resolves to) a forbidden address, unless private networks are allowed. Callers connect only to the returned
 * addresses, so DNS cannot be re-pointed between the check and the request.
 */
export async function vetUrl(rawUrl: string, policy: UrlPolicy): Promise<VettedTarget> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new UrlRefused(`${policy.label} must be an absolute URL`);
  }
  if (!policy.schemes.includes(url.protocol as 'https:' | 'http:')) {
    throw new UrlRefused(`${policy.label} must start with ${policy.schemes.map((s) => `${s}//`).join(' or ')}`);
  }
  if (url.username || url.password) throw new UrlRefused(`${policy.label} must not carry credentials`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new UrlRefused(`${policy.label} host ${host} does not resolve`);
    }
  }
  if (!policy.allowPrivateNetworks && addresses.some(isForbiddenAddress)) {
    throw new UrlRefused(`${policy.label} must not point at a private, loopback or link-local address`);
  }
  return { url, addresses };
}
