import { isIP } from 'node:net';
import type { Knex } from 'knex';
import { RateLimited } from '../domain/errors';
import { incrementRateLimitCounters, type RateLimitWindow } from '../db/queries/rate-limits';
import type { RateLimits } from '../lib/config';

export type RateLimitKind = keyof RateLimits;
/** A limit and whom an event counts against under it (an app, a developer, a client address, `all`). */
type RateLimitSubject = readonly [kind: RateLimitKind, subject: string];

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
  consumeCreate(kind: 'paymentCreatesPerApp' | 'orderCreatesPerApp', app: { app_id: string; developer_id: string | null }): Promise<void> {
    const limits: RateLimitSubject[] = [[kind, app.app_id]];
    if (app.developer_id) limits.push(['createsPerDeveloper', app.developer_id]);
    return this.consume(...limits);
  }

  /**
   * Counts one event against each limit in order, in one statement; refuses it (RateLimited) at the first limit it
   * goes over, which leaves the limits after it uncounted.
   */
  async consume(...limits: RateLimitSubject[]): Promise<void> {
    const on = limits.filter(([kind]) => this.limits[kind].limit !== 0);
    if (on.length === 0) return;
    const windows = await incrementRateLimitCounters({
      knex: this.knex,
      counts: on.map(([kind, subject]) => ({ bucket: this.bucket(kind, subject), ...this.limits[kind] })),
    });
    on.forEach(([kind], i) => {
      const window = windows[i];
      if (window && window.count > this.limits[kind].limit) throw this.refuse(kind, window);
    });
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
    await this.consume(['authFailuresPerIp', client]);
    throw failure();
  }

  private refuse(kind: RateLimitKind, window: RateLimitWindow): RateLimited {
    return new RateLimited(`${refusal[kind].message}; retry in ${window.retryAfterSeconds} s`, window.retryAfterSeconds);
  }
}
