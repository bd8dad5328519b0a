import assert from 'node:assert/strict';
import { floatPosition } from '../../domain/float';
import { rebalancePlan, readTreasuryFloats } from '../../services/treasury-float';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

describe('treasury floats on the dev stack (services/treasury-float.ts)', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
  });
  after(async () => services?.close());

  it('reads every family’s treasury float from its chain, above the default high mark: nothing to rebalance', async () => {
    const floats = await readTreasuryFloats(services);
    const chainIds = [8453, 42161, ...(['solana', 'tron', 'ton', 'stellar'] as const).map((family) => stackChain(stack.info, family).chainId)];
    for (const chainId of chainIds) {
      const usd = floats.filter((f) => f.chainId === chainId && ['USDC', 'USDT'].includes(f.symbol));
      assert.ok(usd.length > 0, `a stablecoin float on chain ${chainId}`);
      for (const f of usd) {
        assert.equal(f.highUnits, 100_000n * 10n ** BigInt(f.decimals), 'the default high mark');
        assert.equal(floatPosition(f), 'surplus', `chain ${chainId} ${f.symbol}: the dev treasuries start with a million`);
      }
    }
    assert.deepEqual(rebalancePlan(services.chains, floats), []);
  });
});
