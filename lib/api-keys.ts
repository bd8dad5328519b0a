import { createHash, randomBytes } from 'node:crypto';

/** API keys carry 256 random bits, so a plain SHA-256 is a sound at-rest hash (no salt or slow KDF needed). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new `<prefix>live_<secret>` key; only its hash and a short hint are ever stored. */
export function generateApiKey(prefix: string): { key: string; keyHash: string; keyHint: string } {
  const key = `${prefix}live_${randomBytes(32).toString('base64url')}`;
  return { key, keyHash: hashApiKey(key), keyHint: `${key.slice(0, prefix.length + 5)}…${key.slice(-4)}` };
}
