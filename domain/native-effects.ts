/**
 * The native coin (ETH, SOL, TON, TRX, XLM) in the ledger: what one of Payrail's transactions did to it, as the chain
 * shows it, booked on the accounts Payrail controls. Fees, gas and rent are paid to the network; what the treasury
 * sends a deposit along with a transfer is a top-up; what comes back is a sweep.
 */
import type { LedgerAccount, LedgerEntry } from './ledger';
import { NATIVE_TOKEN_ADDRESS } from './payment';

/**
 * The native coin one transaction moved, in base units, addresses in the form the chain's adapter names its treasury
 * and deposits: `fees` burnt (paid to the network: gas, energy, bandwidth, signature and forwarding fees), and
 * `changes`, every other change of an address's balance (positive: received). Only addresses the transaction touched.
 */
export interface NativeEffects {
  fees: Array<{ address: string; units: bigint }>;
  changes: Array<{ address: string; deltaUnits: bigint }>;
}

/** An account of ours the transaction may touch: `address` as the ledger names it, `onChain` where its coin is (Stellar's deposits: the receiving account). */
export interface ControlledAccount {
  account: Extract<LedgerAccount, 'treasury' | 'deposit'>;
  address: string;
  onChain: string;
}

const same = (a: string | null, b: string): boolean => a !== null && a.toLowerCase() === b.toLowerCase();

/**
 * The native-coin entries of one mined transaction (`intentKey`), on the accounts of ours it touched, given what its
 * intent booked already (`booked`: the principal of a native transfer, e.g. a TRX recovery or a native sweep). Per
 * account: the fees it paid go to the network; what the chain shows it gained or lost beyond the booked principal is,
 * between the treasury and the deposit, a top-up (treasury → deposit) or a return (deposit → treasury), and otherwise
 * the network's (gas sent along and not returned, rent paid; rent returned, an excess back). Each entry's ref names
 * the transaction's intent, so booking it again changes nothing.
 */
export function nativeEffectEntries(input: {
  intentKey: string;
  chainId: number;
  paymentId: string | null;
  effects: NativeEffects;
  accounts: ControlledAccount[];
  booked: LedgerEntry[];
}): LedgerEntry[] {
  const { intentKey, accounts, effects } = input;
  const book = { chainId: input.chainId, tokenAddress: NATIVE_TOKEN_ADDRESS, paymentId: input.paymentId };
  const entries: LedgerEntry[] = [];
  const residual = new Map<ControlledAccount, bigint>();
  for (const a of accounts) {
    const fee = effects.fees.filter((f) => same(f.address, a.onChain)).reduce((sum, f) => sum + f.units, 0n);
    if (fee > 0n) entries.push({ ...book, ref: `native-fee:${intentKey}:${a.account}`, kind: 'network', debit: 'network', credit: a.account, debitAddress: null, creditAddress: a.address, amountUnits: fee.toString() });
    const onChain = effects.changes.filter((c) => same(c.address, a.onChain)).reduce((sum, c) => sum + c.deltaUnits, 0n);
    const principal = input.booked
      .filter((e) => e.tokenAddress.toLowerCase() === NATIVE_TOKEN_ADDRESS)
      .reduce((sum, e) => sum + (same(e.debitAddress, a.address) ? BigInt(e.amountUnits) : 0n) - (same(e.creditAddress, a.address) ? BigInt(e.amountUnits) : 0n), 0n);
    residual.set(a, onChain - principal);
  }
  const treasury = accounts.find((a) => a.account === 'treasury');
  const deposit = accounts.find((a) => a.account === 'deposit');
  if (treasury && deposit) {
    const t = residual.get(treasury)!;
    const d = residual.get(deposit)!;
    const [from, to, kind, name] = t < 0n && d > 0n ? [treasury, deposit, 'topup', 'topup'] as const : [deposit, treasury, 'sweep', 'return'] as const;
    const moved = [-residual.get(from)!, residual.get(to)!].reduce((a, b) => (a < b ? a : b));
    if (moved > 0n) {
      entries.push({ ...book, ref: `native-${name}:${intentKey}`, kind, debit: to.account, credit: from.account, debitAddress: to.address, creditAddress: from.address, amountUnits: moved.toString() });
      residual.set(from, residual.get(from)! + moved);
      residual.set(to, residual.get(to)! - moved);
    }
  }
  for (const [a, units] of residual) {
    if (units === 0n) continue;
    const gained = units > 0n;
    entries.push({
      ...book, ref: `native-net:${intentKey}:${a.account}`, kind: 'network', debit: gained ? a.account : 'network', credit: gained ? 'network' : a.account,
      debitAddress: gained ? a.address : null, creditAddress: gained ? null : a.address, amountUnits: (gained ? units : -units).toString(),
    });
  }
  return entries;
}
