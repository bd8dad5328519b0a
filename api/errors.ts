import type { Middleware } from 'koa';
import { DomainError, type DomainErrorCode } from '../domain/errors';
import type { Logger } from '../lib/logger';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An error the client caused or may act on; its code and message are safe to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    /** Response headers that belong to the error, e.g. `Retry-After` or `WWW-Authenticate`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const invalidRequest = (message: string, details?: ErrorDetail[]) => new ApiError(400, 'invalid_request', message, details);
export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found`);

/** Koa's own errors for a bad request (unparsable JSON, body too large, …) keep their 4xx status. */
const koaClientErrorCodes: Record<number, string> = {
  400: 'invalid_request',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** The HTTP status of each business-rule refusal: the one place the domain meets HTTP. */
const DOMAIN_ERROR_STATUS: Record<DomainErrorCode, number> = {
  invalid_request: 400,
  unsupported_pay_currency: 400,
  unsupported_currency_pair: 400,
  unsupported_price_currency: 400,
  invalid_code: 401,
  keyless_payments_disabled: 403,
  limit_reached: 403,
  not_found: 404,
  conflict: 409,
  idempotency_conflict: 409,
  rate_limited: 429,
  price_unavailable: 503,
  mail_unavailable: 503,
  deposit_address_unavailable: 503,
};

function fromDomainError(err: DomainError): ApiError {
  const headers: Record<string, string> = err.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(err.retryAfterSeconds) };
  return new ApiError(DOMAIN_ERROR_STATUS[err.code], err.code, err.message, err.field ? [err.field] : undefined, headers);
}

/**
 * What the client may see of `err`: an ApiError as it is, a business rule's refusal (DomainError) mapped to its
 * status, or Koa's own 4xx (unparsable JSON, body too large). Undefined for anything unexpected,
 * which must be logged and hidden.
 */
export function asClientError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return fromDomainError(err);
  const status = (err as { status?: number }).status;
  if (status && status >= 400 && status < 500) {
    return new ApiError(status, koaClientErrorCodes[status] ?? 'invalid_request', (err as Error).message);
  }
  return undefined;
}

/** SQLSTATE classes of a PostgreSQL that is away: connection exceptions (08), shutting down or starting up (57P). */
const PG_OUTAGE_STATE = /^(08|57P)/;
/** Socket errors of a dependency that is away (PostgreSQL, the Temporal frontend). */
const OUTAGE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);
/** gRPC UNAVAILABLE and DEADLINE_EXCEEDED: the Temporal frontend is away or restarting. */
const GRPC_OUTAGE_CODE = new Set([14, 4]);
/** How long a client is asked to wait before retrying while a dependency is away. */
const OUTAGE_RETRY_AFTER_SECONDS = '2';

/**
 * Whether `err` (or an error it wraps) says a service the API depends on is away rather than that the request or
 * the code is wrong: the request may succeed as it is once it is back, so the client gets 503, not 500.
 */
export function isDependencyOutage(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { code, name } = e as Error & { code?: unknown };
    if (typeof code === 'string' && (PG_OUTAGE_STATE.test(code) || OUTAGE_ERRNO.has(code))) return true;
    // A gRPC status error (numeric code, with details) under the Temporal client's ServiceError.
    if (typeof code === 'number' && GRPC_OUTAGE_CODE.has(code) && 'details' in e) return true;
    // The pool could not hand out a connection in time, or PostgreSQL dropped one mid-query.
    if (name === 'KnexTimeoutError' || /^Connection terminated/.test(e.message)) return true;
  }
  return false;
}

/** The JSON body a client error is answered with. */
export type ClientErrorBody = (err: ApiError) => Record<string, unknown>;

/** `{ error, message, details? }` (ARCHITECTURE §3). */
export const standardErrorBody: ClientErrorBody = (err) => ({
  error: err.code,
  message: err.message,
  ...(err.details ? { details: err.details } : {}),
});

/**
 * First middleware: every client error is answered in the body shape `bodyFor` picks for the path (the legacy
 * interface has its own); a dependency that is away is a 503 with Retry-After; unexpected errors are logged and
 * hidden behind a 500.
 */
export function errorMiddleware(log: Logger, bodyFor: (path: string) => ClientErrorBody = () => standardErrorBody): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError(404, 'not_found', 'no such endpoint');
      // The routers answer a method a path does not take with 405, one they do not know at all with 501, each with
      // the path's methods in `Allow` (RFC 9110 requires it on a 405); for the client both are a method it may not use.
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
        const allow = ctx.response.get('Allow');
        throw new ApiError(405, 'method_not_allowed', `${ctx.method} is not allowed here; use ${allow}`, undefined, { Allow: allow });
      }
    } catch (err) {
      const clientError = asClientError(err);
      if (clientError) {
        ctx.status = clientError.status;
        ctx.set(clientError.headers);
        ctx.body = bodyFor(ctx.path)(clientError);
        return;
      }
      if (isDependencyOutage(err)) {
        log.warn({ err: String(err), method: ctx.method, path: ctx.path }, 'a dependency is away; answered 503');
        ctx.status = 503;
        ctx.set('Retry-After', OUTAGE_RETRY_AFTER_SECONDS);
        ctx.body = bodyFor(ctx.path)(new ApiError(503, 'service_unavailable', 'a service Payrail depends on is briefly unavailable; retry the request'));
        return;
      }
      log.error({ err, method: ctx.method, path: ctx.path }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { error: 'internal_error', message: 'internal error' };
    }
  };
}
