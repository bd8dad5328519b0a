import type { Middleware } from 'koa';
import type { z } from 'zod';
import { ApiError, asClientError } from '../errors';

/** Paths served in the legacy error shape. */
export const LEGACY_ORDERS_PATH = '/v1/orders';

/**
 * Errors of the legacy order endpoint in its own shape (ARCHITECTURE §3):
 * `{ "status": 400, "error": "invalid_request", "message": "…", "details": [{ "field", "message" }] }`.
 * Mounted before body parsing, so unparsable bodies and wrong content types get this shape too. Anything that
 * is not a client error is left to the outer error middleware (a logged 500).
 */
export function legacyErrorShape(): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== LEGACY_ORDERS_PATH && !ctx.path.startsWith(`${LEGACY_ORDERS_PATH}/`)) {
      await next();
      return;
    }
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError(404, 'not_found', 'no such endpoint');
    } catch (err) {
      const clientError = asClientError(err);
      if (clientError) {
        ctx.status = clientError.status;
        ctx.set(clientError.headers);
        ctx.body = {
          status: clientError.status,
          error: clientError.code,
          message: clientError.message,
          ...(clientError.details ? { details: clientError.details.map((d) => ({ field: d.path, message: d.message })) } : {}),
        };
        return;
      }
      throw err;
    }
  };
}

/** Parses a legacy body or throws a 400 with one detail per bad field (unknown fields each named). */
export function parseLegacyBody<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const details = result.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...issue.path.map(String), key].join('.'), message: `is not a known ${what} field` }));
    }
    return [{ path: issue.path.map(String).join('.') || '(body)', message: issue.message }];
  });
  throw new ApiError(400, 'invalid_request', `invalid ${what}: ${details.map((d) => d.path).join(', ')}`, details);
}
