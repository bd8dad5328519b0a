/**
 * The books' conservation identity, per asset: payins = payouts + fees + refunds + held + in flight + float moved.
 * Payins, payouts, fees, refunds and held are the ledger's flows; in flight and float moved are read on chain: what
 * the deposit addresses hold beyond the dust held there, and what the treasury holds less what operators put in, plus
 * what it paid the network and sent into bridges (net), less the fees it keeps. Within the double-entry ledger the
 * identity always holds, so the two terms read on chain are what can break it: it holds exactly when every unit the
 * ledger says came in is where the chain shows it (the sum of reconcile's per-account differences is its difference).
 */
import type { LedgerAccount, LedgerKind } from './ledger';

/** The ledger's entries of one asset summed by kind and accounts. */
export interface LedgerFlow {
  chainId: number;
  tokenAddress: string;
  kind: LedgerKind;
  debit: LedgerAccount;
  credit: LedgerAccount;
  units: bigint;
}

export interface ConservationTerms {
  payins: bigint;
  payouts: bigint;
  fees: bigint;
  refunds: bigint;
  held: bigint;
  inFlight: bigint;
  floatMoved: bigint;
  /** The right side less the left (negative: units came in that are nowhere); 0 when the identity holds. */
  difference: bigint;
}

/** An account's net receipts in the flows: what it was debited less what it was credited. */
const netOf = (flows: LedgerFlow[], account: LedgerAccount): bigint =>
  flows.reduce((sum, f) => sum + (f.debit === account ? f.units : 0n) - (f.credit === account ? f.units : 0n), 0n);

/** The identity of one asset from its flows and what its deposit addresses and treasury hold on chain. */
export function conservationOf(flows: LedgerFlow[], onChain: { atDeposits: bigint; treasury: bigint }): ConservationTerms {
  const sumOf = (pick: (f: LedgerFlow) => boolean) => flows.filter(pick).reduce((sum, f) => sum + f.units, 0n);
  const payins = sumOf((f) => f.credit === 'external');
  const refunds = sumOf((f) => f.debit === 'external');
  const payouts = sumOf((f) => f.kind === 'payout');
  const fees = sumOf((f) => f.kind === 'fee');
  const held = netOf(flows, 'held');
  const inFlight = onChain.atDeposits - held;
  const floatMoved = onChain.treasury + netOf(flows, 'operator') + netOf(flows, 'network') + netOf(flows, 'bridge') - fees;
  return { payins, payouts, fees, refunds, held, inFlight, floatMoved, difference: payouts + fees + refunds + held + inFlight + floatMoved - payins };
}

/** Identities of one token on several chains added up, each scaled from its decimals to `decimals`. */
export function addConservation(terms: Array<{ terms: ConservationTerms; decimals: number }>, decimals: number): ConservationTerms {
  const total: ConservationTerms = { payins: 0n, payouts: 0n, fees: 0n, refunds: 0n, held: 0n, inFlight: 0n, floatMoved: 0n, difference: 0n };
  for (const { terms: t, decimals: from } of terms) {
    const scale = 10n ** BigInt(decimals - from);
    for (const key of Object.keys(total) as Array<keyof ConservationTerms>) total[key] += t[key] * scale;
  }
  return total;
}
