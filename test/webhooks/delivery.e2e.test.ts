/**
 * Webhook delivery end to end: real API, Temporal, PostgreSQL and devnet, and a worker process that trusts the
 * local HTTPS receiver's CA through NODE_EXTRA_CA_CERTS (as a merchant's endpoint is trusted through the system
 * store). Its payments run on their own task queue, so only that worker delivers their events.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { WebhookDeliveryRecord } from '../../api/schemas/webhook-deliveries';
import type { PaymentResource } from '../../api/serializers/payment';
import type { WebhookDeliveryRow, WebhookEventType } from '../../db/tables';
import { verifyWebhook } from '../../lib/webhooks/verify';
import type { Stack } from '../../tools/stack/stack';
import { paymentWorkflowId } from '../../workflows/ids';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer } from '../support/chain';
import { eventually } from '../support/poll';
import { connectServices, paymentRunEnded, startExtraApi, type StackServices } from '../support/services';
import { newMerchant, rotateWebhookSecret, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { exited, spawnWorker } from '../support/worker';
import {
  FAIL_RESPONSE,
  OK_RESPONSE,
  deliveriesOf,
  developerToken,
  setWebhookUrl,
  startTestReceiver,
  type ReceivedRequest,
  type TestReceiver,
} from './support';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** The timeout the test worker gives one delivery (WEBHOOK_TIMEOUT_MS). */
const DELIVERY_TIMEOUT_MS = 1_500;

interface Event {
  event_id: string;
  type: WebhookEventType;
  timestamp: string;
  data: Record<string, unknown> & { id: string; status: string; source: Record<string, unknown>; destination: Record<string, unknown> };
}
const parse = (r: ReceivedRequest) => JSON.parse(r.rawBody.toString('utf8')) as Event;

/**
 * The attempt on which each of the payment's `deliverWebhook` activities closed, from its workflow history (the
 * history records an activity's start once it has closed, with the attempt it closed on).
 */
async function deliveryAttempts(services: StackServices, paymentId: string): Promise<number[]> {
  const events = (await services.client.workflow.getHandle(paymentWorkflowId(paymentId)).fetchHistory()).events ?? [];
  const deliveries = new Set(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverWebhook').map((e) => String(e.eventId)));
  return events
    .filter((e) => e.activityTaskStartedEventAttributes && deliveries.has(String(e.activityTaskStartedEventAttributes.scheduledEventId)))
    .map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
}

/** The webhook side of the payments below: receiver, task queue, a worker trusting the receiver, an API on that queue. */
async function webhookRig(stack: Stack, services: StackServices, workerEnv: Record<string, string> = {}) {
  const receiver = await startTestReceiver();
  const taskQueue = `webhooks-${randomUUID()}`;
  // Failed deliveries log warnings by design; the assertions below check them.
  const env = { NODE_EXTRA_CA_CERTS: receiver.caFile, WEBHOOK_TIMEOUT_MS: String(DELIVERY_TIMEOUT_MS), LOG_LEVEL: 'error' };
  const workers: ChildProcess[] = [spawnWorker(stack, taskQueue, { ...env, ...workerEnv })];
  const api = await startExtraApi(stack, services, { taskQueue });
  return {
    receiver,
    api,
    workers,
    /** Another worker on the queue, e.g. after one crashed. */
    startWorker: () => workers.push(spawnWorker(stack, taskQueue, env)),
    create: (merchant: TestMerchant) => createPayment(api.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '8453', amount: '5' })),
    payIn: (payment: PaymentResource) => customerTransfer(stack.info, 8453, 'USDC', payment.source.receiverAddress, '5'),
    async close() {
      for (const worker of workers) worker.kill('SIGKILL');
      await api.close();
      await receiver.close();
    },
  };
}

