import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Secrets Payrail must use later in the clear (webhook signing secrets) are kept encrypted at rest with
 * AES-256-GCM under the operator's `PAYRAIL_SECRETS_KEY`; a database dump alone reveals none of them.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(hexKey: string) {
    this.key = Buffer.from(hexKey, 'hex');
    if (this.key.length !== 32) throw new Error('PAYRAIL_SECRETS_KEY must be 32 bytes of hex');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || !body) throw new Error('unrecognised sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }

  /**
   * An unguessable token for `subject`, the same each time (base64url HMAC-SHA256 under a key derived from this one
   * for `purpose`): a capability Payrail can show again without storing it (a refund's claim link).
   */
  token(purpose: string, subject: string): string {
    const key = createHmac('sha256', this.key).update(purpose, 'utf8').digest();
    return createHmac('sha256', key).update(subject, 'utf8').digest('base64url');
  }
}

/** A new webhook secret: 64 lowercase hex characters (spec 2.6). */
export const generateWebhookSecret = (): string => randomBytes(32).toString('hex');

/** `sha256:` + the hex SHA-256 of the secret (spec 2.6). */
export const webhookSecretFingerprint = (secret: string): string =>
  `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex')}`;
