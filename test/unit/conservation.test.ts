import assert from 'node:assert/strict';
import { addConservation, conservationOf, type LedgerFlow } from '../../domain/conservation';
import type { LedgerAccount, LedgerKind } from '../../domain/ledger';

const USDC = '0xusdc';
const flow = (chainId: number, kind: LedgerKind, debit: LedgerAccount, credit: LedgerAccount, units: bigint): LedgerFlow => ({ chainId, tokenAddress: USDC, kind, debit, credit, units });

describe('the conservation identity: payins = payouts + fees + refunds + held + in flight + float moved', () => {
  // USDC, 6 decimals. The operator funds the treasury with 100; a payment of 10 is paid, swept and paid out (9.95,
  // fee 0.05); a late payin of 2 goes back; a dust payin of 0.001 is held at its deposit.
  const sameChain = [
    flow(1, 'funding', 'treasury', 'operator', 100_000_000n),
    flow(1, 'payin', 'deposit', 'external', 12_001_000n),
    flow(1, 'sweep', 'treasury', 'deposit', 10_000_000n),
    flow(1, 'payout', 'merchant', 'treasury', 9_950_000n),
    flow(1, 'fee', 'fees', 'merchant', 50_000n),
    flow(1, 'refund', 'external', 'deposit', 2_000_000n),
    flow(1, 'held', 'held', 'deposit', 1_000n),
  ];

  it('holds when the deposits and the treasury hold on chain what came in and did not leave', () => {
    const terms = conservationOf(sameChain, { atDeposits: 1_000n, treasury: 100_050_000n });
    assert.deepEqual(terms, { payins: 12_001_000n, payouts: 9_950_000n, fees: 50_000n, refunds: 2_000_000n, held: 1_000n, inFlight: 0n, floatMoved: 0n, difference: 0n });
  });

  it('fails by what the treasury lost (a theft), and by what a deposit lost', () => {
    assert.equal(conservationOf(sameChain, { atDeposits: 1_000n, treasury: 98_800_000n }).difference, -1_250_000n);
    assert.equal(conservationOf(sameChain, { atDeposits: 0n, treasury: 100_050_000n }).difference, -1_000n);
  });

  it('across chains: a payin swept on one chain and paid out from the float of another add up, float moved net of the two', () => {
    const source = [flow(2, 'funding', 'treasury', 'operator', 50_000_000n), flow(2, 'payin', 'deposit', 'external', 10_000_000n), flow(2, 'sweep', 'treasury', 'deposit', 10_000_000n), flow(2, 'fee', 'fees', 'merchant', 50_000n)];
    const destination = [flow(1, 'funding', 'treasury', 'operator', 50_000_000n), flow(1, 'payout', 'merchant', 'treasury', 9_950_000n)];
    const a = conservationOf(source, { atDeposits: 0n, treasury: 60_000_000n });
    const b = conservationOf(destination, { atDeposits: 0n, treasury: 40_050_000n });
    assert.deepEqual([a.floatMoved, a.difference, b.floatMoved, b.difference], [9_950_000n, 0n, -9_950_000n, 0n]);
    const total = addConservation([{ terms: a, decimals: 6 }, { terms: b, decimals: 6 }], 6);
    assert.deepEqual([total.payins, total.payouts, total.fees, total.floatMoved, total.difference], [10_000_000n, 9_950_000n, 50_000n, 0n, 0n]);
  });

  it('a bridge transfer in transit and its fee count as float moved; chains of fewer decimals are scaled up', () => {
    // 10 paid on chain 2 (7 decimals), burnt into the bridge; chain 1 (6 decimals) received 9.99, the bridge kept 0.01.
    const source = [flow(2, 'payin', 'deposit', 'external', 100_000_000n), flow(2, 'sweep', 'treasury', 'deposit', 100_000_000n), flow(2, 'bridge', 'bridge', 'treasury', 100_000_000n)];
    const destination = [flow(1, 'bridge', 'treasury', 'bridge', 9_990_000n), flow(1, 'network', 'network', 'bridge', 10_000n)];
    const a = conservationOf(source, { atDeposits: 0n, treasury: 0n });
    const b = conservationOf(destination, { atDeposits: 0n, treasury: 9_990_000n });
    assert.deepEqual([a.difference, b.difference], [0n, 0n]);
    const total = addConservation([{ terms: a, decimals: 7 }, { terms: b, decimals: 6 }], 7);
    assert.deepEqual([total.payins, total.floatMoved, total.difference], [100_000_000n, 100_000_000n, 0n]);
  });
});
