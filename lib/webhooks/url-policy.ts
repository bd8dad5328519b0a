import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Where a webhook may never go: loopback, private, link-local (cloud metadata), CGNAT, multicast, reserved. */
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
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  forbidden.addSubnet(net, prefix, 'ipv6');
}

export class WebhookUrlRefused extends Error {}

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is checked as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  return mapped ? forbidden.check(mapped, 'ipv4') : forbidden.check(address, family);
}

/**
 * Checks a webhook URL and returns the addresses it resolves to. Refuses anything but `https://`, and any
 * target that is (or resolves to) a forbidden address, unless the operator allows private networks (dev and
 * tests). Callers connect only to the returned addresses, so DNS cannot be re-pointed between check and use.
 */
export async function resolveWebhookTarget(rawUrl: string, options: { allowPrivateNetworks: boolean }): Promise<{ url: URL; addresses: string[] }> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new WebhookUrlRefused('webhookUrl must be an absolute URL');
  }
  if (url.protocol !== 'https:') throw new WebhookUrlRefused('webhookUrl must start with https://');
  if (url.username || url.password) throw new WebhookUrlRefused('webhookUrl must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new WebhookUrlRefused(`webhookUrl host ${host} does not resolve`);
    }
  }
  if (!options.allowPrivateNetworks && addresses.some(isForbiddenAddress)) {
    throw new WebhookUrlRefused('webhookUrl must not point at a private, loopback or link-local address');
  }
  return { url, addresses };
}
