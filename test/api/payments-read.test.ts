import assert from 'node:assert/strict';
import { getAddress, isAddress } from 'ethers';
import type { PaymentResource } from '../../api/serializers/payment';
import { parseUnits } from '../../domain/money';
import type { Stack } from '../../tools/stack/stack';
import { evmChain } from '../support/chain';
import { request } from '../support/http';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { assertErrorEnvelope, uniqueOrderId } from './helpers';

/** FEE_BPS of the test stack (test/support/stack.ts). */
const FEE_BPS = 50n;
const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Spec 2.1–2.4: the full schema of a read; every field is always present. */
const PAYMENT_KEYS = [
  'appId',
  'createdAt',
  'destination',
  'display',
  'expiresAt',
  'id',
  'keyless',
  'merchant',
  'metadata',
  'orderId',
  'paymentLink',
  'source',
  'status',
  'type',
  'updatedAt',
  'webhookSecretSource',
  'webhookUrl',
];
const DISPLAY_KEYS = ['currency', 'description', 'name', 'title'];
const SOURCE_KEYS = ['amount', 'amountReceived', 'chainId', 'confirmedAt', 'fee', 'receiverAddress', 'senderAddress', 'tokenAddress', 'tokenSymbol', 'txHash'];
const DESTINATION_KEYS = ['amount', 'chainId', 'confirmedAt', 'receiverAddress', 'receiverMemo', 'tokenAddress', 'tokenSymbol', 'txHash'];

const keysOf = (o: unknown) => Object.keys(o as object).sort();

