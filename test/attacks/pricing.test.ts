import assert from 'node:assert/strict';
import type { PaymentResource } from '../../api/serializers/payment';
import { parseUnits } from '../../domain/money';
import type { Stack } from '../../tools/stack/stack';
import { assertErrorEnvelope, countPayments } from '../api/helpers';
import { paymentBody } from '../support/api';
import { request } from '../support/http';
import { connectServices, startExtraApi, type ExtraApi, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';

/**
 * Opening 3 (issue 8): a dust payment (0.000001 USDC) whose fee rounds to 0 while the treasury pays the sweep,
 * forwarder, bridge and payout gas. Payments have a minimum per chain and token, and the fee is never less than a
 * fixed fee per chain and token.
 */
describe('attack: dust payments paid for by the treasury', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let priced: ExtraApi;
  let merchant: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex, { keylessPayments: true });
    priced = await startExtraApi(stack, services, {
      pricing: {
        fixedFees: [{ chainId: null, symbol: 'USDC', amount: '0.1' }, { chainId: 8453, symbol: 'USDC', amount: '0.05' }],
        minimums: [{ chainId: null, symbol: 'USDC', amount: '1' }, { chainId: 8453, symbol: 'USDC', amount: '2' }],
      },
    });
  });
  after(async () => {
    await priced?.close();
    await services?.close();
  });

  it('a 0.000001 USDC create is refused with 400 naming the minimum, and creates nothing', async () => {
    const before = await countPayments(services.knex, { app_id: merchant.appId });
    for (const [label, res] of [
      ['keyed', await request(stack.info.paymentApiUrl, { headers: { 'x-api-key': merchant.ordersKey }, body: paymentBody({ amount: '0.000001' }) })],
      ['keyless', await request(`${stack.info.paymentApiUrl}/payments`, { body: { ...paymentBody({ amount: '0.000001' }), appId: merchant.appId } })],
    ] as const) {
      assert.equal(res.status, 400, `${label}: ${res.text}`);
      const error = assertErrorEnvelope(res, label);
      assert.equal(error.error, 'invalid_request');
      assert.equal(error.details?.[0]?.path, 'source.amount');
      assert.match(error.details?.[0]?.message ?? '', /at least 1 USDC on chain 42161/);
    }
    assert.equal(await countPayments(services.knex, { app_id: merchant.appId }), before);
  });

  it('a legacy order priced below the minimum is refused with 400 naming the minimum', async () => {
    const res = await request(`${stack.info.legacyApiUrl}/v1/orders`, {
      headers: { token: merchant.ordersKey },
      body: { price_amount: '0.000001', price_currency: 'USD', pay_currency: 'USDC_BASE' },
    });
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /at least 1 USDC on chain 8453/);
  });

  it('the fee is max(basis points, the fixed fee of the chain and token); the minimum follows the chain', async () => {
    const create = async (chainId: string, amount: string) => {
      const res = await request(priced.paymentApiUrl, { headers: { 'x-api-key': merchant.ordersKey }, body: paymentBody({ chainId, amount }) });
      assert.equal(res.status, 201, res.text);
      return res.body as PaymentResource;
    };
    const fee = (p: PaymentResource) => p.source.fee;
    // 2 USDC at 0.5 % is 0.01: the fixed 0.1 applies. 100 USDC at 0.5 % is 0.5: above the fixed fee.
    assert.equal(fee(await create('42161', '2')), '0.1');
    assert.equal(fee(await create('42161', '100')), '0.5');
    // On chain 8453 its own rules win: a fixed fee of 0.05 and a minimum of 2.
    const base = await create('8453', '2');
    assert.equal(fee(base), '0.05');
    assert.equal(parseUnits(base.destination.amount, 6) + parseUnits(base.source.fee, 6), parseUnits('2', 6), 'payout + fee = amount');
    const below = await request(priced.paymentApiUrl, { headers: { 'x-api-key': merchant.ordersKey }, body: paymentBody({ chainId: '8453', amount: '1.5' }) });
    assert.equal(below.status, 400, below.text);
    assert.match(assertErrorEnvelope(below).details?.[0]?.message ?? '', /at least 2 USDC on chain 8453/);
  });
});
