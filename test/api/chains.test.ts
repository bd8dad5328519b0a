import assert from 'node:assert/strict';
import { chainListSchema } from '../../api/schemas/chains';
import { formatUnits, parseUnits } from '../../domain/money';
import { tokenPricing } from '../../domain/payment-plan';
import { pricingPolicy } from '../../lib/config';
import type { Stack } from '../../tools/stack/stack';
import { request } from '../support/http';
import { getStack } from '../support/stack';

describe('GET {payment_api_url}/chains', function () {
  this.timeout(120_000);
  let stack: Stack;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
  });

  it('lists every configured chain with its family and every token with decimals and the pricing policy minimum, without an API key', async () => {
    const res = await request(`${stack.info.paymentApiUrl}/chains`);
    assert.equal(res.status, 200, res.text);
    const list = chainListSchema.parse(res.body);
    assert.deepEqual(
      list.data.map((c) => c.chainId),
      stack.info.chains.map((c) => String(c.chainId)),
    );
    for (const devnetChain of stack.info.chains) {
      const listed = list.data.find((c) => c.chainId === String(devnetChain.chainId))!;
      assert.equal(listed.family, devnetChain.family);
      for (const [symbol, token] of Object.entries(devnetChain.tokens)) {
        const entry = listed.tokens.find((t) => t.symbol === symbol);
        assert.ok(entry, `${symbol} on ${devnetChain.name}`);
        assert.equal(entry.address, token.address);
        assert.equal(entry.decimals, token.decimals);
        assert.equal(entry.native, false);
        // The pricing policy's minimum (PAYMENT_MINIMUMS); one base unit for a token it names no minimum for.
        const minimum = tokenPricing(pricingPolicy(stack.config), { chainId: devnetChain.chainId, symbol, decimals: token.decimals }).minimumUnits;
        assert.equal(entry.minimumAmount, formatUnits(minimum > 0n ? minimum : 1n, token.decimals), `${symbol} minimum`);
      }
    }
    const arbitrum = list.data.find((c) => c.chainId === '42161')!;
    const usdc = arbitrum.tokens.find((t) => t.symbol === 'USDC')!;
    assert.equal(parseUnits(usdc.minimumAmount, usdc.decimals), 1_000_000n, 'the default PAYMENT_MINIMUMS: 1 USDC');
    assert.deepEqual(
      arbitrum.tokens.filter((t) => t.native).map((t) => [t.symbol, t.address, t.decimals]),
      [['ETH', null, 18]],
    );
  });
});
