import type { Knex } from 'knex';
import { incrementRateLimitCounter, readRateLimitCounter, type RateLimitWindow } from '../db/queries/rate-limits';
import type { RateLimits } from '../lib/config';
import { ApiError } from './errors';

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

  /** Counts one event for `subject`; refuses it with 429 when it goes over the limit. */
  async consume(kind: RateLimitKind, subject: string): Promise<void> {
    const { limit, windowSeconds } = this.limits[kind];
    if (limit === 0) return;
    const window = await incrementRateLimitCounter({ knex: this.knex, bucket: `${refusal[kind].bucket}:${subject}`, windowSeconds });
    if (window.count > limit) throw this.refuse(kind, window);
  }

  /** Refuses with 429 while `subject` is at its limit, without counting. */
  async assertUnderLimit(kind: RateLimitKind, subject: string): Promise<void> {
    const { limit, windowSeconds } = this.limits[kind];
    if (limit === 0) return;
    const window = await readRateLimitCounter({ knex: this.knex, bucket: `${refusal[kind].bucket}:${subject}`, windowSeconds });
    if (window.count >= limit) throw this.refuse(kind, window);
  }

  /**
   * Runs a credential check for a client IP. A client at its failure limit is refused before its credential
   * is even looked at (else a correct guess would still be told apart from a wrong one); each failure counts.
   */
  async guardAuthentication<T>(ip: string, check: () => Promise<T | ApiError>): Promise<T> {
    await this.assertUnderLimit('authFailuresPerIp', ip);
    const result = await check();
    if (!(result instanceof ApiError)) return result;
    await this.consume('authFailuresPerIp', ip);
    throw result;
  }

  private refuse(kind: RateLimitKind, window: RateLimitWindow): ApiError {
    return new ApiError(429, 'rate_limited', `${refusal[kind].message}; retry in ${window.retryAfterSeconds} s`, undefined, {
      'Retry-After': String(window.retryAfterSeconds),
    });
  }
}
