import type { z } from 'zod';
import { ApiError, type ClientErrorBody } from '../errors';

/** Paths served in the legacy error shape. */
export const LEGACY_ORDERS_PATH = '/v1/orders';

/** Paths answered in the legacy error shape, including unparsable bodies and wrong content types. */
export const isLegacyPath = (path: string): boolean => path === LEGACY_ORDERS_PATH || path.startsWith(`${LEGACY_ORDERS_PATH}/`);

/**
 * Client errors of the legacy order endpoint in its own shape (ARCHITECTURE §3):
 * `{ "status": 400, "error": "invalid_request", "message": "…", "details": [{ "field", "message" }] }`.
 */
export const legacyErrorBody: ClientErrorBody = (err) => ({
  status: err.status,
  error: err.code,
  message: err.message,
  ...(err.details ? { details: err.details.map((d) => ({ field: d.path, message: d.message })) } : {}),
});

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
