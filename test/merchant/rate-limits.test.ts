import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startHousekeeping } from '../../api/housekeeping';
import { createLogger } from '../../lib/logger';
import type { Stack } from '../../tools/stack/stack';
import { assertErrorEnvelope, uniqueOrderId } from '../api/helpers';
import { paymentBody } from '../support/api';
import { request } from '../support/http';
import { sinkMessages } from '../support/mail';
import { eventually } from '../support/poll';
import { connectServices, startExtraApi, type ExtraApi, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { assertRateLimited, awayFromDayBoundary, bearer, createKey, login, register, registerBody, uniqueClientIp, uniqueEmail } from './helpers';

const LIMIT = 3;
const DAY = 86_400;

/**
 * Two API processes with low limits share their counters through PostgreSQL. Each test is its own client
 * (X-Forwarded-For through one trusted proxy hop), e-mail address or app, so the counters start at zero.
 */
describe('merchant service: rate limits shared by API processes', function () {
  this.timeout(60_000);
  let stack: Stack;
  let services: StackServices;
  let a: ExtraApi;
  let b: ExtraApi;
  let merchant: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex);
    const overrides = {
      trustedProxyHops: 1,
      rateLimits: {
        authFailuresPerIp: { limit: LIMIT, windowSeconds: DAY },
        loginCodesPerEmail: { limit: LIMIT, windowSeconds: DAY },
        loginCodesPerIp: { limit: LIMIT * 2, windowSeconds: DAY },
        paymentCreatesPerApp: { limit: LIMIT, windowSeconds: DAY },
        orderCreatesPerApp: { limit: LIMIT, windowSeconds: DAY },
        createsPerDeveloper: { limit: LIMIT + 1, windowSeconds: DAY },
        registrationsPerIp: { limit: LIMIT, windowSeconds: DAY },
        keylessCreatesPerApp: { limit: LIMIT, windowSeconds: DAY },
      },
    };
    a = await startExtraApi(stack, services, overrides);
    b = await startExtraApi(stack, services, overrides);
  });
  beforeEach(awayFromDayBoundary);
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await services?.close();
  });

  it('counts failed API keys, legacy tokens, JWTs and login codes per client on every process; then refuses failures, never a good key', async () => {
    const ip = uniqueClientIp();
    const from = (headers: Record<string, string> = {}) => ({ ...headers, 'x-forwarded-for': `203.0.113.9, ${ip}` });
    const failures = [
      () => request(`${a.merchantApiUrl}/me/stats?period=today`, { headers: from({ 'x-api-key': 'pr_live_wrong' }) }),
      () => request(`${b.merchantApiUrl}/apps`, { headers: from(bearer('not.a.token')) }),
      () => request(`${a.origin}/v1/orders`, { headers: from({ token: 'pr_live_wrong' }), body: { price_amount: 5 } }),
    ];
    for (const fail of failures) assert.equal((await fail()).status, 401);

    for (const [label, res] of [
      ['a bad key on B', await request(`${b.paymentApiUrl}`, { headers: from({ 'x-api-key': 'pr_live_wrong' }), body: paymentBody() })],
      ['a bad legacy token on A', await request(`${a.origin}/v1/orders`, { headers: from({ token: 'pr_live_wrong' }), body: { price_amount: 5 } })],
      ['a code guess on B', await request(`${b.merchantApiUrl}/auth/token`, { headers: from(), body: { email: uniqueEmail('guess'), code: '654321', loginId: randomUUID() } })],
    ] as const) {
      assertRateLimited(res, label);
    }
    const blocked = await request(`${a.merchantApiUrl}/me/stats?period=today`, { headers: from({ 'x-api-key': 'pr_live_still-wrong' }) });
    assert.match((blocked.body as { message: string }).message, /failed authentication/);
    assert.ok(Number(blocked.headers.get('retry-after')) <= DAY);
    // A key that verifies is never refused for the failures of others at the same address.
    const good = await request(`${a.merchantApiUrl}/me/stats?period=today`, { headers: from({ 'x-api-key': merchant.adminKey }) });
    assert.equal(good.status, 200, good.text);

    // Other clients are unaffected, and a spoofed left-most X-Forwarded-For entry does not pick the bucket.
    const other = await request(`${a.merchantApiUrl}/me/stats?period=today`, { headers: { 'x-api-key': 'pr_live_wrong', 'x-forwarded-for': `${ip}, ${uniqueClientIp()}` } });
    assert.equal(other.status, 401, other.text);
    // A missing key is not a guess and does not count.
    assert.equal((await request(`${b.merchantApiUrl}/me/stats?period=today`, { headers: { 'x-forwarded-for': uniqueClientIp() } })).status, 401);
  });

  it('limits login-code e-mails per address across processes', async () => {
    const email = uniqueEmail('flood');
    const ask = (api: ExtraApi, address = email) => request(`${api.merchantApiUrl}/auth/login-code`, { headers: { 'x-forwarded-for': uniqueClientIp() }, body: { email: address } });
    for (const api of [a, b, a]) assert.equal((await ask(api)).status, 202);
    assertRateLimited(await ask(b), 'fourth code for one address');
    assertRateLimited(await ask(a, email.toUpperCase()), 'the same address in capitals');
    assert.equal((await ask(b, uniqueEmail('other'))).status, 202, 'another address is unaffected');
    assert.equal((await sinkMessages(stack.info.mailSinkUrl!, email)).length, LIMIT, 'refused requests send no mail');
  });

  it('limits login-code e-mails per client IP whatever the addresses', async () => {
    const ip = uniqueClientIp();
    const ask = (api: ExtraApi) => request(`${api.merchantApiUrl}/auth/login-code`, { headers: { 'x-forwarded-for': ip }, body: { email: uniqueEmail('spray') } });
    for (const api of [a, b, a, b, a, b]) assert.equal((await ask(api)).status, 202);
    const refused = await ask(a);
    assertRateLimited(refused, 'seventh address from one IP');
    assert.match((refused.body as { message: string }).message, /network address/);
  });

  it('limits payment creation per app and create form (keyless creates have their own bucket) across processes', async () => {
    // Logged in through the stack's API: login codes from this test's loopback address count in a bucket every
    // other test's logins fill too, which the low per-address limit of `a` would refuse.
    const session = await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!);
    const { appId } = await register(a.merchantApiUrl, session.token, registerBody({ keylessPayments: true }), { 'x-forwarded-for': uniqueClientIp() });
    const { key } = await createKey(a.merchantApiUrl, session.token, appId);
    const withKey = (api: ExtraApi) => request(api.paymentApiUrl, { headers: { 'x-api-key': key }, body: paymentBody({ orderId: uniqueOrderId('burst') }) });
    const byAppId = (api: ExtraApi) =>
      request(`${api.paymentApiUrl}/payments`, { headers: { 'x-forwarded-for': uniqueClientIp() }, body: { ...paymentBody({ orderId: uniqueOrderId('burst') }), appId } });

    for (const res of [await byAppId(a), await byAppId(b), await byAppId(a)]) assert.equal(res.status, 201, res.text);
    const refused = await byAppId(b);
    assertRateLimited(refused, 'fourth payment by appId');
    assert.match(assertErrorEnvelope(refused).message, /keyless payments created for this app/);
    for (const res of [await withKey(a), await withKey(b), await withKey(a)]) assert.equal(res.status, 201, `keyed creates keep their budget: ${res.text}`);
    const refusedKeyed = await withKey(b);
    assertRateLimited(refusedKeyed, 'fourth payment with the key');
    assert.match(assertErrorEnvelope(refusedKeyed).message, /payments created for this app/);
    assert.equal(await services.knex('payments').where({ app_id: appId }).count<Array<{ count: string }>>({ count: '*' }).then((r) => Number(r[0]!.count)), 2 * LIMIT);

    const other = await request(a.paymentApiUrl, { headers: { 'x-api-key': merchant.ordersKey }, body: paymentBody({ orderId: uniqueOrderId('other-app') }) });
    assert.equal(other.status, 201, 'another app is unaffected');
  });

  it('limits order creation (POST /v1/orders) per app across processes, answered in the legacy error shape', async () => {
    const session = await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!);
    const { appId } = await register(a.merchantApiUrl, session.token, registerBody(), { 'x-forwarded-for': uniqueClientIp() });
    const { key } = await createKey(a.merchantApiUrl, session.token, appId);
    const order = (api: ExtraApi) => request(`${api.origin}/v1/orders`, { headers: { token: key }, body: { price_amount: 5, price_currency: 'USD' } });
    for (const res of [await order(a), await order(b), await order(a)]) assert.equal(res.status, 201, res.text);
    const refused = await order(b);
    assertRateLimited(refused, 'fourth order for one app');
    assert.equal((refused.body as { status: number }).status, 429, 'the legacy body carries the status');
    assert.match(assertErrorEnvelope(refused).message, /too many orders created for this app/);
    assert.equal(await services.knex('orders').where({ app_id: appId }).count<Array<{ count: string }>>({ count: '*' }).then((r) => Number(r[0]!.count)), LIMIT);
  });

  it("limits a developer's keyed creates over all their apps together: a second app buys no more", async () => {
    const session = await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!);
    const [first, second] = [
      await register(a.merchantApiUrl, session.token, registerBody(), { 'x-forwarded-for': uniqueClientIp() }),
      await register(b.merchantApiUrl, session.token, registerBody(), { 'x-forwarded-for': uniqueClientIp() }),
    ];
    const keyOf = async (appId: string) => (await createKey(a.merchantApiUrl, session.token, appId)).key;
    const [firstKey, secondKey] = [await keyOf(first.appId), await keyOf(second.appId)];
    const pay = (api: ExtraApi, key: string) => request(api.paymentApiUrl, { headers: { 'x-api-key': key }, body: paymentBody({ orderId: uniqueOrderId('dev') }) });

    for (const res of [await pay(a, firstKey), await pay(b, firstKey), await pay(a, firstKey)]) assert.equal(res.status, 201, res.text);
    assertRateLimited(await pay(b, firstKey), 'the first app over its own budget');
    assert.equal((await pay(a, secondKey)).status, 201, "the second app's first create is within the developer's budget");
    const refused = await pay(b, secondKey);
    assertRateLimited(refused, "the second app over the developer's budget");
    assert.match(assertErrorEnvelope(refused).message, /created for this developer's apps/);
    const order = await request(`${b.origin}/v1/orders`, { headers: { token: secondKey }, body: { price_amount: 5, price_currency: 'USD' } });
    assertRateLimited(order, "an order over the developer's budget");
  });

  it('limits registrations per client address across processes, whatever the developer', async () => {
    const ip = uniqueClientIp();
    const sessions = [await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!), await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!)];
    const from = { 'x-forwarded-for': ip };
    await register(a.merchantApiUrl, sessions[0]!.token, registerBody(), from);
    await register(b.merchantApiUrl, sessions[0]!.token, registerBody(), from);
    await register(a.merchantApiUrl, sessions[1]!.token, registerBody(), from);
    const refused = await request(`${b.merchantApiUrl}/register`, { headers: { ...bearer(sessions[1]!.token), ...from }, body: registerBody() });
    assertRateLimited(refused, 'a fourth registration from one address, by another developer');
    assert.match(assertErrorEnvelope(refused).message, /merchant apps registered from this network address/);
    assert.equal((await services.knex('merchant_apps').whereIn('developer_id', sessions.map((s) => s.developerId)).pluck<string[]>('app_id')).length, LIMIT, 'a refused registration creates nothing');
    await register(a.merchantApiUrl, sessions[1]!.token, registerBody(), { 'x-forwarded-for': uniqueClientIp() });
  });

  it('housekeeping drops windows that started over a day ago and codes that expired over a day ago', async () => {
    const { knex } = services;
    const tag = randomUUID();
    await knex('rate_limit_counters').insert([
      { bucket: `old:${tag}`, window_start: knex.raw(`now() - interval '25 hours'`), count: 9 },
      { bucket: `live:${tag}`, window_start: knex.raw(`now() - interval '23 hours'`), count: 9 },
    ]);
    const email = uniqueEmail('stale');
    await knex('login_codes').insert([
      { id: randomUUID(), email, code_hash: 'old', expires_at: knex.raw(`now() - interval '25 hours'`) },
      { id: randomUUID(), email, code_hash: 'recent', expires_at: knex.raw(`now() - interval '1 hour'`) },
    ]);
    const housekeeping = startHousekeeping({ knex, log: createLogger('warn', 'test-housekeeping'), intervalMs: 100 });
    try {
      await eventually('old rows deleted', 5000, async () => ((await knex('rate_limit_counters').where({ bucket: `old:${tag}` }).first()) ? undefined : true));
      await eventually('stale code deleted', 5000, async () => ((await knex('login_codes').where({ email, code_hash: 'old' }).first()) ? undefined : true));
    } finally {
      await housekeeping.stop();
    }
    assert.ok(await knex('rate_limit_counters').where({ bucket: `live:${tag}` }).first(), 'a window of the last day is kept');
    assert.ok(await knex('login_codes').where({ email, code_hash: 'recent' }).first(), 'a recently expired code is kept');
  });
});
