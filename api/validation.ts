import type { z } from 'zod';
import { invalidRequest } from './errors';

/**
 * Parses `input` with `schema` or throws a 400 naming every bad field. `rootPath` names the input itself in
 * `details` (a path parameter's name; `(root)` for a body).
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string, rootPath = '(root)'): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidRequest(
    `invalid ${what}`,
    result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || rootPath, message: issue.message })),
  );
}
