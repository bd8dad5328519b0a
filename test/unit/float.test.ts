import assert from 'node:assert/strict';
import { floatPosition, planRebalances, type TreasuryFloat } from '../../domain/float';

const M = 10n ** 6n;
const treasury = (chainId: number, symbol: string, float: bigint, low = 1_000n, high = 100_000n): TreasuryFloat => ({
  chainId,
  symbol,
  floatUnits: float * M,
  lowUnits: low * M,
  highUnits: high * M,
});
/** CCTP connects the EVM chains (42161, 8453) for USDC and OFT for USDT; nothing reaches Solana (501) or Tron (195). */
const evmBridges = (_symbol: string, from: number, to: number) => [42161, 8453].includes(from) && [42161, 8453].includes(to) && from !== to;

describe('treasury float marks and the rebalance plan (domain/float.ts)', () => {
  it('places a float below its low mark as short, above its high mark as surplus, and between as within', () => {
    assert.deepEqual([treasury(1, 'USDC', 999n), treasury(1, 'USDC', 1_000n), treasury(1, 'USDC', 100_000n), treasury(1, 'USDC', 100_001n)].map(floatPosition), [
      'short',
      'within',
      'within',
      'surplus',
    ]);
  });

  it('refills a short treasury up to its high mark by bridge from the one with most above its own high mark, never below that mark', () => {
    const plan = planRebalances([treasury(8453, 'USDC', 200n), treasury(42161, 'USDC', 150_000n)], evmBridges);
    assert.deepEqual(plan, [{ symbol: 'USDC', toChainId: 8453, fromChainId: 42161, amountUnits: 50_000n * M, route: 'bridge' }]);
    const full = planRebalances([treasury(8453, 'USDC', 200n), treasury(42161, 'USDC', 500_000n)], evmBridges);
    assert.equal(full[0]!.amountUnits, (100_000n - 200n) * M, 'the difference to the high mark');
  });

  it('one giver’s surplus is not promised twice', () => {
    const plan = planRebalances([treasury(8453, 'USDT', 0n), treasury(10, 'USDT', 0n), treasury(42161, 'USDT', 130_000n)], (_s, from, to) => from === 42161 && [8453, 10].includes(to));
    assert.deepEqual(
      plan.map((r) => [r.toChainId, r.fromChainId, r.amountUnits / M, r.route]),
      [
        [10, 42161, 30_000n, 'bridge'],
        [8453, null, 100_000n, 'operator'],
      ],
    );
  });

  it('raises an operator need where no bridge reaches the short treasury (Tron, TON, Stellar, Solana), naming who can give', () => {
    const plan = planRebalances([treasury(195, 'USDT', 10n), treasury(42161, 'USDT', 900_000n), treasury(501, 'USDC', 5_000n)], evmBridges);
    assert.deepEqual(plan, [{ symbol: 'USDT', toChainId: 195, fromChainId: 42161, amountUnits: (100_000n - 10n) * M, route: 'operator' }]);
  });

  it('plans nothing while every float is within its marks', () => {
    assert.deepEqual(planRebalances([treasury(8453, 'USDC', 50_000n), treasury(42161, 'USDC', 1_000n)], evmBridges), []);
  });
});
