/**
 * The delivery log: its query, its record shape (spec 2.7) and `GET /me/webhook/deliveries`
 * with a real dashboard session, on the test stack.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { toWebhookDeliveryRecord } from '../../api/serializers/webhook-delivery';
import { claimWebhookDelivery, listWebhookDeliveries, recordWebhookDeliveryOutcome } from '../../db/queries/webhook-deliveries';
import type { WebhookDeliveryRow, WebhookEventType } from '../../db/tables';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody } from '../support/api';
import { connectServices, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { developerToken } from './support';

const EVENTS: WebhookEventType[] = ['payment_payin_completed', 'payment_payout_completed'];

describe('webhook delivery log', function () {
  this.timeout(60_000);
  let stack: Stack;
  let services: StackServices;
  let merchant: TestMerchant;
  let other: TestMerchant;
  /** Delivery ids of `merchant`, newest first. */
  const newestFirst: string[] = [];
  /** The merchant service of the test stack, with a dashboard session per developer. */
  let api: string;
  const bearer = async (developerId: string) => `Bearer ${await developerToken(stack, developerId)}`;
  /** The instant every row's age counts from: creating the payments takes real time, which must not reorder them. */
  let now: number;

  /** A finished delivery of each event for a new payment of `m`, created `ageSeconds` before `now` (payin 1 s older). */
  async function deliveries(m: TestMerchant, ageSeconds: number, status: 'delivered' | 'exhausted' = 'delivered'): Promise<string[]> {
    const payment = await createPayment(stack.info.paymentApiUrl, m.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '8453' }));
    const ids: string[] = [];
    for (const [i, eventType] of EVENTS.entries()) {
      const deliveryId = randomUUID();
      const createdAt = new Date(now - (ageSeconds + 1 - i) * 1000);
      await claimWebhookDelivery({ knex: services.knex, delivery: { delivery_id: deliveryId, app_id: m.appId, payment_id: payment.id, event_type: eventType, url: 'https://merchant.example/hook' } });
      await recordWebhookDeliveryOutcome({
        knex: services.knex,
        deliveryId,
        outcome: { status, statusCode: status === 'delivered' ? 200 : 503, responsePreview: `preview ${deliveryId}`, deliveredAt: createdAt, body: JSON.stringify({ event_id: deliveryId, type: eventType }) },
      });
      await services.knex<WebhookDeliveryRow>('webhook_deliveries').where({ delivery_id: deliveryId }).update({ created_at: createdAt });
      ids.push(deliveryId);
    }
    return ids.reverse();
  }

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex, { webhookUrl: 'https://merchant.example/hook' });
    other = await newMerchant(stack, services.knex, { webhookUrl: 'https://other.example/hook' });
    now = Date.now();
    // 11 payments → 22 finished deliveries, so the default limit (20) cuts the list.
    for (let age = 0; age < 11; age++) newestFirst.push(...(await deliveries(merchant, age * 10, age % 2 ? 'exhausted' : 'delivered')));
    await deliveries(other, 0);
    // An attempt still in flight is not in the log yet.
    const inFlight = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '8453' }));
    await claimWebhookDelivery({
      knex: services.knex,
      delivery: { delivery_id: randomUUID(), app_id: merchant.appId, payment_id: inFlight.id, event_type: 'payment_payin_completed', url: 'https://merchant.example/hook' },
    });
    api = stack.info.merchantApiUrl;
  });
  after(async () => services?.close());

  it('lists the apps’ finished deliveries, newest first, up to the limit', async () => {
    const rows = await listWebhookDeliveries({ knex: services.knex, appIds: [merchant.appId], limit: 5 });
    assert.deepEqual(rows.map((r) => r.delivery_id), newestFirst.slice(0, 5));
    const both = await listWebhookDeliveries({ knex: services.knex, appIds: [merchant.appId, other.appId], limit: 100 });
    assert.equal(both.length, 24);
    assert.ok(both.every((r) => r.status !== 'pending'));
  });

  it('serialises a row to the record of spec 2.7', async () => {
    const [row] = await listWebhookDeliveries({ knex: services.knex, appIds: [merchant.appId], limit: 1 });
    assert.ok(row);
    assert.deepEqual(toWebhookDeliveryRecord(row), {
      deliveryId: row.delivery_id,
      paymentId: row.payment_id,
      eventType: 'payment_payout_completed',
      statusCode: 200,
      responsePreview: `preview ${row.delivery_id}`,
      deliveredAt: row.delivered_at!.toISOString(),
      status: 'delivered',
      attemptNumber: 1,
    });
  });

  it('GET /me/webhook/deliveries answers { data } with the developer’s deliveries, 20 by default', async () => {
    const res = await request(api).get('/me/webhook/deliveries').set('authorization', await bearer(merchant.developerId)).expect(200);
    const body = res.body as { data: Array<Record<string, unknown>> };
    assert.deepEqual(Object.keys(body), ['data']);
    assert.deepEqual(body.data.map((d) => d.deliveryId), newestFirst.slice(0, 20));
    assert.deepEqual(Object.keys(body.data[0]!).sort(), ['attemptNumber', 'deliveredAt', 'deliveryId', 'eventType', 'paymentId', 'responsePreview', 'status', 'statusCode']);
    assert.deepEqual(new Set(body.data.map((d) => d.status)), new Set(['delivered', 'exhausted']));
  });

  it('honours limit from 1 to 100', async () => {
    const authorization = await bearer(merchant.developerId);
    const get = (limit: string) => request(api).get(`/me/webhook/deliveries?limit=${limit}`).set('authorization', authorization);
    assert.deepEqual(((await get('1').expect(200)).body as { data: Array<{ deliveryId: string }> }).data.map((d) => d.deliveryId), newestFirst.slice(0, 1));
    assert.equal(((await get('100').expect(200)).body as { data: unknown[] }).data.length, 22);
  });

  it('answers 400 invalid_request naming limit for a bad limit', async () => {
    for (const limit of ['0', '101', '-1', 'abc', '1.5', '', '1e2', '20&limit=30']) {
      const res = await request(api).get(`/me/webhook/deliveries?limit=${limit}`).set('authorization', await bearer(merchant.developerId));
      assert.equal(res.status, 400, `limit=${limit}`);
      const body = res.body as { error: string; details: Array<{ path: string }> };
      assert.equal(body.error, 'invalid_request');
      assert.deepEqual(body.details.map((d) => d.path), ['limit'], `limit=${limit}`);
    }
  });

  it('shows a developer only their own apps’ deliveries, and none to a developer without apps', async () => {
    const res = await request(api).get('/me/webhook/deliveries').set('authorization', await bearer(other.developerId)).expect(200);
    const data = (res.body as { data: Array<{ deliveryId: string }> }).data;
    assert.equal(data.length, 2);
    assert.ok(data.every((d) => !newestFirst.includes(d.deliveryId)));
    const none = await request(api).get('/me/webhook/deliveries').set('authorization', await bearer(randomUUID())).expect(200);
    assert.deepEqual(none.body, { data: [] });
  });

  it('needs a dashboard session', async () => {
    const missing = await request(api).get('/me/webhook/deliveries').expect(401);
    assert.equal((missing.body as { error: string }).error, 'missing_token');
    const forged = await request(api).get('/me/webhook/deliveries').set('authorization', 'Bearer not.a.jwt').expect(401);
    assert.equal((forged.body as { error: string }).error, 'invalid_token');
    await request(api).get('/me/webhook/deliveries').set('x-api-key', merchant.ordersKey).expect(401);
  });
});
