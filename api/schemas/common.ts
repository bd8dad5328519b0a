import { z } from 'zod';

/** NUL and lone UTF-16 surrogates cannot be stored as PostgreSQL text or jsonb. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const isStorable = (value: unknown): boolean =>
  typeof value === 'string'
    ? !UNSTORABLE.test(value)
    : Array.isArray(value)
      ? value.every(isStorable)
      : typeof value === 'object' && value !== null
        ? Object.entries(value).every(([k, v]) => isStorable(k) && isStorable(v))
        : true;
export const storable = { message: 'must not contain NUL characters or unpaired surrogates' };

/** Trimmed, non-empty, storable text of at most `max` characters. */
export const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`).refine(isStorable, storable);

export const appIdSchema = z.string().regex(/^(merchant|wallet)_[a-z0-9][a-z0-9-]{0,62}$/, 'must look like merchant_<slug> or wallet_<slug>');

export const chainIdSchema = z.string().regex(/^[1-9][0-9]{0,9}$/, 'must be a numeric chain id written as a string, such as "8453"');

export const tokenSymbolSchema = z.string().regex(/^[A-Za-z0-9]{2,12}$/, 'must be a token symbol such as "USDC"');

/**
 * A page size from the query string: a whole number from 1 to 100, `fallback` when absent. The pattern alone says
 * the range, so the OpenAPI document (the parameter's accepted form) states it too.
 */
export const pageLimit = (fallback: number) =>
  z.string().regex(/^(100|[1-9][0-9]?)$/, 'must be a whole number from 1 to 100').transform(Number).default(fallback);

/** In answers: a time as the API writes it, ISO 8601 in UTC. */
export const timestamp = z.iso.datetime();

/** In answers: an amount as a decimal string (money is never a float at the edge). */
export const decimalString = z.string().regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/);
