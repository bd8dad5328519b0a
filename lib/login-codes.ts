import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

/** How long a mailed login code stays valid, and how many tries (the right one included) it allows. */
export const LOGIN_CODE_TTL_SECONDS = 600;
export const LOGIN_CODE_MAX_ATTEMPTS = 3;

/** A uniformly random 6-digit code. */
export const generateLoginCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/**
 * HMAC-SHA256 under the server's JWT secret, bound to the code's row id. A 6-digit code has only 10^6 values,
 * so any unkeyed hash (even a slow one) of a leaked row is reversed offline; with a key the database does not
 * hold, a dump reveals nothing, and checking costs microseconds instead of a KDF's CPU per guess.
 */
export function hashLoginCode(secret: string, codeId: string, code: string): string {
  return createHmac('sha256', secret).update(`payrail-login-code\0${codeId}\0${code}`).digest('hex');
}

export function loginCodeMatches(secret: string, codeId: string, code: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'hex');
  const actual = Buffer.from(hashLoginCode(secret, codeId, code), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
