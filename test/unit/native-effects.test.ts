import assert from 'node:assert/strict';
import type { LedgerEntry } from '../../domain/ledger';
import { nativeEffectEntries, type ControlledAccount } from '../../domain/native-effects';
import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';

const TREASURY = 'TTreasury';
const DEPOSIT = 'TDeposit';
const accounts: ControlledAccount[] = [
  { account: 'treasury', address: TREASURY, onChain: TREASURY },
  { account: 'deposit', address: DEPOSIT, onChain: DEPOSIT },
];
const base = { chainId: 728126428, paymentId: 'p1', accounts };

/** What the entries leave on each physical account (received less given). */
function balances(entries: LedgerEntry[]): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const e of entries) {
    if (e.debitAddress) out[e.debitAddress] = (out[e.debitAddress] ?? 0n) + BigInt(e.amountUnits);
    if (e.creditAddress) out[e.creditAddress] = (out[e.creditAddress] ?? 0n) - BigInt(e.amountUnits);
  }
  return out;
}

describe('native-coin entries of a mined transaction', () => {
  it('a Tron sweep: the treasury\'s top-up and its fee, the deposit\'s energy burnt, booked so each account moves as the chain shows', () => {
    const entries = nativeEffectEntries({
      ...base,
      intentKey: 'sweep:p1',
      booked: [],
      effects: {
        fees: [{ address: TREASURY, units: 1_100_000n }, { address: DEPOSIT, units: 6_500_000n }],
        changes: [{ address: TREASURY, deltaUnits: -7_000_000n }, { address: DEPOSIT, deltaUnits: 7_000_000n }],
      },
    });
    assert.deepEqual(
      entries.map((e) => [e.ref, e.kind, e.debit, e.credit, e.amountUnits]),
      [
        ['native-fee:sweep:p1:treasury', 'network', 'network', 'treasury', '1100000'],
        ['native-fee:sweep:p1:deposit', 'network', 'network', 'deposit', '6500000'],
        ['native-topup:sweep:p1', 'topup', 'deposit', 'treasury', '7000000'],
      ],
    );
    assert.deepEqual(balances(entries), { [TREASURY]: -8_100_000n, [DEPOSIT]: 500_000n });
    assert.ok(entries.every((e) => e.tokenAddress === NATIVE_TOKEN_ADDRESS && e.paymentId === 'p1'));
  });

  it('a native transfer booked by its intent is not booked twice: only its fee and what else moved (rent returned to the treasury)', () => {
    const principal: LedgerEntry = {
      ref: 'tx:recover:sweep:p1', chainId: 1, tokenAddress: NATIVE_TOKEN_ADDRESS, kind: 'sweep', debit: 'treasury', credit: 'deposit', debitAddress: TREASURY, creditAddress: DEPOSIT, amountUnits: '400000', paymentId: 'p1',
    };
    const entries = nativeEffectEntries({
      ...base,
      intentKey: 'recover:sweep:p1',
      booked: [principal],
      effects: {
        fees: [{ address: DEPOSIT, units: 5_000n }],
        changes: [{ address: DEPOSIT, deltaUnits: -400_000n }, { address: TREASURY, deltaUnits: 400_000n + 2_039_280n }],
      },
    });
    assert.deepEqual(
      entries.map((e) => [e.ref, e.debit, e.credit, e.amountUnits]),
      [
        ['native-fee:recover:sweep:p1:deposit', 'network', 'deposit', '5000'],
        ['native-net:recover:sweep:p1:treasury', 'treasury', 'network', '2039280'],
      ],
    );
  });

  it('gas sent along whose excess comes back later in the chain (TON): the deposit keeps what it kept, the rest is the network\'s', () => {
    const entries = nativeEffectEntries({
      ...base,
      intentKey: 'sweep:p2',
      booked: [],
      effects: {
        fees: [{ address: TREASURY, units: 3_000_000n }, { address: DEPOSIT, units: 2_000_000n }],
        changes: [
          { address: TREASURY, deltaUnits: -100_000_000n },
          { address: DEPOSIT, deltaUnits: 100_000_000n - 96_000_000n },
          { address: TREASURY, deltaUnits: 60_000_000n },
        ],
      },
    });
    assert.deepEqual(balances(entries), { [TREASURY]: -43_000_000n, [DEPOSIT]: 2_000_000n });
    assert.deepEqual(entries.map((e) => e.ref), ['native-fee:sweep:p2:treasury', 'native-fee:sweep:p2:deposit', 'native-topup:sweep:p2', 'native-net:sweep:p2:treasury']);
  });

  it('addresses of nobody of ours are left out; a transaction that touched none of ours books nothing', () => {
    const entries = nativeEffectEntries({
      ...base,
      intentKey: 'payout:p3',
      booked: [],
      effects: { fees: [{ address: 'Elsewhere', units: 10n }], changes: [{ address: 'Elsewhere', deltaUnits: -5n }, { address: 'Merchant', deltaUnits: 5n }] },
    });
    assert.deepEqual(entries, []);
  });
});
