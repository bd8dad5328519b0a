import type { Middleware } from 'koa';
import { DomainError, RateLimited, type DomainErrorCode } from '../domain/errors';
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
  405: 'method_not_allowed',
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
};

function fromDomainError(err: DomainError): ApiError {
  const headers: Record<string, string> = err instanceof RateLimited ? { 'Retry-After': String(err.retryAfterSeconds) } : {};
  return new ApiError(DOMAIN_ERROR_STATUS[err.code], err.code, err.message, err.field ? [err.field] : undefined, headers);
}

/**
 * What the client may see of `err`: an ApiError as it is, a business rule's refusal (DomainError) mapped to its
 * status, or Koa's own 4xx (unparsable JSON, body too large, unknown method). Undefined for anything unexpected,
 * which must be logged and hidden.
 */
export function asClientError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return fromDomainError(err);
  // The router answers unknown HTTP methods with 501; for the client that is a method it may not use.
  const raw = (err as { status?: number }).status;
  const status = raw === 501 ? 405 : raw;
  if (status && status >= 400 && status < 500) {
    return new ApiError(status, koaClientErrorCodes[status] ?? 'invalid_request', (err as Error).message);
  }
  return undefined;
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
 * interface has its own); unexpected errors are logged and hidden behind a 500.
 */
export function errorMiddleware(log: Logger, bodyFor: (path: string) => ClientErrorBody = () => standardErrorBody): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError(404, 'not_found', 'no such endpoint');
    } catch (err) {
      const clientError = asClientError(err);
      if (clientError) {
        ctx.status = clientError.status;
        ctx.set(clientError.headers);
        ctx.body = bodyFor(ctx.path)(clientError);
        return;
      }
      log.error({ err, method: ctx.method, path: ctx.path }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { error: 'internal_error', message: 'internal error' };
    }
  };
}
