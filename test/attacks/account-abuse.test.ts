import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Stack } from '../../tools/stack/stack';
import { assertErrorEnvelope, uniqueOrderId } from '../api/helpers';
import { assertRateLimited, awayFromDayBoundary, bearer, createKey, login, register, registerBody, requestLoginCode, uniqueClientIp, uniqueEmail } from '../merchant/helpers';
import { paymentBody } from '../support/api';
import { request } from '../support/http';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { awayFromWindowEnd, eventually } from '../support/poll';
import { connectServices, startExtraApi, type ExtraApi, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

const DAY = 86_400;
const AUTH_FAILURES = 5;
const LOGIN_FAILURES = 4;
const LOGIN_WINDOW_SECONDS = 6;

/** An address of its own in a fresh IPv6 /64, and more addresses inside that /64. */
const uniqueIpv6Network = () => {
  const prefix = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
  return () => `${prefix}:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}:1`;
};

/**
 * Opening 9 (issue 8): locking merchants out by failing on purpose (bad keys from a shared address, login-code
 * guesses, voiding a developer's code), guessing login codes, and flooding keyless creates to use up a merchant's
 * payment budget. One API behind a trusted proxy hop, with low limits; every client is its own forwarded address.
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
        loginFailuresPerEmail: { limit: LOGIN_FAILURES, windowSeconds: LOGIN_WINDOW_SECONDS },
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

  it('login-code guessing at the allowed rate never succeeds, and never locks the real developer out for good', async () => {
    const email = uniqueEmail('victim');
    const sink = stack.info.mailSinkUrl!;
    const victim = await requestLoginCode(api.merchantApiUrl, sink, email);
    // Asking for another code (as an attacker may) does not void the victim's.
    const second = await requestLoginCode(api.merchantApiUrl, sink, email);
    // Start with half a failure window left, so the burst below is counted in one window.
    await awayFromWindowEnd(LOGIN_WINDOW_SECONDS * 1000, (LOGIN_WINDOW_SECONDS * 1000) / 2);
    const exchange = (code: string) => request(`${api.merchantApiUrl}/auth/token`, { headers: from(uniqueClientIp()), body: { email, code } });

    // The attacker guesses from a fresh address each time; the test gives it no lucky guess.
    const real = new Set([victim.code, second.code]);
    const guesses = Array.from({ length: 1000 }, (_, i) => String(i * 997 % 1_000_000).padStart(6, '0')).filter((g) => !real.has(g));
    for (const guess of guesses.slice(0, LOGIN_FAILURES)) {
      const res = await exchange(guess);
      assert.equal(res.status, 401, res.text);
      assert.equal(assertErrorEnvelope(res).error, 'invalid_code');
    }
    // Over the address's failure limit even the right code waits: a right guess can't be told apart.
    const locked = await exchange(victim.code);
    assertRateLimited(locked, 'the right code while locked');
    assert.match(assertErrorEnvelope(locked).message, /wrong login codes for this address/);

    // The lock ends with its window; the victim's first code (guessed at, never voided) then logs in.
    const loggedIn = await eventually('the lock to end', (LOGIN_WINDOW_SECONDS + 5) * 1000, async () => {
      const res = await exchange(victim.code);
      if (res.status === 429) return undefined;
      return res;
    }, 500);
    assert.equal(loggedIn.status, 200, loggedIn.text);
    assert.equal(typeof (loggedIn.body as { token: string }).token, 'string');
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
