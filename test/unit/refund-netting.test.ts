import assert from 'node:assert/strict';
import { paidOutUnits } from '../../domain/payment';
import { owedForRefund, payoutDeduction } from '../../domain/refunds';

describe('what a refund costs the merchant, and what a payout keeps back', () => {
  const sameToken = { source_amount_units: '10000000', fee_units: '50000', destination_amount_units: '9950000' };

  it('a refund in the payout token owes its own amount; a whole refund owes the payout and the fee', () => {
    assert.equal(owedForRefund(sameToken, 4_000_000n), 4_000_000n);
    assert.equal(owedForRefund(sameToken, 10_000_000n), 10_000_000n);
  });

  it('a refund in another token owes its share of the payout before the fee, rounded up', () => {
    // 10 USDC on Stellar (7 decimals), fee 0.05: paid out 9.95 USDC on Base (6 decimals).
    const stellar = { source_amount_units: '100000000', fee_units: '500000', destination_amount_units: '9950000' };
    assert.equal(owedForRefund(stellar, 40_000_000n), 4_000_000n);
    assert.equal(owedForRefund(stellar, 1n), 1n, 'the smallest refund owes a unit, never nothing');
  });

  it('a payout keeps back what is owed, at most half of itself, and nothing when nothing is owed', () => {
    assert.equal(payoutDeduction(4_000_000n, 9_950_000n), 4_000_000n);
    assert.equal(payoutDeduction(9_000_000n, 9_950_000n), 4_975_000n);
    assert.equal(payoutDeduction(0n, 9_950_000n), 0n);
    assert.equal(payoutDeduction(-5n, 9_950_000n), 0n);
  });

  it('the payout sent is the payout less what it kept back', () => {
    const stored = { ...sameToken, amount_received_units: '10000000', underpayment_tolerance_bps: 0, accepted_as_paid_at: null };
    assert.equal(paidOutUnits({ ...stored, netted_units: null }), 9_950_000n);
    assert.equal(paidOutUnits({ ...stored, netted_units: '4000000' }), 5_950_000n);
    // Accepted short: 7.5 arrived, paid what arrived less the fee, less what it kept back.
    assert.equal(paidOutUnits({ ...stored, amount_received_units: '7500000', accepted_as_paid_at: new Date(), netted_units: '1000000' }), 6_450_000n);
  });
});
