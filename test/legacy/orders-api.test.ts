import assert from 'node:assert/strict';
import type { OrderRow } from '../../db/tables';
import { PAY_CURRENCY_CODES } from '../../domain/pay-currencies';
import type { Stack } from '../../tools/stack/stack';
import type { PageState } from '../../services/pay-page';
import { uniqueOrderId } from '../api/helpers';
import { request } from '../support/http';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { assertLegacyError, type OrderCreated } from './helpers';

/**
 * `POST /v1/orders` (spec 2.9, 4.3): every validation rule with its 400 body, authentication by the `token`
 * header, idempotency on `merchant_order_id`, and what a created order looks like.
 */

interface Rule {
  name: string;
  /** Fields merged into a valid body; `undefined` removes the field. */
  body: Record<string, unknown> | unknown[];
  error?: string;
  fields: string[];
}

const long = (n: number) => 'x'.repeat(n);

const RULES: Rule[] = [
  { name: 'price_amount missing', body: { price_amount: undefined }, fields: ['price_amount'] },
  { name: 'price_amount null', body: { price_amount: null }, fields: ['price_amount'] },
  { name: 'price_amount zero', body: { price_amount: 0 }, fields: ['price_amount'] },
  { name: 'price_amount negative', body: { price_amount: -5 }, fields: ['price_amount'] },
  { name: 'price_amount "0.00"', body: { price_amount: '0.00' }, fields: ['price_amount'] },
  { name: 'price_amount not a number', body: { price_amount: 'ten' }, fields: ['price_amount'] },
  { name: 'price_amount boolean', body: { price_amount: true }, fields: ['price_amount'] },
  { name: 'price_amount with 7 decimals', body: { price_amount: 1.0000001 }, fields: ['price_amount'] },
  { name: 'price_amount a float artefact', body: { price_amount: 0.1 + 0.2 }, fields: ['price_amount'] },
  { name: 'price_amount too large', body: { price_amount: 1e21 }, fields: ['price_amount'] },
  { name: 'price_amount exponent string', body: { price_amount: '1e3' }, fields: ['price_amount'] },
  { name: 'price_currency not a string', body: { price_currency: 840 }, fields: ['price_currency'] },
  { name: 'price_currency not a code', body: { price_currency: 'US Dollar' }, fields: ['price_currency'] },
  { name: 'price_currency without a rate (EUR)', body: { price_currency: 'EUR' }, error: 'unsupported_price_currency', fields: ['price_currency'] },
  { name: 'pay_currency not in 2.10', body: { pay_currency: 'BTC' }, fields: ['pay_currency'] },
  { name: 'pay_currency a number', body: { pay_currency: 1 }, fields: ['pay_currency'] },
  { name: 'title over 200 characters', body: { title: long(201) }, fields: ['title'] },
  { name: 'title not a string', body: { title: 7 }, fields: ['title'] },
  { name: 'title with a NUL', body: { title: 'a\u0000b' }, fields: ['title'] },
  { name: 'description over 800 characters', body: { description: long(801) }, fields: ['description'] },
  { name: 'email invalid', body: { email: 'not-an-address' }, fields: ['email'] },
  { name: 'callback_url not http(s)', body: { callback_url: 'ftp://shop.example/cb' }, fields: ['callback_url'] },
  { name: 'callback_url not a URL', body: { callback_url: 'shop.example/cb' }, fields: ['callback_url'] },
  { name: 'success_url javascript:', body: { success_url: 'javascript:alert(1)' }, fields: ['success_url'] },
  { name: 'cancel_url with credentials', body: { cancel_url: 'https://user:secret@shop.example/' }, fields: ['cancel_url'] },
  { name: 'merchant_order_id too long', body: { merchant_order_id: long(129) }, fields: ['merchant_order_id'] },
  { name: 'merchant_order_id with a control character', body: { merchant_order_id: 'a\nb' }, fields: ['merchant_order_id'] },
  { name: 'merchant_order_id fractional number', body: { merchant_order_id: 4.2 }, fields: ['merchant_order_id'] },
  { name: 'merchant_order_id negative number', body: { merchant_order_id: -1 }, fields: ['merchant_order_id'] },
  { name: 'merchant_order_id object', body: { merchant_order_id: { id: 1 } }, fields: ['merchant_order_id'] },
  { name: 'mobile not a boolean', body: { mobile: 'yes' }, fields: ['mobile'] },
  { name: 'fast not a boolean', body: { fast: 1 }, fields: ['fast'] },
  { name: 'merchant_token over 256 characters', body: { merchant_token: long(257) }, fields: ['merchant_token'] },
  { name: 'merchant_token not a string', body: { merchant_token: 12345 }, fields: ['merchant_token'] },
  { name: 'an unknown field', body: { order_id: 'A-1' }, fields: ['order_id'] },
  { name: 'two unknown fields', body: { amount: 1, currency: 'USD' }, fields: ['amount', 'currency'] },
  {
    name: 'several bad fields at once',
    body: { price_amount: -1, email: 'x', title: long(201), mobile: 'no' },
    fields: ['price_amount', 'email', 'title', 'mobile'],
  },
  { name: 'a JSON array body', body: [], fields: ['(body)'] },
];