describe('webhook delivery end to end', function () {
  this.timeout(180_000);
  let stack: Stack;
  let services: StackServices;
  let rig: Awaited<ReturnType<typeof webhookRig>>;
  let receiver: TestReceiver;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    rig = await webhookRig(stack, services);
    receiver = rig.receiver;
  });
  after(async () => {
    await rig?.close();
    await services?.close();
  });

  /** Pays the payment and waits until it completed and both its deliveries have an outcome. */
  async function settled(payment: PaymentResource): Promise<Record<WebhookEventType, WebhookDeliveryRow>> {
    await waitForStatus(rig.api.paymentApiUrl, payment.id, 'payment_completed', 120_000);
    return eventually(`both deliveries of ${payment.id} finished`, 30_000, async () => {
      const rows = await deliveriesOf(services.knex, payment.id);
      const { payment_payin_completed: payin, payment_payout_completed: payout } = rows;
      return payin && payout && payin.status !== 'pending' && payout.status !== 'pending' ? { payment_payin_completed: payin, payment_payout_completed: payout } : undefined;
    });
  }

  async function createAndPay(merchant: TestMerchant) {
    const payment = await rig.create(merchant);
    await rig.payIn(payment);
    return payment;
  }

  it('delivers both events, signed and with the full payment schema, and logs them as delivered', async () => {
    const url = receiver.url('ok', `happy-${randomUUID()}`);
    const merchant = await newMerchant(stack, services.knex, { webhookUrl: url });
    const payment = await createAndPay(merchant);
    const rows = await settled(payment);
    const final = await getPayment(rig.api.paymentApiUrl, payment.id, merchant.ordersKey);

    const requests = receiver.received(url);
    assert.equal(requests.length, 2, 'one request per event');
    for (const r of requests) {
      assert.equal(r.method, 'POST');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.match(String(r.headers['x-service-timestamp']), /^\d{13}$/);
      assert.match(String(r.headers['x-service-signature']), /^sha256=[0-9a-f]{64}$/);
      const verified = verifyWebhook({
        rawBody: r.rawBody,
        timestampHeader: r.headers['x-service-timestamp'],
        signatureHeader: r.headers['x-service-signature'],
        secret: merchant.webhookSecret!,
      });
      assert.deepEqual(verified, { ok: true });
    }

    const events = Object.fromEntries(requests.map((r) => [parse(r).type, { ...parse(r), signedAt: Number(r.headers['x-service-timestamp']) }]));
    const { paymentLink, metadata, webhookUrl, webhookSecretSource, merchant: app, ...readable } = final;
    assert.ok(paymentLink && webhookUrl === url && webhookSecretSource === 'merchant_app' && metadata === null && app?.appId === merchant.appId, 'GET carries what events leave out');
    for (const type of ['payment_payin_completed', 'payment_payout_completed'] as const) {
      const event = events[type];
      assert.ok(event, `${type} received`);
      assert.deepEqual(Object.keys(event).sort(), ['data', 'event_id', 'signedAt', 'timestamp', 'type']);
      assert.match(event.event_id, UUID);
      assert.equal(event.event_id, rows[type].delivery_id, 'event_id is the deliveryId of the log');
      assert.match(event.timestamp, ISO_UTC);
      assert.equal(Date.parse(event.timestamp), event.signedAt);
      // The read model at the event, with exactly the keys of a GET minus the five stripped fields.
      assert.deepEqual(Object.keys(event.data).sort(), Object.keys(readable).sort());
      for (const part of ['display', 'source', 'destination'] as const) {
        assert.deepEqual(Object.keys(event.data[part] as object).sort(), Object.keys(readable[part]).sort(), `${type} data.${part}`);
      }
      assert.equal(event.data.status, type);
      assert.deepEqual(event.data.source, readable.source, 'the payin fields are populated in both events');
    }
    const payin = events.payment_payin_completed!;
    const payout = events.payment_payout_completed!;
    assert.deepEqual(payin.data.destination, { ...readable.destination, txHash: null, confirmedAt: null });
    assert.ok(readable.destination.txHash && readable.destination.confirmedAt);
    assert.deepEqual(payout.data, { ...readable, status: 'payment_payout_completed', updatedAt: payout.data.updatedAt });

    const log = await request(stack.info.merchantApiUrl)
      .get('/me/webhook/deliveries')
      .set('authorization', `Bearer ${await developerToken(stack, merchant.developerId)}`)
      .expect(200);
    const records = (log.body as { data: WebhookDeliveryRecord[] }).data;
    assert.deepEqual(
      records.map((r) => ({ ...r, deliveredAt: ISO_UTC.test(r.deliveredAt ?? '') })).sort((a, b) => a.eventType.localeCompare(b.eventType)),
      [payin, payout].map((e) => ({
        deliveryId: e.event_id,
        paymentId: payment.id,
        eventType: e.type,
        statusCode: 200,
        responsePreview: OK_RESPONSE,
        deliveredAt: true,
        status: 'delivered',
        attemptNumber: 1,
      })),
    );
  });

  it('makes one attempt to an endpoint that answers 500 or hangs past the timeout, logs it exhausted, never retries', async () => {
    const failUrl = receiver.url('fail', randomUUID());
    const hangUrl = receiver.url('hang', randomUUID());
    const failing = await createAndPay(await newMerchant(stack, services.knex, { webhookUrl: failUrl }));
    const hanging = await createAndPay(await newMerchant(stack, services.knex, { webhookUrl: hangUrl }));
    const [failed, hung] = await Promise.all([settled(failing), settled(hanging)]);

    for (const row of Object.values(failed)) {
      assert.deepEqual([row.status, row.status_code, row.response_preview, row.attempt_number], ['exhausted', 500, FAIL_RESPONSE.slice(0, 200), 1]);
      assert.ok(row.delivered_at, 'the POST was made');
    }
    for (const row of Object.values(hung)) {
      assert.deepEqual([row.status, row.status_code, row.response_preview, row.attempt_number], ['exhausted', null, null, 1]);
      assert.ok(row.delivered_at, 'the POST was made');
    }
    // A payment's run ends only after its deliveries: once it is closed, nothing can retry them.
    for (const payment of [failing, hanging]) assert.equal(await paymentRunEnded(services, payment.id), 'payment_completed');
    assert.equal(receiver.received(failUrl).length, 2);
    assert.equal(receiver.received(hangUrl).length, 2);
    for (const payment of [failing, hanging]) assert.deepEqual(await deliveryAttempts(services, payment.id), [1, 1]);
  });

  it('signs with the app’s current secret: after a rotation only the new secret verifies', async () => {
    const url = receiver.url('ok', `rotated-${randomUUID()}`);
    const merchant = await newMerchant(stack, services.knex, { webhookUrl: url });
    // Created before the rotation, paid after it.
    const payment = await rig.create(merchant);
    const rotated = await rotateWebhookSecret(stack, services.knex, merchant.appId);
    await rig.payIn(payment);
    await settled(payment);

    const requests = receiver.received(url);
    assert.equal(requests.length, 2);
    for (const r of requests) {
      const verify = (secret: string) =>
        verifyWebhook({ rawBody: r.rawBody, timestampHeader: r.headers['x-service-timestamp'], signatureHeader: r.headers['x-service-signature'], secret });
      assert.deepEqual(verify(rotated), { ok: true });
      assert.deepEqual(verify(merchant.webhookSecret!), { ok: false, error: 'invalid_signature' });
    }
  });

  it('applies a webhook URL change to payments created after it; earlier ones keep their URL', async () => {
    const oldUrl = receiver.url('ok', `old-${randomUUID()}`);
    const newUrl = receiver.url('ok', `new-${randomUUID()}`);
    const merchant = await newMerchant(stack, services.knex, { webhookUrl: oldUrl });
    const before = await rig.create(merchant);
    await setWebhookUrl(services.knex, merchant.appId, newUrl);
    const after = await rig.create(merchant);
    await rig.payIn(before);
    await rig.payIn(after);
    const [beforeRows, afterRows] = await Promise.all([settled(before), settled(after)]);

    assert.deepEqual(receiver.received(oldUrl).map((r) => parse(r).data.id), [before.id, before.id]);
    assert.deepEqual(receiver.received(newUrl).map((r) => parse(r).data.id), [after.id, after.id]);
    assert.deepEqual(Object.values(beforeRows).map((r) => [r.url, r.status]), [[oldUrl, 'delivered'], [oldUrl, 'delivered']]);
    assert.deepEqual(Object.values(afterRows).map((r) => [r.url, r.status]), [[newUrl, 'delivered'], [newUrl, 'delivered']]);
  });

  it('does not follow a redirect: the 3xx is the one attempt, logged exhausted', async () => {
    const url = receiver.url('redirect', randomUUID());
    const target = url.replace('/redirect/', '/ok/redirected/');
    const rows = await settled(await createAndPay(await newMerchant(stack, services.knex, { webhookUrl: url })));
    assert.deepEqual(Object.values(rows).map((r) => [r.status, r.status_code]), [['exhausted', 302], ['exhausted', 302]]);
    assert.equal(receiver.received(url).length, 2);
    assert.equal(receiver.received(target).length, 0, 'the redirect target never got a request');
  });
});

