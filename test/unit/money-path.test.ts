import assert from 'node:assert/strict';
import { bumpedFees } from '../../chains/evm/transactions';
import { reconcileAccounts, stuckBridges, accountKey } from '../../domain/ledger';

describe('money path rules', () => {
  it('a replacement raises both EIP-1559 fees by more than the 10 % nodes require, or to what the network asks now', () => {
    assert.deepEqual(bumpedFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 50n, maxPriorityFeePerGas: 1n }), { maxFeePerGas: 121n, maxPriorityFeePerGas: 13n });
    assert.deepEqual(bumpedFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 5_000n, maxPriorityFeePerGas: 50n }), { maxFeePerGas: 5_000n, maxPriorityFeePerGas: 50n });
    // The fee cap never falls below the tip.
    assert.deepEqual(bumpedFees({ maxFeePerGas: 10n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 1n, maxPriorityFeePerGas: 900n }), { maxFeePerGas: 900n, maxPriorityFeePerGas: 900n });
  });

  it('reconcile: an account whose chain balance differs from its ledger balance shows the difference, a loss negative', () => {
    const treasury = { chainId: 8453, tokenAddress: '0xUSDC', address: '0xtreasury', accounts: ['treasury' as const], units: 1_000n };
    const deposit = { chainId: 8453, tokenAddress: '0xUSDC', address: '0xdeposit', accounts: ['deposit' as const, 'held' as const], units: 10n };
    const onChain = new Map([[accountKey(treasury), 990n], [accountKey(deposit), 10n]]);
    const [t, d] = reconcileAccounts([treasury, deposit], onChain);
    assert.deepEqual([t!.onChain, t!.difference], [990n, -10n], 'ten units gone from the treasury');
    assert.equal(d!.difference, 0n);
    assert.throws(() => reconcileAccounts([{ ...deposit, address: '0xother' }], onChain), /no chain balance read/);
  });

  it('a bridge transfer in transit longer than its protocol\'s normal time is stuck; one within it is not', () => {
    const burnt = (seconds: number) => ({ paymentId: `p${seconds}`, chainId: 42161, burnTxHash: '0xburn', burntAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0) - seconds * 1000), lateAfterMs: 120_000 });
    const now = new Date(Date.UTC(2026, 0, 1));
    assert.deepEqual(stuckBridges([burnt(60), burnt(121), burnt(120)], now).map((b) => b.paymentId), ['p121']);
  });
});
