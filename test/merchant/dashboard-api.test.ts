import assert from 'node:assert/strict';
import { applyPaymentTransition } from '../../db/queries/payments';
import { PAYMENT_STATUSES } from '../../domain/payment';
import type { Stack } from '../../tools/stack/stack';
import { assertErrorEnvelope, uniqueOrderId } from '../api/helpers';
import { createPayment, paymentBody } from '../support/api';
import { request, type HttpResult } from '../support/http';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { bearer, createKey, login, register, requestLoginCode, uniqueEmail, type RegisteredApp, type Session } from './helpers';

interface ListedPayment {
  id: string;
  orderId: string | null;
  status: string;
  createdAt: string;
}

/** The session cookie of a `Set-Cookie` answer, as a `Cookie` header value. */
const sessionCookie = (res: HttpResult) => /payrail_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];

describe('merchant API: dashboard session, payments, timeline, deliveries, orders', function () {
  this.timeout(90_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let origin: string;
  let alice: Session;
  let bob: Session;
  let app: RegisteredApp;
  let ordersKey: string;
  const created: ListedPayment[] = [];

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.merchantApiUrl;
    origin = new URL(api).origin;
    alice = await login(api, stack.info.mailSinkUrl!);
    bob = await login(api, stack.info.mailSinkUrl!);
    app = await register(api, alice.token);
    ordersKey = (await createKey(api, alice.token, app.appId)).key;
    for (let i = 0; i < 5; i++) {
      const p = await createPayment(stack.info.paymentApiUrl, ordersKey, paymentBody({ orderId: uniqueOrderId('dash'), chainId: '8453' }));
      created.push(p);
    }
  });
  after(async () => services?.close());

  const get = <T>(path: string, token = alice.token) => request<T>(`${api}${path}`, { headers: bearer(token) });

  it('logs in to a cookie session (HttpOnly, SameSite=Strict, Path=/), checks the Origin of changes, and logs out for good', async () => {
    const email = uniqueEmail('cookie');
    const { code, loginId } = await requestLoginCode(api, stack.info.mailSinkUrl!, email);
    const res = await request<{ developerId: string; email: string }>(`${api}/auth/session`, { body: { email, code, loginId } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.email, email);
    const setCookie = res.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /httponly/i);
    assert.match(setCookie, /samesite=strict/i);
    assert.match(setCookie, /path=\//i);
    assert.doesNotMatch(setCookie, /secure/i, 'plain http: no Secure flag');
    assert.doesNotMatch(res.text, /payrail_session|token/, 'the session id is never in the body');
    const cookie = sessionCookie(res)!;

    const me = await request<{ email: string }>(`${api}/auth/session`, { headers: { cookie } });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.email, email);
    assert.equal((await request(`${api}/apps`, { headers: { cookie } })).status, 200);

    const crossSite = await request(`${api}/register`, { headers: { cookie, origin: 'https://evil.example' }, body: {} });
    assert.equal(crossSite.status, 403, crossSite.text);
    assert.equal(assertErrorEnvelope(crossSite, 'cross-origin').error, 'cross_origin_request');
    const noOrigin = await request(`${api}/apps/${app.appId}/webhook/rotate`, { headers: { cookie }, body: {} });
    assert.equal(noOrigin.status, 403, 'a state change by cookie needs the Origin header');

    const out = await request(`${api}/auth/session`, { method: 'DELETE', headers: { cookie, origin } });
    assert.equal(out.status, 204, out.text);
    const after = await request(`${api}/apps`, { headers: { cookie } });
    assert.equal(after.status, 401, 'the old cookie is dead server-side');
    assert.equal(assertErrorEnvelope(after, 'after logout').error, 'session_expired');
    assert.equal((await request(`${api}/auth/session`, { headers: { cookie } })).status, 401);
  });

  it('pages through payments newest first with a keyset cursor; filters by status, order id, payment id and date', async () => {
    const seen: ListedPayment[] = [];
    let cursor: string | null = null;
    do {
      const res: HttpResult<{ data: ListedPayment[]; nextCursor: string | null }> = await get(`/apps/${app.appId}/payments?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.data.length <= 2);
      seen.push(...res.body.data);
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.deepEqual(
      seen.map((p) => p.id),
      [...created].reverse().map((p) => p.id),
      'every payment once, newest first',
    );

    const target = created[2]!;
    const byOrder = await get<{ data: ListedPayment[] }>(`/apps/${app.appId}/payments?q=${target.orderId}`);
    assert.deepEqual(byOrder.body.data.map((p) => p.id), [target.id]);
    const byId = await get<{ data: ListedPayment[] }>(`/apps/${app.appId}/payments?q=${target.id.toUpperCase()}`);
    assert.deepEqual(byId.body.data.map((p) => p.id), [target.id]);
    const unpaid = await get<{ data: ListedPayment[] }>(`/apps/${app.appId}/payments?status=unpaid&limit=100`);
    assert.equal(unpaid.body.data.length, 5);
    assert.equal((await get<{ data: ListedPayment[] }>(`/apps/${app.appId}/payments?status=payment_completed`)).body.data.length, 0);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    assert.equal((await get<{ data: ListedPayment[] }>(`/apps/${app.appId}/payments?from=${tomorrow}`)).body.data.length, 0);
    assert.equal((await get<{ data: ListedPayment[] }>(`/apps/${app.appId}/payments?to=${tomorrow}&limit=100`)).body.data.length, 5);

    for (const bad of ['status=bogus', 'cursor=nope', 'limit=0', 'from=yesterday']) {
      const res = await get(`/apps/${app.appId}/payments?${bad}`);
      assert.equal(res.status, 400, `${bad}: ${res.text}`);
      assertErrorEnvelope(res, bad);
    }
  });

  it("records every status a payment enters: the detail's timeline, and the changes poll", async () => {
    const payment = created[0]!;
    const before = new Date().toISOString();
    await applyPaymentTransition({ knex: services.knex, transition: { paymentId: payment.id, status: 'payment_started', sequence: 1 } });
    // A zombie write of the same step changes nothing, and adds no timeline entry.
    await applyPaymentTransition({ knex: services.knex, transition: { paymentId: payment.id, status: 'payment_started', sequence: 1 } });
    const res = await get<{ payment: { status: string }; timeline: Array<{ status: string; at: string }>; links: Record<string, string | null>; deliveries: unknown[] }>(
      `/apps/${app.appId}/payments/${payment.id}`,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.payment.status, 'payment_started');
    assert.deepEqual(res.body.timeline.map((t) => t.status), ['payment_unpaid', 'payment_started']);
    assert.deepEqual(res.body.deliveries, []);
    const ui = stack.info.temporalUiUrl;
    assert.equal(res.body.links.workflow, ui ? `${ui}/namespaces/${stack.config.temporal.namespace}/workflows/payment-${payment.id}` : null);

    const changes = await get<{ data: ListedPayment[] }>(`/apps/${app.appId}/payments/changes?since=${encodeURIComponent(before)}`);
    assert.equal(changes.status, 200, changes.text);
    assert.deepEqual(changes.body.data.map((p) => [p.id, p.status]), [[payment.id, 'payment_started']]);
  });

  it('shows when a key was last used, and the deliveries, orders and stats of the app', async () => {
    const keys = await get<{ data: Array<{ scope: string; lastUsedAt: string | null }> }>(`/apps/${app.appId}/keys`);
    assert.ok(keys.body.data.find((k) => k.scope === 'Orders')?.lastUsedAt, 'the Orders key created payments');
    const deliveries = await get<{ data: unknown[]; nextCursor: string | null }>(`/apps/${app.appId}/deliveries?status=delivered&eventType=payment_payin_completed`);
    assert.equal(deliveries.status, 200, deliveries.text);
    assert.deepEqual(deliveries.body, { data: [], nextCursor: null });
    assert.equal((await get(`/apps/${app.appId}/deliveries?status=pending`)).status, 400);
    const orders = await get<{ data: unknown[] }>(`/apps/${app.appId}/orders`);
    assert.equal(orders.status, 200, orders.text);
    const stats = await get<{ period: string; paymentCount: number; chart: unknown[] }>(`/apps/${app.appId}/stats?period=7d`);
    assert.equal(stats.status, 200, stats.text);
    assert.equal(stats.body.chart.length, 7);
    const config = await request<{ chains: Array<{ chainId: string }>; paymentStatuses: string[] }>(`${api}/dashboard/config`);
    assert.deepEqual(config.body.chains.map((c) => c.chainId).sort(), ['148', '195', '42161', '501', '607', '8453']);
    assert.deepEqual(config.body.paymentStatuses, [...PAYMENT_STATUSES], 'the status filter offers every status, in lifecycle order');
  });

  it('sends a signed test event to the webhook URL and logs it like a delivery, of no payment', async () => {
    const sent = await request<{ deliveryId: string; status: string; statusCode: number | null; error: string | null }>(`${api}/apps/${app.appId}/webhook/test`, {
      headers: bearer(alice.token),
      method: 'POST',
    });
    assert.equal(sent.status, 200, sent.text);
    // Nothing listens at the registered URL: the one attempt fails, and says why.
    assert.equal(sent.body.status, 'exhausted');
    assert.ok(sent.body.error, 'the reason the test event failed');
    const log = await get<{ data: Array<{ deliveryId: string; eventType: string; paymentId: string | null; status: string }> }>(`/apps/${app.appId}/deliveries?eventType=webhook_test`);
    assert.deepEqual(log.body.data.map((d) => [d.deliveryId, d.eventType, d.paymentId, d.status]), [[sent.body.deliveryId, 'webhook_test', null, 'exhausted']]);
    assert.equal((await request(`${api}/apps/${app.appId}/webhook/test`, { headers: bearer(bob.token), method: 'POST' })).status, 404);
  });

  it("never shows one developer another's app: payments, a payment, deliveries, orders, stats are all 404", async () => {
    const payment = created[1]!;
    const orderId = '00000000-0000-4000-8000-000000000000';
    for (const path of [
      `/apps/${app.appId}/payments`,
      `/apps/${app.appId}/payments/${payment.id}`,
      `/apps/${app.appId}/payments/changes?since=${encodeURIComponent(new Date(0).toISOString())}`,
      `/apps/${app.appId}/deliveries`,
      `/apps/${app.appId}/orders`,
      `/apps/${app.appId}/orders/${orderId}/callbacks`,
      `/apps/${app.appId}/stats?period=today`,
    ]) {
      const res = await get(path, bob.token);
      assert.equal(res.status, 404, `${path}: ${res.text}`);
    }
    const bobsApp = await register(api, bob.token);
    const foreign = await get(`/apps/${bobsApp.appId}/payments/${payment.id}`, bob.token);
    assert.equal(foreign.status, 404, "another app's payment through one's own app");
    assert.equal((await request(`${api}/apps/${app.appId}/payments`)).status, 401, 'no credentials');
  });
});
