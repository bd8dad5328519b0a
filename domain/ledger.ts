/**
 * The ledger's vocabulary. Every movement is one entry of one asset (a chain and a token, or the chain's native coin)
 * between two accounts: money leaves `credit` and reaches `debit`. Accounts are physical (addresses Payrail controls:
 * a deposit, the treasury; an entry names the address) or logical (counterparties: customers, the merchant, the
 * operator, the network, a bridge in transit, Payrail's fees). Every movement is booked where it physically happens,
 * so what the ledger says a physical account holds of an asset is what the chain must show it holds.
 */

/**
 * Physical: `deposit` (a payment's deposit address), `held` (dust held there), `quarantine` (assets nobody configured
 * that reached it), `treasury` (the chain's hot wallet). Logical: `external` (customers, strangers), `merchant`,
 * `operator` (funding), `network` (fees, gas, rent burnt), `bridge` (in transit between chains), `fees` (Payrail's),
 * `receivable` (what apps owe for the refunds they made, until their payouts settle it).
 */
export type LedgerAccount = 'external' | 'deposit' | 'held' | 'quarantine' | 'treasury' | 'bridge' | 'merchant' | 'fees' | 'operator' | 'network' | 'receivable';

/** The accounts that are addresses on chain: their balance per address and asset is compared with the chain. */
export const PHYSICAL_ACCOUNTS: readonly LedgerAccount[] = ['deposit', 'held', 'quarantine', 'treasury'];

/** Kinds as issue 41's statement reads them (payin, fee, payout, refund, held), and the movements around them. */
export const LEDGER_KINDS = ['payin', 'sweep', 'bridge', 'payout', 'fee', 'refund', 'held', 'quarantined', 'funding', 'network', 'topup', 'netting'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export interface LedgerEntry {
  /** What the movement is, recorded once (`payin:<payinId>`, `tx:<intentKey>`, `fee:<paymentId>`, `held:<payinId>`, `funding:…`). */
  ref: string;
  chainId: number;
  tokenAddress: string;
  kind: LedgerKind;
  debit: LedgerAccount;
  credit: LedgerAccount;
  /** The address of a physical debit account (null for a logical one). */
  debitAddress: string | null;
  /** The address of a physical credit account (null for a logical one). */
  creditAddress: string | null;
  amountUnits: string;
  paymentId: string | null;
}

/** What one address holds of one asset, by the ledger. */
export interface AccountBalance {
  chainId: number;
  tokenAddress: string;
  address: string;
  /** The physical account kinds the address's entries use (a deposit's `deposit`, `held`, `quarantine`). */
  accounts: LedgerAccount[];
  units: bigint;
}

/** One physical account and asset compared with the chain: what it holds there less what the ledger says (negative: a loss). */
export interface AccountReconciliation extends AccountBalance {
  onChain: bigint;
  difference: bigint;
}

/** Compares each account's ledger balance with the chain's (`onChain`, keyed by `accountKey`). */
export function reconcileAccounts(ledger: AccountBalance[], onChain: ReadonlyMap<string, bigint>): AccountReconciliation[] {
  return ledger.map((account) => {
    const chain = onChain.get(accountKey(account));
    if (chain === undefined) throw new Error(`no chain balance read for ${accountKey(account)}`);
    return { ...account, onChain: chain, difference: chain - account.units };
  });
}

export const accountKey = (a: { chainId: number; tokenAddress: string; address: string }): string => `${a.chainId}:${a.tokenAddress.toLowerCase()}:${a.address}`;

/** A bridge transfer started (burnt or sent) on its source chain and not yet booked as arrived on its destination. */
export interface BridgeInTransit {
  paymentId: string;
  chainId: number;
  burnTxHash: string;
  burntAt: Date;
  /** The protocol's normal time for the transfer (`bridgeLateAfterMs` of its quote). */
  lateAfterMs: number;
}

/** Transfers in transit longer than their protocol's normal time: stuck, for an operator. */
export const stuckBridges = <T extends BridgeInTransit>(inTransit: T[], now: Date): T[] =>
  inTransit.filter((b) => now.getTime() - b.burntAt.getTime() > b.lateAfterMs);
