/**
 * A business rule said no. Every entry point maps it once: the API to an HTTP status and JSON body
 * (api/errors.ts), activities to a non-retryable failure whose type is the code.
 */
export class DomainError extends Error {
  /** Seconds after which the same request may succeed, for refusals that pass (a rate limit's window, a refill). */
  readonly retryAfterSeconds?: number;

  constructor(
    /** snake_case, stable: clients and workflows branch on it. */
    readonly code: DomainErrorCode,
    message: string,
    /** The input field the rule is about (e.g. `source.amount`) and what is wrong with it, when there is one. */
    readonly field?: { path: string; message: string },
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export type DomainErrorCode =
  /** Input breaks a rule (amount, token, chain, address, …). */
  | 'invalid_request'
  /** A legacy `pay_currency` this deployment cannot take. */
  | 'unsupported_pay_currency'
  /** A `pay_currency` that cannot be priced in the order's price currency. */
  | 'unsupported_currency_pair'
  /** A `price_currency` without a rate source. */
  | 'unsupported_price_currency'
  | 'not_found'
  /** The resource is in a state that does not allow this (an order already paid, …). */
  | 'conflict'
  /** An idempotency key was re-sent with other terms. */
  | 'idempotency_conflict'
  /** The app does not take keyless creates (`POST {payment_api_url}/payments` with appId in the body). */
  | 'keyless_payments_disabled'
  /** An account already has as many of something (apps, API keys) as the operator allows. */
  | 'limit_reached'
  /** A price source cannot be used right now (stale or broken feed); trying later may work. */
  | 'price_unavailable'
  /** A dashboard login code that is wrong, used, expired or out of attempts. */
  | 'invalid_code'
  /** Mail could not be sent (the login code did not go out). */
  | 'mail_unavailable'
  /** A chain whose deposit addresses the worker makes ahead has none ready (the worker is away or behind). */
  | 'deposit_address_unavailable'
  | 'rate_limited';

/** Too many events of one kind for one subject; `retryAfterSeconds` says when the window ends. */
export class RateLimited extends DomainError {
  constructor(
    message: string,
    override readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message);
  }
}

/** Shorthand for the common case: a rule about one input field. */
export const invalidField = (path: string, message: string, code: DomainErrorCode = 'invalid_request'): DomainError =>
  new DomainError(code, `${path}: ${message}`, { path, message });
