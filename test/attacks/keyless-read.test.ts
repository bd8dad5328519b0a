import assert from 'node:assert/strict';
import type { PaymentResource } from '../../api/serializers/payment';
import type { Stack } from '../../tools/stack/stack';
import { request } from '../support/http';
import { connectServices, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';

const MERCHANT_FIELDS = ['metadata', 'webhookUrl', 'webhookSecretSource', 'merchant'] as const;

/**
 * Opening 8 (issue 8): the payment id is the customer-facing link, and `GET /payments/{id}` without a key gave anyone
 * holding it the merchant's metadata (customer e-mails), its private webhook URL and payout details.
 */
describe('attack: reading a payment through its public link', function () {
  this.timeout(60_000);
  let stack: Stack;
  let services: StackServices;
  let shop: TestMerchant;
  let stranger: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    shop = await newMerchant(stack, services.knex, { webhookUrl: 'https://shop.example/private-hooks?token=s3cr3t', name: 'Private Shop' });
    stranger = await newMerchant(stack, services.knex);
  });
  after(async () => services?.close());

  it('without the owning app key the merchant fields are null (every field still present); with it, everything', async () => {
    const api = stack.info.paymentApiUrl;
    const created = await request(api, {
      headers: { 'x-api-key': shop.ordersKey },
      body: { display: { name: 'Private order' }, source: { chainId: '42161', tokenSymbol: 'USDC', amount: '5' }, metadata: { customerEmail: 'buyer@example.com' } },
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.body as PaymentResource).id;
    const read = async (headers: Record<string, string> = {}) => {
      const res = await request(`${api}/payments/${id}`, { headers });
      assert.equal(res.status, 200, res.text);
      return res;
    };

    const owner = (await read({ 'x-api-key': shop.ordersKey })).body as PaymentResource;
    assert.deepEqual(owner.metadata, { customerEmail: 'buyer@example.com' });
    assert.equal(owner.webhookUrl, 'https://shop.example/private-hooks?token=s3cr3t');
    assert.equal(owner.webhookSecretSource, 'merchant_app');
    assert.deepEqual(owner.merchant, { appId: shop.appId, name: 'Private Shop' });

    for (const [label, headers] of [
      ['no key', {}],
      ["another app's key", { 'x-api-key': stranger.adminKey }],
    ] as const) {
      const res = await read(headers);
      const p = res.body as PaymentResource;
      assert.deepEqual(Object.keys(p).sort(), Object.keys(owner).sort(), `${label}: the schema keeps every field`);
      for (const field of MERCHANT_FIELDS) assert.equal(p[field], null, `${label}: ${field} is null`);
      for (const secret of ['buyer@example.com', 's3cr3t', 'private-hooks', 'Private Shop']) assert.ok(!res.text.includes(secret), `${label}: ${secret} does not leak`);
      // What the customer needs to pay is all there.
      assert.deepEqual(p.source, owner.source);
      assert.equal(p.status, owner.status);
      assert.equal(p.paymentLink, owner.paymentLink);
    }

    // A wrong key is an authentication failure, never a quiet downgrade.
    const wrong = await request(`${api}/payments/${id}`, { headers: { 'x-api-key': 'pr_live_wrong' } });
    assert.equal(wrong.status, 401, wrong.text);
  });
});