describe('webhook delivery when the worker dies between claim and POST', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  let rig: Awaited<ReturnType<typeof webhookRig>>;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    rig = await webhookRig(stack, services, { PAYRAIL_FAULT_CRASH_AFTER_WEBHOOK_CLAIM: 'payment_payin_completed' });
  });
  after(async () => {
    await rig?.close();
    await services?.close();
  });

  it('never sends the claimed event after the restart; its delivery is logged exhausted', async () => {
    const url = rig.receiver.url('ok', `crash-${randomUUID()}`);
    const merchant = await newMerchant(stack, services.knex, { webhookUrl: url });
    const payment = await rig.create(merchant);
    await rig.payIn(payment);

    assert.equal(await exited(rig.workers[0]!), 'SIGKILL', 'the worker died right after claiming the payin event');
    const claimed = (await deliveriesOf(services.knex, payment.id)).payment_payin_completed;
    assert.equal(claimed?.status, 'pending', 'the claim was committed before the crash');
    assert.equal(rig.receiver.received(url).length, 0);

    rig.startWorker();
    await waitForStatus(rig.api.paymentApiUrl, payment.id, 'payment_completed', 120_000);
    // The retry of the dead attempt comes once its start-to-close timeout (30 s) has passed.
    const closed = await eventually('the interrupted delivery closed', 60_000, async () => {
      const rows = await deliveriesOf(services.knex, payment.id);
      return rows.payment_payin_completed?.status === 'exhausted' && rows.payment_payout_completed?.status === 'delivered' ? rows : undefined;
    });
    assert.equal(closed.payment_payin_completed?.delivery_id, claimed.delivery_id);
    assert.equal(closed.payment_payin_completed?.status_code, null);
    // The payin delivery ended on its second attempt, the one that found the claim; the payout's on its first.
    const attempts = await eventually('both delivery activities closed', 30_000, async () => {
      const found = await deliveryAttempts(services, payment.id);
      return found.length === 2 ? found : undefined;
    });
    assert.deepEqual(attempts.sort(), [1, 2]);
    const received = rig.receiver.received(url).map((r) => parse(r).type);
    assert.deepEqual(received, ['payment_payout_completed'], 'the claimed payin event was never sent, the payout event once');
  });
});
