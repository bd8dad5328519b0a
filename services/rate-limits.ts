import type { Knex } from 'knex';
import { RateLimited } from '../domain/errors';
import { incrementRateLimitCounter, readRateLimitCounter, type RateLimitWindow } from '../db/queries/rate-limits';
import type { RateLimits } from '../lib/config';

export type RateLimitKind = keyof RateLimits;

const refusal: Record<RateLimitKind, { bucket: string; message: string }> = {
  authFailuresPerIp: { bucket: 'auth-failures:ip', message: 'too many failed authentication attempts from this address' },
  loginCodesPerEmail: { bucket: 'login-codes:email', message: 'too many login codes requested for this address' },
  loginCodesPerIp: { bucket: 'login-codes:ip', message: 'too many login codes requested from this network address' },
  paymentCreatesPerApp: { bucket: 'payment-creates:app', message: 'too many payments created for this app' },
};

/**
 * Fixed-window limits counted in PostgreSQL (`rate_limit_counters`), so every API process shares them. A
 * limit of 0 is off.
 */
export class RateLimiter {
  constructor(
    private readonly knex: Knex,
    private readonly limits: RateLimits,
  ) {}

  /** Counts one event for `subject`; refuses it (RateLimited) when it goes over the limit. */
  async consume(kind: RateLimitKind, subject: string): Promise<void> {
    const { limit, windowSeconds } = this.limits[kind];
    if (limit === 0) return;
    const window = await incrementRateLimitCounter({ knex: this.knex, bucket: `${refusal[kind].bucket}:${subject}`, windowSeconds });
    if (window.count > limit) throw this.refuse(kind, window);
  }

  /** Refuses while `subject` is at its limit, without counting. */
  async assertUnderLimit(kind: RateLimitKind, subject: string): Promise<void> {
    const { limit, windowSeconds } = this.limits[kind];
    if (limit === 0) return;
    const window = await readRateLimitCounter({ knex: this.knex, bucket: `${refusal[kind].bucket}:${subject}`, windowSeconds });
    if (window.count >= limit) throw this.refuse(kind, window);
  }

  /**
   * Runs a credential check for a client IP. A client at its failure limit is refused before its credential
   * is even looked at (else a correct guess would still be told apart from a wrong one); each failure (a check
   * answering undefined) counts, and is answered with `failure()`.
   */
  async guardAuthentication<T>(ip: string, check: () => Promise<T | undefined>, failure: () => Error): Promise<T> {
    await this.assertUnderLimit('authFailuresPerIp', ip);
    const result = await check();
    if (result !== undefined) return result;
    await this.consume('authFailuresPerIp', ip);
    throw failure();
  }

  private refuse(kind: RateLimitKind, window: RateLimitWindow): RateLimited {
    return new RateLimited(`${refusal[kind].message}; retry in ${window.retryAfterSeconds} s`, window.retryAfterSeconds);
  }
}
