/**
 * The delivery activity called directly (no workflow), on the test stack's database: the cases where nothing
 * may be sent, address pinning, and the envelope. Successful, failed and timed-out deliveries need a worker that
 * trusts the test receiver's CA: delivery.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createWebhookActivities } from '../../activities/webhooks';
import { findPaymentById } from '../../db/queries/payments';
import { claimWebhookDelivery } from '../../db/queries/webhook-deliveries';
import type { PaymentRow } from '../../db/tables';
import { paymentTerms } from '../../domain/payment';
import { webhookEnvelope, type WebhookEventType } from '../../domain/webhook-events';
import { createLogger } from '../../lib/logger';
import { SecretBox } from '../../lib/secrets';
import { postJson, responsePreview } from '../../lib/http-client';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody } from '../support/api';
import { connectServices, type StackServices } from '../support/services';
import { newMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { deliveriesOf, setWebhookUrl, startTestReceiver, type TestReceiver } from './support';

const PAYIN: WebhookEventType = 'payment_payin_completed';

describe('deliverWebhook (activity), called directly', function () {
  this.timeout(60_000);
  let stack: Stack;
  let services: StackServices;
  let receiver: TestReceiver;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    receiver = await startTestReceiver();
  });
  after(async () => {
    await receiver?.close();
    await services?.close();
  });

  function activities(overrides: { allowPrivateNetworks?: boolean; secrets?: SecretBox | null; afterWebhookClaim?: () => void } = {}) {
    return createWebhookActivities({
      knex: services.knex,
      chains: services.chains,
      log: createLogger('silent', 'test'),
      secrets: overrides.secrets === null ? undefined : (overrides.secrets ?? new SecretBox(stack.env.PAYRAIL_SECRETS_KEY!)),
      webhooks: { allowPrivateNetworks: overrides.allowPrivateNetworks ?? true, timeoutMs: 2_000 },
      afterWebhookClaim: overrides.afterWebhookClaim,
    });
  }

  /** A payment of a new app whose webhook URL points at the receiver, created through the API. */
  async function newPayment(tag: string) {
    const url = receiver.url('ok', `${tag}-${randomUUID()}`);
    const merchant = await newMerchant(stack, services.knex, { webhookUrl: url });
    const payment = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '8453' }));
    return { url, merchant, payment };
  }

  it('sends nothing and logs nothing for a payment created without a webhook URL', async () => {
    const { merchant } = await newPayment('no-url');
    await setWebhookUrl(services.knex, merchant.appId, null);
    const payment = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '8453' }));
    assert.deepEqual(await activities().deliverWebhook({ paymentId: payment.id, eventType: PAYIN }), { status: 'not_configured' });
    assert.deepEqual(await deliveriesOf(services.knex, payment.id), {});
    const terms = async (id: string) => paymentTerms((await findPaymentById({ knex: services.knex, id }))!, { bridgeRoute: false, sweepAfterMs: 0 });
    assert.equal((await terms(payment.id)).webhooks, false, 'its run schedules no delivery at all');
    const { payment: withUrl } = await newPayment('with-url');
    assert.equal((await terms(withUrl.id)).webhooks, true, 'a payment that captured a URL delivers');
  });

  it('sends nothing and logs nothing when the app has no webhook secret', async () => {
    const { url, merchant, payment } = await newPayment('no-secret');
    await services.knex('merchant_apps').where({ app_id: merchant.appId }).update({ webhook_secret_ciphertext: null, webhook_secret_fingerprint: null });
    assert.deepEqual(await activities().deliverWebhook({ paymentId: payment.id, eventType: PAYIN }), { status: 'not_configured' });
    assert.deepEqual(await deliveriesOf(services.knex, payment.id), {});
    assert.equal(receiver.received(url).length, 0);
  });

  it('refuses a private target at send time (operator switch off): one exhausted attempt, no request, never again', async () => {
    const { url, payment } = await newPayment('ssrf');
    const strict = activities({ allowPrivateNetworks: false });
    const result = await strict.deliverWebhook({ paymentId: payment.id, eventType: PAYIN });
    assert.equal(result.status, 'exhausted');
    const row = (await deliveriesOf(services.knex, payment.id))[PAYIN];
    assert.ok(row);
    assert.deepEqual(
      { status: row.status, statusCode: row.status_code, preview: row.response_preview, deliveredAt: row.delivered_at, url: row.url, attempt: row.attempt_number },
      { status: 'exhausted', statusCode: null, preview: null, deliveredAt: null, url, attempt: 1 },
    );
    assert.deepEqual(await activities().deliverWebhook({ paymentId: payment.id, eventType: PAYIN }), { status: 'already_claimed' });
    assert.equal(receiver.received(url).length, 0);
  });

  it('never sends an event whose delivery was claimed before, and closes an unfinished claim as exhausted', async () => {
    const { url, merchant, payment } = await newPayment('claimed');
    const deliveryId = randomUUID();
    // What a worker that died between claim and POST leaves behind.
    await claimWebhookDelivery({ knex: services.knex, delivery: { delivery_id: deliveryId, app_id: merchant.appId, payment_id: payment.id, event_type: PAYIN, url } });
    assert.deepEqual(await activities().deliverWebhook({ paymentId: payment.id, eventType: PAYIN }), { status: 'already_claimed' });
    const row = (await deliveriesOf(services.knex, payment.id))[PAYIN];
    assert.deepEqual({ id: row?.delivery_id, status: row?.status, statusCode: row?.status_code }, { id: deliveryId, status: 'exhausted', statusCode: null });
    assert.equal(receiver.received(url).length, 0);
  });

  it('claims before it sends: a crash right after the claim leaves a pending row and no request', async () => {
    const { url, payment } = await newPayment('crash');
    const crash = new Error('worker killed');
    await assert.rejects(activities({ afterWebhookClaim: () => { throw crash; } }).deliverWebhook({ paymentId: payment.id, eventType: PAYIN }), crash);
    assert.equal((await deliveriesOf(services.knex, payment.id))[PAYIN]?.status, 'pending');
    assert.equal(receiver.received(url).length, 0);
  });

  it('logs an exhausted attempt without sending when the worker cannot open secrets (no PAYRAIL_SECRETS_KEY, or another key)', async () => {
    for (const secrets of [null, new SecretBox('ab'.repeat(32))]) {
      const { url, payment } = await newPayment('no-key');
      const result = await activities({ secrets }).deliverWebhook({ paymentId: payment.id, eventType: PAYIN });
      assert.equal(result.status, 'exhausted');
      assert.equal((await deliveriesOf(services.knex, payment.id))[PAYIN]?.status, 'exhausted');
      assert.equal(receiver.received(url).length, 0);
    }
  });

  it('connects only to the vetted address, with the URL host as TLS name, and verifies the certificate', async () => {
    // `pinned.invalid` resolves nowhere: the request can only reach the receiver through the pinned address.
    const port = new URL(receiver.url('ok', 'x')).port;
    const response = await postJson({
      target: { url: new URL(`https://pinned.invalid:${port}/ok/pinned`), addresses: ['127.0.0.1'] },
      body: '{}',
      headers: { 'content-type': 'application/json' },
      timeoutMs: 2_000,
    });
    assert.ok(receiver.serverNames.includes('pinned.invalid'), 'the TLS handshake reached the pinned address, asking for the URL host');
    // The test CA is not trusted in this process (and the name does not match): the request is never sent.
    assert.equal(response.statusCode, null);
    assert.match(response.error ?? '', /CERT|SIGNATURE|SELF_SIGNED|ALTNAME/);
    assert.equal(receiver.received(`https://127.0.0.1:${port}/ok/pinned`).length, 0);
  });

  it('describes the payment as of the event, also when the delivery starts after the payout', async () => {
    const { payment } = await newPayment('late');
    const payout = { payout_tx_hash: `0x${'ab'.repeat(32)}`, payout_confirmed_at: new Date() };
    await services.knex<PaymentRow>('payments').where({ id: payment.id }).update({ status: 'payment_completed', ...payout });
    const row = (await findPaymentById({ knex: services.knex, id: payment.id }))!;
    const sentAt = new Date();
    const at = (eventType: WebhookEventType) => webhookEnvelope({ deliveryId: randomUUID(), eventType, payment: row, sentAt });

    const payin = at(PAYIN);
    assert.deepEqual(Object.keys(payin).sort(), ['data', 'event_id', 'timestamp', 'type']);
    assert.equal(payin.timestamp, sentAt.toISOString());
    assert.equal(payin.data.status, PAYIN);
    assert.deepEqual([payin.data.destination.txHash, payin.data.destination.confirmedAt], [null, null]);
    const payoutEvent = at('payment_payout_completed');
    assert.equal(payoutEvent.data.status, 'payment_payout_completed');
    assert.deepEqual([payoutEvent.data.destination.txHash, payoutEvent.data.destination.confirmedAt], [payout.payout_tx_hash, payout.payout_confirmed_at.toISOString()]);
  });

  it('keeps the first 200 characters of a response, storable as text', () => {
    const long = `${'é'.repeat(150)}${'😀'.repeat(100)}`;
    const preview = responsePreview(Buffer.from(long));
    assert.equal(Array.from(preview).length, 200);
    assert.equal(preview, `${'é'.repeat(150)}${'😀'.repeat(50)}`);
    assert.equal(responsePreview(Buffer.from('a\u0000b')), 'a\uFFFDb');
    assert.equal(responsePreview(Buffer.alloc(0)), '');
  });
});