describe('payment service: reading payments', function () {
  this.timeout(60_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    merchant = await newMerchant(stack, services.knex);
    other = await newMerchant(stack, services.knex, { webhookUrl: 'https://merchant.example/webhooks/payrail', name: 'Other Test Merchant' });
  });
  after(async () => services?.close());

  const tokenAddress = (chainId: number, symbol: 'USDC' | 'USDT') => {
    return getAddress(evmChain(stack.info, chainId).tokens[symbol].address);
  };

  async function create(key: string, body: unknown): Promise<PaymentResource> {
    const res = await request(api, { headers: { 'x-api-key': key }, body });
    assert.equal(res.status, 201, res.text);
    return res.body as PaymentResource;
  }

  /** Read with the owning app's key: every field (without one, the merchant's fields are null; test/attacks). */
  async function readById(id: string, key: string): Promise<PaymentResource> {
    const res = await request(`${api}/payments/${id}`, { headers: { 'x-api-key': key } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.contentType ?? '', /^application\/json\b/);
    return res.body as PaymentResource;
  }

  async function readByOrder(key: string, appId: string, orderId: string) {
    return request(`${api}/payments/order/${encodeURIComponent(appId)}/${encodeURIComponent(orderId)}`, { headers: { 'x-api-key': key } });
  }

  /** Exact key sets; every value of the expected type; unknown fields null, never missing. */
  function assertSchema(p: PaymentResource): void {
    assert.deepEqual(keysOf(p), PAYMENT_KEYS);
    assert.deepEqual(keysOf(p.display), DISPLAY_KEYS);
    assert.deepEqual(keysOf(p.source), SOURCE_KEYS);
    assert.deepEqual(keysOf(p.destination), DESTINATION_KEYS);
    if (p.merchant !== null) assert.deepEqual(keysOf(p.merchant), ['appId', 'name']);

    assert.match(p.id, UUID);
    assert.match(p.appId, /^(merchant|wallet)_[a-z0-9][a-z0-9-]*$/);
    assert.ok(p.orderId === null || typeof p.orderId === 'string');
    assert.equal(p.type, 'exactIn');
    for (const t of [p.createdAt, p.updatedAt, p.expiresAt]) {
      assert.match(t, ISO_UTC);
      assert.equal(new Date(t).toISOString(), t);
    }
    assert.ok(Date.parse(p.updatedAt) >= Date.parse(p.createdAt));
    assert.ok(Date.parse(p.expiresAt) > Date.parse(p.createdAt));

    assert.equal(typeof p.source.chainId, 'string');
    assert.match(p.source.chainId, /^[1-9][0-9]*$/);
    assert.equal(typeof p.destination.chainId, 'string');
    assert.match(p.destination.chainId, /^[1-9][0-9]*$/);
    for (const amount of [p.source.amount, p.source.fee, p.destination.amount]) {
      assert.equal(typeof amount, 'string', 'amounts are decimal strings');
      assert.match(amount, DECIMAL);
    }
    for (const address of [p.source.tokenAddress, p.source.receiverAddress, p.destination.receiverAddress, p.destination.tokenAddress]) {
      assert.ok(address && isAddress(address), `address ${address}`);
      assert.equal(address, getAddress(address), 'addresses are checksummed');
    }
    assert.equal(typeof p.paymentLink, 'string');
    assert.equal(p.paymentLink, `${stack.publicBaseUrl}/pay/${p.id}`);
    assert.equal(p.merchant?.appId, p.appId);
    assert.equal(typeof p.merchant?.name, 'string');
    assert.equal(typeof p.keyless, 'boolean');
  }

  /** fee = floor(amount × 50 / 10000); payout = amount − fee (both USDC, 6 decimals). */
  function assertFee(p: PaymentResource, decimals = 6): void {
    const amount = parseUnits(p.source.amount, decimals);
    const fee = parseUnits(p.source.fee, decimals);
    const payout = parseUnits(p.destination.amount, decimals);
    assert.equal(fee, (amount * FEE_BPS) / 10_000n, `fee of ${p.source.amount}`);
    assert.equal(fee + payout, amount, `fee ${p.source.fee} + payout ${p.destination.amount} = amount ${p.source.amount}`);
  }

  it('GET /payments/:id returns the full schema with every field; unknown ones are null', async () => {
    const orderId = uniqueOrderId('read-full');
    const metadata = { cart: 'c-1', items: [{ sku: 'A', qty: 2 }], nested: { gift: true, note: null } };
    const created = await create(merchant.ordersKey, {
      type: 'exactIn',
      orderId,
      display: { title: 'Blue mug', name: 'Blue mug (large)', description: 'Two mugs', currency: 'EUR' },
      source: { chainId: '42161', tokenSymbol: 'usdc', amount: '12.345678' },
      metadata,
    });
    const p = await readById(created.id, merchant.ordersKey);
    assertSchema(p);
    assert.deepEqual(p, created, 'the create response is the read');
    assert.equal(p.keyless, false);

    assert.equal(p.appId, merchant.appId);
    assert.equal(p.orderId, orderId);
    assert.equal(p.status, 'payment_unpaid');
    const ttlMs = Date.parse(p.expiresAt) - Date.parse(p.createdAt);
    assert.ok(Math.abs(ttlMs - stack.config.paymentTtlSeconds * 1000) < 2000, `expiresAt is createdAt + TTL (${ttlMs} ms)`);
    assert.deepEqual(p.display, { title: 'Blue mug', name: 'Blue mug (large)', description: 'Two mugs', currency: 'EUR' });

    assert.equal(p.source.chainId, '42161');
    assert.equal(p.source.tokenSymbol, 'USDC', 'the symbol is normalised');
    assert.equal(p.source.tokenAddress, tokenAddress(42161, 'USDC'));
    assert.equal(p.source.amount, '12.345678');
    assert.equal(p.source.fee, '0.061728'); // 12.345678 × 0.5 % = 0.06172839, rounded down
    assert.equal(p.source.receiverAddress, getAddress(services.chains.depositAddressFor(42161, p.id)));
    assert.equal(p.source.senderAddress, null);
    assert.equal(p.source.txHash, null);
    assert.equal(p.source.amountReceived, null);
    assert.equal(p.source.confirmedAt, null);

    assert.equal(p.destination.chainId, '8453');
    assert.equal(p.destination.receiverAddress, getAddress(merchant.payout.address));
    assert.equal(p.destination.receiverMemo, null);
    assert.equal(p.destination.tokenSymbol, 'USDC');
    assert.equal(p.destination.tokenAddress, tokenAddress(8453, 'USDC'));
    assert.equal(p.destination.amount, '12.28395');
    assert.equal(p.destination.txHash, null);
    assert.equal(p.destination.confirmedAt, null);
    assertFee(p);

    assert.deepEqual(p.metadata, metadata);
    assert.equal(p.webhookUrl, null);
    assert.equal(p.webhookSecretSource, null);
    assert.deepEqual(p.merchant, { appId: merchant.appId, name: merchant.name });
  });

  it('a minimal create (name only, no orderId, no metadata) still reads with every field, nulls included', async () => {
    const created = await create(merchant.ordersKey, { display: { name: 'Minimal' }, source: { chainId: '8453', tokenSymbol: 'USDT', amount: '5' } });
    const p = await readById(created.id, merchant.ordersKey);
    assertSchema(p);
    assert.equal(p.type, 'exactIn', 'type defaults to exactIn');
    assert.equal(p.orderId, null);
    assert.equal(p.metadata, null);
    assert.deepEqual(p.display, { title: 'Minimal', name: 'Minimal', description: null, currency: null });
    assert.equal(p.source.tokenSymbol, 'USDT');
    assert.equal(p.source.tokenAddress, tokenAddress(8453, 'USDT'));
    assert.equal(p.destination.tokenSymbol, 'USDC', 'paid out in the merchant wallet token');
    assert.equal(p.source.fee, '0.025');
    assert.equal(p.destination.amount, '4.975');
    assertFee(p);
  });

  it('source.fee and destination.amount follow FEE_BPS=50 for many amounts, on both chains', async () => {
    // At or above the minimum payment (1 USDC by default; below it: test/attacks/pricing.test.ts).
    const amounts = ['10', '1', '1.000001', '1.000199', '1.0002', '1234.5678', '999.999999', '10.500000', '1000000'];
    for (const chainId of ['42161', '8453']) {
      const created = await Promise.all(
        amounts.map((amount) => create(merchant.ordersKey, { display: { title: `fee ${amount}` }, source: { chainId, tokenSymbol: 'USDC', amount } })),
      );
      for (const [i, c] of created.entries()) {
        const p = await readById(c.id, merchant.ordersKey);
        assertSchema(p);
        assertFee(p);
        assert.equal(parseUnits(p.source.amount, 6), parseUnits(amounts[i]!, 6), 'the amount read is the amount sent');
        assert.equal(p.source.chainId, chainId);
      }
    }
  });

  it('the webhook fields come from the merchant app', async () => {
    const p = await readById((await create(other.ordersKey, { display: { name: 'Hooked' }, source: { chainId: '42161', tokenSymbol: 'USDC', amount: '2' } })).id, other.ordersKey);
    assertSchema(p);
    assert.equal(p.webhookUrl, 'https://merchant.example/webhooks/payrail');
    assert.equal(p.webhookSecretSource, 'merchant_app');
    assert.deepEqual(p.merchant, { appId: other.appId, name: 'Other Test Merchant' });
  });

  it('GET /payments/order/:appId/:orderId works with an Orders key and with an Admin key', async () => {
    const orderId = uniqueOrderId('read-by-order');
    const created = await create(merchant.adminKey, { orderId, display: { name: 'By order' }, source: { chainId: '42161', tokenSymbol: 'USDC', amount: '3.5' } });
    const byId = await readById(created.id, merchant.ordersKey);
    for (const key of [merchant.ordersKey, merchant.adminKey]) {
      const res = await readByOrder(key, merchant.appId, orderId);
      assert.equal(res.status, 200, res.text);
      assert.match(res.contentType ?? '', /^application\/json\b/);
      const p = res.body as PaymentResource;
      assertSchema(p);
      assert.deepEqual(p, byId);
      assert.equal(p.status, 'payment_unpaid');
    }
  });

  it("another app's key gets 404 for the order, also when it has an order with the same id", async () => {
    const orderId = uniqueOrderId('read-isolation');
    const mine = await create(merchant.ordersKey, { orderId, display: { name: 'Mine' }, source: { chainId: '42161', tokenSymbol: 'USDC', amount: '1' } });

    for (const key of [other.ordersKey, other.adminKey]) {
      // Asking for the first app's order by its appId…
      const res = await readByOrder(key, merchant.appId, orderId);
      assert.equal(res.status, 404, res.text);
      assert.equal(assertErrorEnvelope(res).error, 'not_found');
      assert.ok(!res.text.includes(mine.id), 'the 404 leaks nothing about the payment');
      // …or under its own appId, where the order does not exist.
      const own = await readByOrder(key, other.appId, orderId);
      assert.equal(own.status, 404, own.text);
      assert.equal(assertErrorEnvelope(own).error, 'not_found');
    }

    // Once the other app creates the same orderId, each key sees its own payment only.
    const theirs = await create(other.ordersKey, { orderId, display: { name: 'Theirs' }, source: { chainId: '42161', tokenSymbol: 'USDC', amount: '2' } });
    assert.notEqual(theirs.id, mine.id);
    const a = await readByOrder(merchant.ordersKey, merchant.appId, orderId);
    const b = await readByOrder(other.ordersKey, other.appId, orderId);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.equal((a.body as PaymentResource).id, mine.id);
    assert.equal((b.body as PaymentResource).id, theirs.id);
    const cross = await readByOrder(merchant.ordersKey, other.appId, orderId);
    assert.equal(cross.status, 404, cross.text);
  });

  it('order ids with URL-special characters round trip through GET by order', async () => {
    for (const special of ['a/b', '100%', 'q+1', 'a?b#c', 'x..y', '~!@$&*()=:;,', '"quoted"']) {
      const orderId = `${uniqueOrderId('url')}-${special}`;
      const created = await create(merchant.ordersKey, { orderId, display: { name: 'Special' }, source: { chainId: '42161', tokenSymbol: 'USDC', amount: '1' } });
      assert.equal(created.orderId, orderId);
      const res = await readByOrder(merchant.ordersKey, merchant.appId, orderId);
      assert.equal(res.status, 200, `${orderId}: ${res.text}`);
      assert.equal((res.body as PaymentResource).id, created.id);
      assert.equal((res.body as PaymentResource).orderId, orderId);
    }
  });
});
