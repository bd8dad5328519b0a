/**
 * The conservation ledger's vocabulary. Every movement of a token is one entry between two accounts of one book
 * (a chain and a token): money leaves `credit` and reaches `debit`. An account's balance is what it received less
 * what it gave, so the balances of a book always sum to zero, and what customers paid in is accounted for:
 * `payins = payouts + fees + refunds + held + in flight`.
 */

/** `external`: customers' wallets; `deposit`/`held`: at deposit addresses; `treasury`/`bridge`: on its way to the merchant. */
export type LedgerAccount = 'external' | 'deposit' | 'held' | 'quarantine' | 'treasury' | 'bridge' | 'merchant' | 'fees';

export type LedgerKind = 'payin' | 'sweep' | 'bridge' | 'payout' | 'fee' | 'refund' | 'held' | 'quarantined';

export interface LedgerEntry {
  /** What the movement is, recorded once (`payin:<payinId>`, `tx:<intentKey>`, `fee:<paymentId>`, `held:<payinId>`). */
  ref: string;
  chainId: number;
  tokenAddress: string;
  kind: LedgerKind;
  debit: LedgerAccount;
  credit: LedgerAccount;
  amountUnits: string;
  paymentId: string | null;
}

/** One book's figures, from the sums of its entries by kind and its accounts' balances. */
export interface Conservation {
  payins: bigint;
  payouts: bigint;
  fees: bigint;
  refunds: bigint;
  held: bigint;
  quarantined: bigint;
  /** At deposit addresses (not held), in the treasury or in a bridge, for payouts not yet made. */
  inFlight: bigint;
  /** Left side less right side: zero unless an entry is missing or wrong. */
  difference: bigint;
}

export function conservation(byKind: Partial<Record<LedgerKind, bigint>>, balances: Partial<Record<LedgerAccount, bigint>>): Conservation {
  const k = (kind: LedgerKind) => byKind[kind] ?? 0n;
  const b = (account: LedgerAccount) => balances[account] ?? 0n;
  const inFlight = b('deposit') + b('treasury') + b('bridge');
  const figures = { payins: k('payin'), payouts: k('payout'), fees: k('fee'), refunds: k('refund'), held: b('held'), quarantined: b('quarantine'), inFlight };
  return { ...figures, difference: figures.payins - (figures.payouts + figures.fees + figures.refunds + figures.held + figures.inFlight) };
}
