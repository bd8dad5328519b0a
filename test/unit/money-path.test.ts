import assert from 'node:assert/strict';
import { bumpedFees } from '../../chains/evm/transactions';
import { conservation } from '../../domain/ledger';

describe('money path rules', () => {
  it('a replacement raises both EIP-1559 fees by more than the 10 % nodes require, or to what the network asks now', () => {
    assert.deepEqual(bumpedFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 50n, maxPriorityFeePerGas: 1n }), { maxFeePerGas: 121n, maxPriorityFeePerGas: 13n });
    assert.deepEqual(bumpedFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 5_000n, maxPriorityFeePerGas: 50n }), { maxFeePerGas: 5_000n, maxPriorityFeePerGas: 50n });
    // The fee cap never falls below the tip.
    assert.deepEqual(bumpedFees({ maxFeePerGas: 10n, maxPriorityFeePerGas: 10n }, { maxFeePerGas: 1n, maxPriorityFeePerGas: 900n }), { maxFeePerGas: 900n, maxPriorityFeePerGas: 900n });
  });

  it('conservation: payins = payouts + fees + refunds + held + in flight, and a missing entry shows as a difference', () => {
    const balanced = conservation({ payin: 1_000n, payout: 900n, fee: 50n, refund: 40n }, { deposit: 0n, held: 10n, treasury: 0n });
    assert.equal(balanced.difference, 0n);
    assert.equal(balanced.inFlight, 0n);
    const inFlight = conservation({ payin: 1_000n, sweep: 1_000n }, { treasury: 1_000n });
    assert.deepEqual([inFlight.inFlight, inFlight.difference], [1_000n, 0n]);
    assert.equal(conservation({ payin: 1_000n, payout: 995n, fee: 5n, refund: 1n }, {}).difference, -1n, 'a refund with no payin behind it');
  });
});
