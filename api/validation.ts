import type { z } from 'zod';
import { invalidRequest } from './errors';

/** Parses `input` with `schema` or throws a 400 naming every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidRequest(
    `invalid ${what}`,
    result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(root)', message: issue.message })),
  );
}
