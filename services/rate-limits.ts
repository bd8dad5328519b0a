import { isIP } from 'node:net';
import type { Knex } from 'knex';
import { RateLimited } from '../domain/errors';
import { incrementRateLimitCounter, type RateLimitWindow } from '../db/queries/rate-limits';
import type { RateLimits } from '../lib/config';

export type RateLimitKind = keyof RateLimits;

/** Each limit's bucket, the refusal's words, and whether its subject is a client address (bucketed by network). */
const refusal: Record<RateLimitKind, { bucket: string; message: string; client?: true }> = {
  authFailuresPerIp: { bucket: 'auth-failures:ip', message: 'too many failed authentication attempts from this address', client: true },
  loginCodesPerEmail: { bucket: 'login-codes:email', message: 'too many login codes requested for this address' },
  loginCodesPerIp: { bucket: 'login-codes:ip', message: 'too many login codes requested from this network address', client: true },
  loginCodesGlobal: { bucket: 'login-codes:all', message: 'too many login codes requested; the service is busy' },
  paymentCreatesPerApp: { bucket: 'payment-creates:app', message: 'too many payments created for this app' },
  orderCreatesPerApp: { bucket: 'order-creates:app', message: 'too many orders created for this app' },
  createsPerDeveloper: { bucket: 'creates:developer', message: "too many payments and orders created for this developer's apps" },
  registrationsPerIp: { bucket: 'registrations:ip', message: 'too many merchant apps registered from this network address', client: true },
  keylessCreatesPerApp: { bucket: 'keyless-creates:app', message: 'too many keyless payments created for this app' },
  keylessCreatesPerIp: { bucket: 'keyless-creates:ip', message: 'too many keyless payments created from this network address', client: true },
  keylessCreatesGlobal: { bucket: 'keyless-creates:all', message: 'too many keyless payments created; the service is busy' },
};

/**
 * The bucket a client address counts in: an IPv4 address (also when IPv6-mapped) is itself; an IPv6 address counts
 * with its /64, the smallest block one subscriber is given, so rotating addresses inside it buys nothing.
 */
export function clientNetwork(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return mapped;
  if (isIP(ip) !== 6) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/**
 * Fixed-window limits counted in PostgreSQL (`rate_limit_counters`), so every API process shares them. A
 * limit of 0 is off.
 */
export class RateLimiter {
  constructor(
    private readonly knex: Knex,
    private readonly limits: RateLimits,
  ) {}

  private bucket(kind: RateLimitKind, subject: string): string {
    return `${refusal[kind].bucket}:${refusal[kind].client ? clientNetwork(subject) : subject}`;
  }

  /**
   * Counts a keyed create (a payment with the app's key, or a legacy order) against the app's budget of its kind and
   * against its developer's budget over all their apps, so registering more apps buys no more creates.
   */
  async consumeCreate(kind: 'paymentCreatesPerApp' | 'orderCreatesPerApp', app: { app_id: string; developer_id: string | null }): Promise<void> {
    await this.consume(kind, app.app_id);
    if (app.developer_id) await this.consume('createsPerDeveloper', app.developer_id);
  }

  /** Counts one event for `subject`; refuses it (RateLimited) when it goes over the limit. */
  async consume(kind: RateLimitKind, subject: string): Promise<void> {
    const { limit, windowSeconds } = this.limits[kind];
    if (limit === 0) return;
    const window = await incrementRateLimitCounter({ knex: this.knex, bucket: this.bucket(kind, subject), windowSeconds });
    if (window.count > limit) throw this.refuse(kind, window);
  }

  /**
   * Checks a credential (an API key, a legacy token, a JWT, a login's code) for a client. One that verifies always
   * passes, whatever others sent from the same address (behind a shared proxy that is everyone); each failure
   * counts against the client, and once over its limit failures are answered 429 instead of `failure()`. Only
   * credentials that cannot be guessed within their own bounds belong here (256-bit keys; a login code's few tries).
   */
  async authenticate<T>(client: string, check: () => Promise<T | undefined>, failure: () => Error): Promise<T> {
    const result = await check();
    if (result !== undefined) return result;
    await this.consume('authFailuresPerIp', client);
    throw failure();
  }

  private refuse(kind: RateLimitKind, window: RateLimitWindow): RateLimited {
    return new RateLimited(`${refusal[kind].message}; retry in ${window.retryAfterSeconds} s`, window.retryAfterSeconds);
  }
}
