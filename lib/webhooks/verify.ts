/**
 * Verifying Payrail webhooks on the receiver side. Self-contained (only `node:crypto`): copy this file into your
 * service or import it.
 *
 *   const result = verifyWebhook({
 *     rawBody,                                            // the exact bytes received, before any JSON parsing
 *     timestampHeader: req.headers['x-service-timestamp'],
 *     signatureHeader: req.headers['x-service-signature'],
 *     secret: process.env.PAYRAIL_WEBHOOK_SECRET!,
 *   });
 *   if (!result.ok) return reply(401, { error: result.error });
 *
 * Payrail signs `timestamp + "." + rawBody` with HMAC-SHA256 under the app's webhook secret and sends
 * `X-Service-Timestamp: <unix ms>` and `X-Service-Signature: sha256=<lowercase hex>`. A request is accepted when
 * its timestamp is within `toleranceMs` (5 minutes) of the receiver's clock and the signature matches, compared
 * in constant time. Verify the raw body: re-serialising parsed JSON changes the bytes and breaks the signature.
 * After a secret rotation only the new secret verifies. Deduplicate accepted events on `event_id` yourself.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_HEADER = 'x-service-timestamp';
export const SIGNATURE_HEADER = 'x-service-signature';
export const DEFAULT_TOLERANCE_MS = 5 * 60 * 1000;

export type WebhookVerificationError = 'timestamp_expired' | 'invalid_signature';
export type WebhookVerification = { ok: true } | { ok: false; error: WebhookVerificationError };

/** A header as Node's `IncomingMessage` or a framework hands it over. */
type HeaderValue = string | string[] | null | undefined;

const toBuffer = (body: Buffer | string): Buffer => (typeof body === 'string' ? Buffer.from(body, 'utf8') : body);

function hmac(secret: string, timestamp: string, rawBody: Buffer | string): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(toBuffer(rawBody)).digest();
}

/** The `X-Service-Signature` value for a body signed at `timestamp` (the `X-Service-Timestamp` text). */
export function webhookSignature(secret: string, timestamp: string, rawBody: Buffer | string): string {
  return `sha256=${hmac(secret, timestamp, rawBody).toString('hex')}`;
}

/** A header sent once; a repeated header is not trusted. */
const single = (value: HeaderValue): string | undefined => (Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : (value ?? undefined));

export function verifyWebhook(options: {
  rawBody: Buffer | string;
  timestampHeader: HeaderValue;
  signatureHeader: HeaderValue;
  secret: string;
  toleranceMs?: number;
  /** The receiver's clock in unix ms; defaults to `Date.now()`. */
  now?: number;
}): WebhookVerification {
  const timestamp = single(options.timestampHeader)?.trim();
  // A missing or malformed timestamp cannot have been signed by Payrail.
  if (!timestamp || !/^\d{1,16}$/.test(timestamp)) return { ok: false, error: 'invalid_signature' };
  const now = options.now ?? Date.now();
  if (Math.abs(now - Number(timestamp)) > (options.toleranceMs ?? DEFAULT_TOLERANCE_MS)) return { ok: false, error: 'timestamp_expired' };

  const hex = /^(?:sha256=)?([0-9a-fA-F]{64})$/.exec(single(options.signatureHeader)?.trim() ?? '')?.[1];
  if (!hex) return { ok: false, error: 'invalid_signature' };
  const presented = Buffer.from(hex, 'hex');
  const expected = hmac(options.secret, timestamp, options.rawBody);
  // Both are 32 bytes here; the length check keeps timingSafeEqual from throwing if that ever changes.
  const matches = presented.length === expected.length && timingSafeEqual(presented, expected);
  return matches ? { ok: true } : { ok: false, error: 'invalid_signature' };
}
