import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { verifyWebhook, webhookSignature } from '../../lib/webhooks/verify';

const SECRET = 'a'.repeat(64);
const NOW = 1_767_225_600_000;
const BODY = '{"event_id":"e1","type":"payment_payin_completed","data":{"amount":"1.50","note":"caf\u00e9"}}';

/** Computed here, not with the helper, so the test checks the scheme of spec 6.1 itself. */
const sign = (body: string | Buffer, ts: string, secret = SECRET) =>
  createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${ts}.`), Buffer.from(body)])).digest('hex');

describe('verifyWebhook (receiver-side helper)', () => {
  const ts = String(NOW - 1_000);
  const verify = (overrides: Partial<Parameters<typeof verifyWebhook>[0]> = {}) =>
    verifyWebhook({ rawBody: BODY, timestampHeader: ts, signatureHeader: `sha256=${sign(BODY, ts)}`, secret: SECRET, now: NOW, ...overrides });

  it('accepts a correctly signed body, as a string or as the raw bytes', () => {
    assert.deepEqual(verify(), { ok: true });
    assert.deepEqual(verify({ rawBody: Buffer.from(BODY) }), { ok: true });
  });

  it('accepts the signature with or without the sha256= prefix', () => {
    assert.deepEqual(verify({ signatureHeader: sign(BODY, ts) }), { ok: true });
  });

  it('signs as spec 6.1 says: sha256= + lowercase hex HMAC-SHA256 over timestamp "." raw body', () => {
    assert.equal(webhookSignature(SECRET, ts, BODY), `sha256=${sign(BODY, ts)}`);
    assert.equal(webhookSignature(SECRET, ts, Buffer.from(BODY)), `sha256=${sign(BODY, ts)}`);
  });

  it('refuses a body that differs by one byte, even if it parses to the same JSON', () => {
    assert.deepEqual(verify({ rawBody: `${BODY} ` }), { ok: false, error: 'invalid_signature' });
    const reserialised = JSON.stringify(JSON.parse(BODY) as unknown, null, 1);
    assert.deepEqual(verify({ rawBody: reserialised }), { ok: false, error: 'invalid_signature' });
  });

  it('refuses another secret (e.g. the one before a rotation)', () => {
    assert.deepEqual(verify({ secret: 'b'.repeat(64) }), { ok: false, error: 'invalid_signature' });
  });

  it('refuses a signature over another timestamp (a replay with a fresh timestamp header)', () => {
    const fresh = String(NOW);
    assert.deepEqual(verify({ timestampHeader: fresh }), { ok: false, error: 'invalid_signature' });
  });

  it('refuses malformed signatures and timestamps as invalid_signature', () => {
    for (const signatureHeader of [undefined, null, '', 'sha256=', 'sha1=' + sign(BODY, ts), sign(BODY, ts).slice(2), `${sign(BODY, ts)}00`, 'sha256=zz' + sign(BODY, ts).slice(2), [`sha256=${sign(BODY, ts)}`, 'x']]) {
      assert.deepEqual(verify({ signatureHeader }), { ok: false, error: 'invalid_signature' }, String(signatureHeader));
    }
    for (const timestampHeader of [undefined, '', 'abc', '-1000', '1.5e12', `${ts} 1`]) {
      assert.deepEqual(verify({ timestampHeader }), { ok: false, error: 'invalid_signature' }, String(timestampHeader));
    }
  });

  it('refuses timestamps more than 5 minutes from the receiver clock, in either direction', () => {
    const at = (offsetMs: number) => {
      const t = String(NOW + offsetMs);
      return verify({ timestampHeader: t, signatureHeader: sign(BODY, t) });
    };
    assert.deepEqual(at(-300_000), { ok: true });
    assert.deepEqual(at(300_000), { ok: true });
    assert.deepEqual(at(-300_001), { ok: false, error: 'timestamp_expired' });
    assert.deepEqual(at(300_001), { ok: false, error: 'timestamp_expired' });
  });

  it('honours a custom tolerance', () => {
    const t = String(NOW - 10_000);
    const signed = { timestampHeader: t, signatureHeader: sign(BODY, t) };
    assert.deepEqual(verify({ ...signed, toleranceMs: 5_000 }), { ok: false, error: 'timestamp_expired' });
    assert.deepEqual(verify({ ...signed, toleranceMs: 10_000 }), { ok: true });
  });

  it('uppercase hex is accepted (it is the same signature)', () => {
    assert.deepEqual(verify({ signatureHeader: `sha256=${sign(BODY, ts).toUpperCase()}` }), { ok: true });
  });
});