describe('legacy orders API: POST /v1/orders and GET /v1/orders/:id', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let origin: string;
  let shop: TestMerchant;
  let key: string;
  let other: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    origin = stack.info.legacyApiUrl;
    shop = await newMerchant(stack, services.knex);
    key = shop.ordersKey;
    other = await newMerchant(stack, services.knex);
  });
  after(async () => services?.close());

  const valid = () => ({ price_amount: 12.5, title: 'Validation test', merchant_order_id: uniqueOrderId('legacy-valid') });
  const post = (body: unknown, headers: Record<string, string> = { token: key }) => request(`${origin}/v1/orders`, { headers, body });
  const orderCount = async () => Number((await services.knex('orders').where({ app_id: shop.appId }).count<Array<{ count: string }>>({ count: '*' }))[0]?.count ?? 0);

  describe('validation: each rule answers 400 naming the field, and creates nothing', () => {
    for (const rule of RULES) {
      it(rule.name, async () => {
        const before = await orderCount();
        const body = Array.isArray(rule.body) ? rule.body : { ...valid(), ...rule.body };
        const res = await post(body);
        assertLegacyError(res, 400, rule.error ?? 'invalid_request', rule.fields, rule.name);
        assert.equal(await orderCount(), before, 'no order row');
      });
    }

    it('a body that is not JSON, and a body that is not valid JSON, get the legacy shape too', async () => {
      const text = await request(`${origin}/v1/orders`, { headers: { token: key }, rawBody: 'price_amount=1', contentType: 'text/plain' });
      assertLegacyError(text, 415, 'unsupported_media_type');
      const broken = await request(`${origin}/v1/orders`, { headers: { token: key }, rawBody: '{"price_amount": 1,' });
      assertLegacyError(broken, 400, 'invalid_request');
    });

    it('a method the path does not take is a 405 in the legacy shape, with Allow', async () => {
      const wrong = await request(`${origin}/v1/orders`, { headers: { token: key }, method: 'PUT', body: valid() });
      assertLegacyError(wrong, 405, 'method_not_allowed');
      assert.equal(wrong.headers.get('allow'), 'POST');
    });

    it('accepts the boundaries: 200-character title, 800-character description, lower-case codes, a decimal string', async () => {
      const res = await post({
        ...valid(),
        // The smallest price with six decimals above the 1 USDC minimum payment.
        price_amount: '1.000001',
        price_currency: 'usd',
        pay_currency: 'usdc_base',
        title: long(200),
        description: long(800),
        email: 'buyer@example.com',
        mobile: true,
        fast: true,
        merchant_token: long(256),
      });
      assert.equal(res.status, 201, res.text);
      const { order } = res.body as OrderCreated;
      assert.equal(order.price_amount, '1.000001');
      assert.equal(order.price_currency, 'USD');
      assert.equal(order.pay_currency, 'USDC_BASE');
      assert.equal(order.title, long(200));
      assert.equal(order.mobile, true);
      assert.ok(!('merchant_token' in order), 'the merchant token is never returned');
    });

    it('null and "" mean "not given" for optional fields, and price_currency defaults to USD', async () => {
      const res = await post({ ...valid(), title: '', description: null, email: null, callback_url: '', price_currency: null });
      assert.equal(res.status, 201, res.text);
      const { order } = res.body as OrderCreated;
      assert.equal(order.title, null);
      assert.equal(order.price_currency, 'USD');
    });
  });

  describe('authentication: the token header', () => {
    it('missing token: 401 missing_api_key', async () => {
      assertLegacyError(await post(valid(), {}), 401, 'missing_api_key');
    });

    it('an unknown token: 401 invalid_api_key', async () => {
      assertLegacyError(await post(valid(), { token: 'pr_live_not-a-real-key' }), 401, 'invalid_api_key');
    });

    it('the key in X-API-Key instead of token: 401 missing_api_key', async () => {
      assertLegacyError(await post(valid(), { 'x-api-key': key }), 401, 'missing_api_key');
    });

    it('a revoked key: 401 invalid_api_key, at once', async () => {
      const merchant = await newMerchant(stack, services.knex);
      assert.equal((await post(valid(), { token: merchant.ordersKey })).status, 201);
      await services.knex('api_keys').where({ app_id: merchant.appId, scope: 'Orders' }).update({ revoked_at: services.knex.fn.now() });
      assertLegacyError(await post(valid(), { token: merchant.ordersKey }), 401, 'invalid_api_key');
    });

    it('an Admin key works too', async () => {
      assert.equal((await post(valid(), { token: shop.adminKey })).status, 201);
    });
  });

  describe('idempotency on merchant_order_id', () => {
    it('re-sending the same id returns the same order with 200 and status 200, unchanged', async () => {
      const body = { ...valid(), price_amount: 20 };
      const first = await post(body);
      assert.equal(first.status, 201, first.text);
      const created = first.body as OrderCreated;
      assert.equal(created.status, 201);
      const again = await post({ ...body, price_amount: 99, title: 'changed' });
      assert.equal(again.status, 200, again.text);
      const repeated = again.body as OrderCreated;
      assert.equal(repeated.status, 200);
      assert.equal(repeated.order.id, created.order.id);
      assert.equal(repeated.payment_url, created.payment_url);
      assert.equal(repeated.order.price_amount, '20');
      assert.equal(repeated.order.title, 'Validation test');
    });

    it('a number and the same digits as a string are the same merchant order', async () => {
      const id = Date.now() * 1000 + Math.floor(Math.random() * 1000);
      const first = (await post({ ...valid(), merchant_order_id: id })).body as OrderCreated;
      assert.equal(first.order.merchant_order_id, String(id));
      const second = await post({ ...valid(), merchant_order_id: String(id) });
      assert.equal(second.status, 200);
      assert.equal((second.body as OrderCreated).order.id, first.order.id);
    });

    it('concurrent creates of one merchant order make exactly one order and one workflow', async () => {
      const body = valid();
      const results = await Promise.all(Array.from({ length: 6 }, () => post(body)));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 201]);
      const ids = new Set(results.map((r) => (r.body as OrderCreated).order.id));
      assert.equal(ids.size, 1);
      const rows = await services.knex<OrderRow>('orders').where({ merchant_order_id: body.merchant_order_id });
      assert.equal(rows.length, 1);
      assert.ok(rows[0]!.workflow_started_at, 'its workflow was started');
    });

    it('another merchant may use the same merchant_order_id', async () => {
      const body = valid();
      const mine = (await post(body)).body as OrderCreated;
      const theirs = await post(body, { token: other.ordersKey });
      assert.equal(theirs.status, 201);
      assert.notEqual((theirs.body as OrderCreated).order.id, mine.order.id);
    });

    it('orders without merchant_order_id are never merged', async () => {
      const body = { price_amount: 3 };
      const a = (await post(body)).body as OrderCreated;
      const b = (await post(body)).body as OrderCreated;
      assert.notEqual(a.order.id, b.order.id);
    });
  });

  describe('created orders', () => {
    it('without pay_currency: status new, every currency of 2.10 this deployment can pay this merchant in on the hosted page', async () => {
      const res = await post(valid());
      assert.equal(res.status, 201);
      const created = res.body as OrderCreated;
      assert.deepEqual(Object.keys(created).sort(), ['order', 'payment_url', 'status']);
      assert.equal(created.order.status, 'new');
      assert.equal(created.order.pay_currency, null);
      assert.equal(created.order.pay_address, null);
      assert.equal(created.payment_url, `${stack.config.http.publicBaseUrl}/pay/order/${created.order.id}`);
      assert.equal(created.order.payment_url, created.payment_url);
      const expiresIn = Date.parse(created.order.expires_at) - Date.parse(created.order.created_at);
      assert.ok(Math.abs(expiresIn - 3_600_000) < 2_000, `expires 60 minutes after creation (${expiresIn} ms)`);
      const state = (await request(`${origin}/pay/order/${created.order.id}/state`)).body as PageState;
      // All sixteen, whatever family the merchant's payout wallet is on: the treasury of the payout chain pays from
      // its float; a coin priced at its feed (TON, ETH) is paid out in the merchant's stablecoin.
      assert.equal(PAY_CURRENCY_CODES.length, 16);
      assert.deepEqual(
        state.options.map((o) => o.code),
        PAY_CURRENCY_CODES,
      );
    });

    it('with a fixed stablecoin pay_currency: answers with the deposit address and the amount, 1:1 to USD', async () => {
      const res = await post({ ...valid(), price_amount: 12.5, pay_currency: 'USDC_ARB' });
      assert.equal(res.status, 201, res.text);
      const { order } = res.body as OrderCreated;
      assert.equal(order.status, 'pending');
      assert.equal(order.pay_currency, 'USDC_ARB');
      assert.equal(order.pay_amount, '12.5');
      assert.equal(order.pay_chain_id, '42161');
      assert.match(order.pay_address ?? '', /^0x[0-9a-fA-F]{40}$/);
      assert.equal(order.rate, '1');
      assert.equal(order.payment_status, 'payment_unpaid');
    });

    it('with a fixed ETH pay_currency: priced through the devnet ETH/USD feed (3000)', async () => {
      const res = await post({ ...valid(), price_amount: 30, pay_currency: 'ETH_BASE' });
      assert.equal(res.status, 201, res.text);
      const { order } = res.body as OrderCreated;
      assert.equal(order.pay_amount, '0.01');
      assert.equal(order.rate, '3000');
      assert.equal(order.pay_token_address, '0x0000000000000000000000000000000000000000');
    });

    it('a mainnet entry is served by its devnet stand-in (USDC_POL on the devnet "Base")', async () => {
      const { order } = (await post({ ...valid(), pay_currency: 'USDC_POL' })).body as OrderCreated;
      assert.equal(order.pay_chain_id, '8453');
      const page = (await request(`${origin}/pay/order/${order.id}/state`)).body as PageState;
      assert.equal(page.payment?.network, 'Polygon');
      assert.equal(page.payment?.chain_name, 'Base (devnet)');
      // CUSD (Celo) likewise, with the 18 decimals of the Celo Dollar.
      const cusd = (await post({ ...valid(), price_amount: 2.5, pay_currency: 'CUSD' })).body as OrderCreated;
      assert.equal(cusd.order.pay_chain_id, '8453');
      assert.equal(cusd.order.pay_amount, '2.5');
      const cusdPage = (await request(`${origin}/pay/order/${cusd.order.id}/state`)).body as PageState;
      assert.equal(cusdPage.payment?.units, (25n * 10n ** 17n).toString());
      assert.equal(cusdPage.payment?.network, 'Celo');
    });

    it('fast=true answers at once with the payment URL, without waiting for the payment', async () => {
      const res = await post({ ...valid(), pay_currency: 'USDT_ARB', fast: true });
      assert.equal(res.status, 201);
      const { order, payment_url } = res.body as OrderCreated;
      assert.equal(order.pay_address, null);
      assert.ok(payment_url.endsWith(`/pay/order/${order.id}`));
      // The workflow prepares the payment on its own.
      const page = await eventually('the payment of a fast order to be prepared', 15_000, async () => {
        const state = (await request<PageState>(`${origin}/pay/order/${order.id}/state`)).body;
        return state.payment ? state : undefined;
      });
      assert.equal(page.payment?.network, 'Arbitrum');
    });

    it('GET /v1/orders/:id: the order and its callback log for its own merchant only', async () => {
      const { order } = (await post(valid())).body as OrderCreated;
      const read = await request(`${origin}/v1/orders/${order.id}`, { headers: { token: key } });
      assert.equal(read.status, 200, read.text);
      const body = read.body as { status: number; order: { id: string }; callbacks: unknown[] };
      assert.equal(body.status, 200);
      assert.equal(body.order.id, order.id);
      assert.deepEqual(body.callbacks, []);
      assertLegacyError(await request(`${origin}/v1/orders/${order.id}`, { headers: { token: other.ordersKey } }), 404, 'not_found');
      assertLegacyError(await request(`${origin}/v1/orders/not-a-uuid`, { headers: { token: key } }), 400, 'invalid_request', ['id']);
      assertLegacyError(await request(`${origin}/v1/orders/${order.id}`), 401, 'missing_api_key');
    });
  });
});
