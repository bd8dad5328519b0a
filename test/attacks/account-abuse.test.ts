import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Stack } from '../../tools/stack/stack';
import { assertErrorEnvelope, uniqueOrderId } from '../api/helpers';
import { assertRateLimited, awayFromDayBoundary, bearer, createKey, login, register, registerBody, requestLoginCode, uniqueClientIp, uniqueEmail } from '../merchant/helpers';
import { paymentBody } from '../support/api';
import { request } from '../support/http';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { connectServices, startExtraApi, type ExtraApi, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

const DAY = 86_400;
const AUTH_FAILURES = 5;
/** Codes mailed per address a day on the login-guessing API: with 3 tries each, 9 guesses a day at most. */
const CODES_PER_ADDRESS = 3;

/** An address of its own in a fresh IPv6 /64, and more addresses inside that /64. */
const uniqueIpv6Network = () => {
  const prefix = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
  return () => `${prefix}:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}:1`;
};

/**
 * Opening 9 (issue 8) and issue 38's wrong-code lockout: locking merchants out by failing on purpose (bad keys from
 * a shared address, wrong login codes for a victim's address, voiding a developer's code), guessing login codes, and
 * flooding keyless creates to use up a merchant's payment budget. One API behind a trusted proxy hop, with low limits; every client is its own forwarded address.
 */
describe('attack: account abuse', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let api: ExtraApi;
  let merchant: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex);
    api = await startExtraApi(stack, services, {
      trustedProxyHops: 1,
      rateLimits: {
        authFailuresPerIp: { limit: AUTH_FAILURES, windowSeconds: DAY },
        loginCodesGlobal: { limit: 3, windowSeconds: DAY },
        keylessCreatesPerIp: { limit: 3, windowSeconds: DAY },
        keylessCreatesPerApp: { limit: 5, windowSeconds: DAY },
        paymentCreatesPerApp: { limit: 1000, windowSeconds: DAY },
      },
      accountLimits: { appsPerDeveloper: 2, apiKeysPerApp: 2 },
    });
  });
  beforeEach(awayFromDayBoundary);
  after(async () => {
    await api?.close();
    await services?.close();
  });

  const from = (ip: string, headers: Record<string, string> = {}) => ({ ...headers, 'x-forwarded-for': ip });

  it("bad keys from the merchant's own address (a shared proxy) never lock out its valid key or token", async () => {
    const shared = uniqueClientIp();
    for (let i = 0; i < AUTH_FAILURES; i++) {
      const res = await request(api.paymentApiUrl, { headers: from(shared, { 'x-api-key': `pr_live_guess${i}` }), body: paymentBody() });
      assert.equal(res.status, 401, res.text);
    }
    assertRateLimited(await request(api.paymentApiUrl, { headers: from(shared, { 'x-api-key': 'pr_live_guess-more' }), body: paymentBody() }), 'another bad key');
    // The legacy `token` header is throttled like X-API-Key.
    assertRateLimited(await request(`${api.origin}/v1/orders`, { headers: from(shared, { token: 'pr_live_guess' }), body: { price_amount: 5 } }), 'a bad legacy token');

    const good = await request(api.paymentApiUrl, { headers: from(shared, { 'x-api-key': merchant.ordersKey }), body: paymentBody({ orderId: uniqueOrderId('lockout') }) });
    assert.equal(good.status, 201, `the merchant's key still works: ${good.text}`);
    const legacy = await request(`${api.origin}/v1/orders`, { headers: from(shared, { token: merchant.ordersKey }), body: { price_amount: 5 } });
    assert.equal(legacy.status, 201, `the merchant's legacy token still works: ${legacy.text}`);
  });

  it('an IPv6 attacker rotating addresses inside one /64 shares one failure budget', async () => {
    const inNetwork = uniqueIpv6Network();
    for (let i = 0; i < AUTH_FAILURES; i++) {
      const res = await request(`${api.merchantApiUrl}/me/stats?period=today`, { headers: from(inNetwork(), { 'x-api-key': 'pr_live_wrong' }) });
      assert.equal(res.status, 401, res.text);
    }
    assertRateLimited(await request(`${api.merchantApiUrl}/me/stats?period=today`, { headers: from(inNetwork(), { 'x-api-key': 'pr_live_wrong' }) }), 'a sixth address in the /64');
    const elsewhere = await request(`${api.merchantApiUrl}/me/stats?period=today`, { headers: from(uniqueIpv6Network()(), { 'x-api-key': 'pr_live_wrong' }) });
    assert.equal(elsewhere.status, 401, 'another /64 has its own budget');
  });

  it("login-code guessing is throttled per client and per address and never wins, while the owner's right code always logs in", async () => {
    // An API of its own: its codes must not use up the suite's deployment-wide mail cap.
    const guarded = await startExtraApi(stack, services, {
      trustedProxyHops: 1,
      rateLimits: {
        authFailuresPerIp: { limit: AUTH_FAILURES, windowSeconds: DAY },
        loginCodesPerEmail: { limit: CODES_PER_ADDRESS, windowSeconds: DAY },
        loginCodesPerIp: { limit: 100, windowSeconds: DAY },
      },
    });
    try {
      const email = uniqueEmail('victim');
      const sink = stack.info.mailSinkUrl!;
      // The owner and the attacker share one address (an office, a carrier's NAT): nothing sets them apart but the code.
      const shared = uniqueClientIp();
      const owner = await requestLoginCode(guarded.merchantApiUrl, sink, email, from(shared));
      const exchange = (body: { code: string; loginId: string }, ip = shared) => request(`${guarded.merchantApiUrl}/auth/token`, { headers: from(ip), body: { email, ...body } });
      const notTheCode = (real: string) => (real === '000000' ? '000001' : '000000');

      // Guessing at the owner's code needs its login id, which only the owner was given: a made-up one never matches.
      for (let i = 0; i < AUTH_FAILURES; i++) {
        const res = await exchange({ code: String(i * 7919).padStart(6, '0'), loginId: randomUUID() });
        assert.equal(res.status, 401, res.text);
        assert.equal(assertErrorEnvelope(res).error, 'invalid_code');
      }
      // Throttled per client: the shared address is over its failure budget, so more failures are 429.
      assertRateLimited(await exchange({ code: '123456', loginId: randomUUID() }), 'a sixth failure from the shared address');

      // The attacker's own codes for the address: each takes 3 tries, after which even its right code is refused.
      const attacker = uniqueClientIp();
      const own = await requestLoginCode(guarded.merchantApiUrl, sink, email, from(attacker));
      for (let i = 0; i < 3; i++) assert.equal((await exchange({ code: notTheCode(own.code), loginId: own.loginId }, attacker)).status, 401);
      const spent = await exchange({ code: own.code, loginId: own.loginId }, attacker);
      assert.equal(spent.status, 401, `a code out of tries, even the right one: ${spent.text}`);
      // Throttled per address: codes for it run out, so guesses against it are at most codes × tries a day.
      await requestLoginCode(guarded.merchantApiUrl, sink, email, from(uniqueClientIp()));
      assertRateLimited(
        await request(`${guarded.merchantApiUrl}/auth/login-code`, { headers: from(uniqueClientIp()), body: { email } }),
        'a fourth code for the address the same day',
      );

      // None of it touched the owner's code: not one of its tries was spent.
      const row = (await services.knex('login_codes').where({ id: owner.loginId }).first()) as { attempts: number; consumed_at: Date | null };
      assert.deepEqual([row.attempts, row.consumed_at], [0, null]);
      // The owner's right code logs in at once, from the very address that is over its failure budget.
      const loggedIn = await exchange({ code: owner.code, loginId: owner.loginId });
      assert.equal(loggedIn.status, 200, loggedIn.text);
      assert.equal(typeof (loggedIn.body as { token: string }).token, 'string');
    } finally {
      await guarded.close();
    }
  });

  it('the login-code mail of the whole deployment is capped, whatever the addresses and clients', async () => {
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(await request(`${api.merchantApiUrl}/auth/login-code`, { headers: from(uniqueClientIp()), body: { email: uniqueEmail('spray') } }));
    }
    const sent = results.filter((r) => r.status === 202).length;
    assert.ok(sent <= 3, `at most 3 codes mailed, not ${sent}`);
    const refused = results.filter((r) => r.status === 429);
    assert.ok(refused.length >= 2, 'the rest are refused');
    assert.match(assertErrorEnvelope(refused[0]!).message, /service is busy/);
  });

  it("a keyless flood against a merchant's app never blocks the merchant's keyed creates", async () => {
    const shop = await newMerchant(stack, services.knex, { keylessPayments: true });
    const flooder = uniqueClientIp();
    const keyless = (ip: string) => request(`${api.paymentApiUrl}/payments`, { headers: from(ip), body: { ...paymentBody({ orderId: uniqueOrderId('flood') }), appId: shop.appId } });

    // One client: 3 creates, then refused.
    for (let i = 0; i < 3; i++) assert.equal((await keyless(flooder)).status, 201);
    assertRateLimited(await keyless(flooder), 'a fourth keyless create from one client');
    // Many clients: the app's keyless budget (5) runs out.
    const spread = [];
    for (let i = 0; i < 4; i++) spread.push(await keyless(uniqueClientIp()));
    assert.deepEqual(spread.map((r) => r.status), [201, 201, 429, 429]);
    assert.match(assertErrorEnvelope(spread[3]!).message, /keyless payments created for this app/);

    for (let i = 0; i < 3; i++) {
      const res = await request(api.paymentApiUrl, { headers: from(flooder, { 'x-api-key': shop.ordersKey }), body: paymentBody({ orderId: uniqueOrderId('keyed') }) });
      assert.equal(res.status, 201, `keyed creates are untouched: ${res.text}`);
    }
  });

  it('one developer holds at most the allowed apps, and an app at most the allowed live keys', async () => {
    // Logged in on the stack's API: this suite's has used up its global mail cap.
    const session = await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!);
    const apps = [await register(api.merchantApiUrl, session.token), await register(api.merchantApiUrl, session.token)];
    const third = await request(`${api.merchantApiUrl}/register`, { headers: bearer(session.token), body: registerBody() });
    assert.equal(third.status, 403, third.text);
    assert.equal(assertErrorEnvelope(third).error, 'limit_reached');
    assert.match(assertErrorEnvelope(third).message, /at most 2 merchant apps/);

    const appId = apps[0]!.appId;
    const keys = [await createKey(api.merchantApiUrl, session.token, appId), await createKey(api.merchantApiUrl, session.token, appId)];
    const extra = await request(`${api.merchantApiUrl}/apps/${appId}/keys`, { headers: bearer(session.token), body: {} });
    assert.equal(extra.status, 403, extra.text);
    assert.equal(assertErrorEnvelope(extra).error, 'limit_reached');
    // Revoking a key makes room for another.
    const revoked = await request(`${api.merchantApiUrl}/apps/${appId}/keys/${keys[0]!.id}`, { method: 'DELETE', headers: bearer(session.token) });
    assert.equal(revoked.status, 200, revoked.text);
    await createKey(api.merchantApiUrl, session.token, appId);
  });
});
