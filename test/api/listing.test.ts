/**
 * Listing by key (issue 41) on the real stack: payments paged by change while payments are created and change
 * status (nothing skipped, nothing read twice), the events of an app with their delivery outcome, and who may read
 * what (another app's key sees nothing, an Orders key no events and no statement).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eventPageSchema, keyPaymentPageSchema, webhookEventSchema, type EventPage, type KeyPaymentPage, type WebhookEvent } from '../../api/schemas/listing';
import { applyPaymentTransition } from '../../db/queries/payments';
import type { PaymentRow } from '../../db/tables';
import { createLogger } from '../../lib/logger';
import { SecretBox } from '../../lib/secrets';
import { createWebhookService } from '../../services/webhooks';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody } from '../support/api';
import { request } from '../support/http';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { setWebhookUrl } from '../webhooks/support';

type Listed = KeyPaymentPage['data'][number];

describe('listing by key: payments, events, statements', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let merchantApi: string;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    merchantApi = stack.info.merchantApiUrl;
    merchant = await newMerchant(stack, services.knex, { webhookUrl: 'https://merchant.example/hook' });
    other = await newMerchant(stack, services.knex, { webhookUrl: 'https://merchant.example/hook' });
  });
  after(async () => services?.close());

  const get = <T>(url: string, key: string) => request<T>(url, { headers: { 'x-api-key': key } });
  const create = (m: TestMerchant, orderId = randomUUID()) => createPayment(api, m.ordersKey, paymentBody({ orderId, chainId: '8453', amount: '3' }));
  /**
   * A status change as the payment's run writes it (the one writer of statuses), with a sequence above any its run
   * writes in the test's time (the tenths of a second it has run).
   */
  let sequence = 100_000_000;
  const changeStatus = (paymentId: string, status: PaymentRow['status'], knex = services.knex) =>
    applyPaymentTransition({ knex, transition: { paymentId, status, sequence: (sequence += 1) } });

  /** Pages through the app's changes from `cursor` until `hasMore` is false; every item seen, and the cursor ended on. */
  async function syncChanges(key: string, cursor: string | null, limit: number, betweenPages: () => Promise<void> = async () => {}) {
    const seen: Listed[] = [];
    for (let hasMore = true; hasMore; ) {
      const query = new URLSearchParams({ updatedSince: '2000-01-01', limit: String(limit) });
      if (cursor) query.set('cursor', cursor);
      const res = await get<KeyPaymentPage>(`${api}?${query.toString()}`, key);
      assert.equal(res.status, 200, res.text);
      keyPaymentPageSchema.parse(res.body);
      seen.push(...res.body.data);
      cursor = res.body.nextCursor;
      hasMore = res.body.hasMore;
      await betweenPages();
    }
    return { seen, cursor };
  }

  it('pages by change under concurrent creates and status changes: every change once, none skipped', async () => {
    const m = await newMerchant(stack, services.knex);
    const initial = await Promise.all(Array.from({ length: 12 }, () => create(m)));
    const created: string[] = initial.map((p) => p.id);
    const statuses = ['payment_started', 'payment_payin_completed', 'payment_payout_started', 'payment_completed'] as const;
    let round = 0;
    // Between pages: two new payments and three status changes, one of them in a transaction that commits only
    // after a later change began (the commit-order race a stamp of `now()` loses).
    const churn = async () => {
      const r = (round += 1);
      created.push(...(await Promise.all([create(m), create(m)])).map((p) => p.id));
      const [a, b, c] = [created[r % created.length]!, created[(r * 5) % created.length]!, created[(r * 7 + 1) % created.length]!];
      const status = statuses[r % statuses.length]!;
      const trx = await services.knex.transaction();
      await changeStatus(a, status, trx);
      const later = changeStatus(b, status);
      await new Promise((r) => setTimeout(r, 50));
      await trx.commit();
      await Promise.all([later, changeStatus(c, status)]);
    };
    // The churn runs while the client pages: its reads fall between, and during, the writes.
    const churning: Array<Promise<void>> = [];
    let { seen, cursor } = await syncChanges(m.ordersKey, null, 4, async () => {
      if (churning.length < 8) churning.push(churn());
      await new Promise((r) => setTimeout(r, 20));
    });
    await Promise.all(churning);
    // A later run from the kept cursor reads what changed since, and only that.
    const again = await syncChanges(m.ordersKey, cursor, 4);
    seen = [...seen, ...again.seen];
    cursor = again.cursor;

    // No change read twice: each (payment, stamp) once, and the stamps in increasing order.
    const versions = seen.map((p) => `${p.id}@${p.updatedAt}`);
    assert.equal(new Set(versions).size, versions.length, 'a change was read twice');
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1]!.updatedAt <= seen[i]!.updatedAt, 'changes out of order');
    // None skipped: the last version read of every payment is the payment as it is now.
    const lastSeen = new Map(seen.map((p) => [p.id, p]));
    const now = await services.knex<PaymentRow>('payments').where({ app_id: m.appId });
    assert.equal(now.length, created.length);
    assert.deepEqual([...lastSeen.keys()].sort(), [...created].sort());
    for (const row of now) {
      assert.equal(lastSeen.get(row.id)!.status, row.status, `payment ${row.id}: the client missed its last change`);
      assert.equal(lastSeen.get(row.id)!.updatedAt, row.updated_at.toISOString());
    }
    // The cursor kept after the last page has nothing new behind it.
    const after = await syncChanges(m.ordersKey, cursor, 4);
    assert.deepEqual(after.seen, []);
  });

  it('lists newest first with filters, each item as the key reads it, and pages without repeats', async () => {
    const m = await newMerchant(stack, services.knex);
    const payments = [];
    for (let i = 0; i < 5; i++) payments.push(await create(m, `order-${i}-${randomUUID()}`));
    await changeStatus(payments[1]!.id, 'payment_expired');

    const ids: string[] = [];
    let cursor: string | null = null;
    for (let hasMore = true; hasMore; ) {
      const page: { status: number; text: string; body: KeyPaymentPage } = await get<KeyPaymentPage>(`${api}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, m.adminKey);
      assert.equal(page.status, 200, page.text);
      ids.push(...page.body.data.map((p) => p.id));
      for (const p of page.body.data) {
        assert.equal(p.merchant?.appId, m.appId);
        assert.equal(p.paymentLink, `${stack.publicBaseUrl}/pay/${p.id}`);
      }
      cursor = page.body.nextCursor;
      hasMore = page.body.hasMore;
    }
    assert.deepEqual(ids, payments.map((p) => p.id).reverse());

    const expired = await get<KeyPaymentPage>(`${api}?status=payment_expired`, m.ordersKey);
    assert.deepEqual(expired.body.data.map((p) => p.id), [payments[1]!.id]);
    const unpaid = await get<KeyPaymentPage>(`${api}?status=unpaid`, m.ordersKey);
    assert.equal(unpaid.body.data.length, 4, 'the short spelling filters too');
    const byOrder = await get<KeyPaymentPage>(`${api}?orderId=${encodeURIComponent(payments[3]!.orderId!)}`, m.ordersKey);
    assert.deepEqual(byOrder.body.data.map((p) => p.id), [payments[3]!.id]);
    const future = await get<KeyPaymentPage>(`${api}?createdFrom=2999-01-01`, m.ordersKey);
    assert.deepEqual(future.body, { data: [], nextCursor: null, hasMore: false });
    const before = await get<KeyPaymentPage>(`${api}?createdTo=${encodeURIComponent(payments[2]!.createdAt)}`, m.ordersKey);
    assert.deepEqual(before.body.data.map((p) => p.id).sort(), [payments[0]!.id, payments[1]!.id].sort());

    for (const bad of ['status=paid', 'limit=101', 'limit=0', 'cursor=%25%25', `cursor=${Buffer.from('u|1|x').toString('base64url')}`, 'createdFrom=yesterday']) {
      const res = await get<{ error: string; details: Array<{ path: string }> }>(`${api}?${bad}`, m.ordersKey);
      assert.equal(res.status, 400, `${bad}: ${res.text}`);
      assert.equal(res.body.error, 'invalid_request');
    }
    // A cursor of the other ordering is refused, not misread.
    const changes = await get<KeyPaymentPage>(`${api}?updatedSince=2000-01-01&limit=1`, m.ordersKey);
    const mixed = await get<{ error: string }>(`${api}?cursor=${changes.body.nextCursor}`, m.ordersKey);
    assert.equal(mixed.status, 400, mixed.text);
  });

  it("another app's key sees nothing of this app's payments, events or statement", async () => {
    const payment = await create(merchant);
    const mine = await get<KeyPaymentPage>(`${api}?limit=100`, merchant.ordersKey);
    assert.ok(mine.body.data.some((p) => p.id === payment.id));
    for (const url of [`${api}?limit=100`, `${api}?updatedSince=2000-01-01&limit=100`, `${api}?orderId=${encodeURIComponent(payment.orderId!)}`]) {
      const theirs = await get<KeyPaymentPage>(url, other.adminKey);
      assert.equal(theirs.status, 200, theirs.text);
      assert.ok(!theirs.body.data.some((p) => p.appId === merchant.appId), `${url} leaked a payment of another app`);
    }
    // This app's cursor, presented with the other app's key, finds nothing either.
    const cursor = (await get<KeyPaymentPage>(`${api}?limit=1`, merchant.ordersKey)).body.nextCursor!;
    const borrowed = await get<KeyPaymentPage>(`${api}?cursor=${cursor}`, other.adminKey);
    assert.ok(!borrowed.body.data.some((p) => p.appId === merchant.appId));

    const event = await exhaustedEvent(merchant);
    assert.equal((await get(`${merchantApi}/events/${event.eventId}`, other.adminKey)).status, 404);
    const theirEvents = await get<EventPage>(`${merchantApi}/events?limit=100`, other.adminKey);
    assert.ok(!theirEvents.body.data.some((e) => e.eventId === event.eventId));
    const statement = await get<{ error: string }>(`${merchantApi}/apps/${merchant.appId}/statement?from=2000-01-01&to=2000-12-31`, other.adminKey);
    assert.equal(statement.status, 404, statement.text);
  });

  it('an Orders key reads no events and no statement (403 scope_insufficient)', async () => {
    for (const url of [`${merchantApi}/events`, `${merchantApi}/events/${randomUUID()}`, `${merchantApi}/apps/${merchant.appId}/statement?from=2026-01-01&to=2026-02-01`]) {
      const res = await get<{ error: string }>(url, merchant.ordersKey);
      assert.equal(res.status, 403, `${url}: ${res.text}`);
      assert.equal(res.body.error, 'scope_insufficient');
    }
    const unauthenticated = await request<{ error: string }>(`${merchantApi}/apps/${merchant.appId}/statement?from=2026-01-01&to=2026-02-01`);
    assert.equal(unauthenticated.status, 401, unauthenticated.text);
  });

  /** A payin event of a new payment of `m`, delivered for real to an endpoint that refuses it (HTTP 500): exhausted. */
  async function exhaustedEvent(m: TestMerchant): Promise<WebhookEvent> {
    await setWebhookUrl(services.knex, m.appId, 'https://127.0.0.1:9/refused');
    const payment = await create(m);
    await setWebhookUrl(services.knex, m.appId, null);
    const webhooks = createWebhookService({
      knex: services.knex,
      chains: services.chains,
      log: createLogger('silent', 'test'),
      secrets: new SecretBox(stack.env.PAYRAIL_SECRETS_KEY!),
      webhooks: { allowPrivateNetworks: true, timeoutMs: 2_000 },
    });
    await changeStatus(payment.id, 'payment_payin_completed');
    const result = await webhooks.deliverWebhook({ paymentId: payment.id, eventType: 'payment_payin_completed' });
    assert.equal(result.status, 'exhausted');
    const res = await get<WebhookEvent>(`${merchantApi}/events/${(result as { deliveryId: string }).deliveryId}`, m.adminKey);
    assert.equal(res.status, 200, res.text);
    return webhookEventSchema.parse(res.body);
  }

  it('an exhausted delivery shows with delivered=false, its data as it was sent', async () => {
    const m = await newMerchant(stack, services.knex, { webhookUrl: 'https://merchant.example/hook' });
    const event = await exhaustedEvent(m);
    assert.equal(event.eventType, 'payment_payin_completed');
    assert.equal(event.delivery.status, 'exhausted');
    assert.equal(event.delivery.url, 'https://127.0.0.1:9/refused');
    assert.equal((event.data as { id: string }).id, event.paymentId);
    assert.equal((event.data as { status: string }).status, 'payment_payin_completed');
    const body = (await services.knex('webhook_deliveries').where({ delivery_id: event.eventId }).first<{ body: string }>()).body;
    assert.deepEqual(event.data, (JSON.parse(body) as { data: unknown }).data);

    const undelivered = await get<EventPage>(`${merchantApi}/events?delivered=false`, m.adminKey);
    eventPageSchema.parse(undelivered.body);
    assert.deepEqual(undelivered.body.data.map((e) => e.eventId), [event.eventId]);
    const delivered = await get<EventPage>(`${merchantApi}/events?delivered=true`, m.adminKey);
    assert.deepEqual(delivered.body.data, []);
    const payouts = await get<EventPage>(`${merchantApi}/events?type=payment_payout_completed`, m.adminKey);
    assert.deepEqual(payouts.body.data, []);
    const later = await get<EventPage>(`${merchantApi}/events?since=2999-01-01`, m.adminKey);
    assert.deepEqual(later.body.data, []);
    for (const bad of ['type=webhook_test', 'delivered=no', 'since=soon', 'cursor=abc']) {
      assert.equal((await get(`${merchantApi}/events?${bad}`, m.adminKey)).status, 400, bad);
    }
    assert.equal((await get(`${merchantApi}/events/not-a-uuid`, m.adminKey)).status, 400);
    assert.equal((await get(`${merchantApi}/events/${randomUUID()}`, m.adminKey)).status, 404);
  });
});
