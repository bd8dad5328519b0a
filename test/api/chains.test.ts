import assert from 'node:assert/strict';
import { chainListSchema } from '../../api/schemas/chains';
import type { Stack } from '../../scripts/stack';
import { request } from '../support/http';
import { getStack } from '../support/stack';

describe('GET {payment_api_url}/chains', function () {
  this.timeout(120_000);
  let stack: Stack;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
  });

  it('lists every configured chain with its family and every token with decimals and minimum, without an API key', async () => {
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
        assert.equal(entry.minimumAmount, `0.${'0'.repeat(token.decimals - 1)}1`, 'one base unit when no minimum is configured');
      }
    }
    const arbitrum = list.data.find((c) => c.chainId === '42161')!;
    assert.deepEqual(
      arbitrum.tokens.filter((t) => t.native).map((t) => [t.symbol, t.address, t.decimals]),
      [['ETH', null, 18]],
    );
  });
});
