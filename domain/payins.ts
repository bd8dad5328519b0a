/**
 * Payins: transfers into a deposit address. Their one identity everywhere (workflows, the `payins` table, intent
 * keys, workflow ids, tests) is (chainId, txHash, logIndex): the log that carries a token transfer, so two equal
 * transfers in one transaction (a multisend) are two payins. A native-coin transfer has no log; it is the
 * transaction's own value, with `NATIVE_LOG_INDEX`.
 */

export const NATIVE_LOG_INDEX = -1;

export interface PayinIdentity {
  chainId: number;
  txHash: string;
  logIndex: number;
}

/** A transfer into a deposit address, as the chain watcher saw it (possibly unconfirmed). */
export interface DetectedPayin extends PayinIdentity {
  blockNumber: number;
  tokenAddress: string;
  from: string;
  to: string;
  amountUnits: string;
  /**
   * Native coin (base units) the receiving account itself paid in the transaction, where a chain charges the
   * receiver (TON: storage and compute fees on receipt): booked as the network's, so the books follow the balance.
   */
  receiverFeeUnits?: string;
}

export interface ConfirmedPayin extends DetectedPayin {
  /** ISO 8601 time of the block that includes it. */
  confirmedAt: string;
}

export type PayinConfirmation = { outcome: 'confirmed'; payin: ConfirmedPayin } | { outcome: 'dropped' };

/** `chainId:txHash:logIndex`: the payin's key in maps, intent keys and logs. */
export const payinId = (p: PayinIdentity): string => `${p.chainId}:${p.txHash}:${p.logIndex}`;

export type PayinStatus = 'detected' | 'confirmed' | 'dropped';

/**
 * What became of a confirmed payin: it paid the payment, it goes back to its sender, it is dust held at the deposit
 * address (a refund would cost more gas than it returns), or it funds a merchant's refund of the completed payment
 * (services/refund-funding.ts).
 */
export type PayinDisposition = 'payment' | 'refund' | 'held' | 'funding';

/**
 * The facts of a payin a signal or a record may claim, checked against the chain's transfer at the same identity:
 * the first that differs (addresses and tokens compared as Payrail stores them, case-insensitively), or null when
 * the chain shows exactly the claimed transfer. Its block may differ (a re-mined transaction): the chain's counts.
 */
export function payinMismatch(claimed: DetectedPayin, onChain: DetectedPayin): string | null {
  const facts = ['tokenAddress', 'to', 'from', 'amountUnits'] as const;
  const differs = facts.find((fact) => claimed[fact].toLowerCase() !== onChain[fact].toLowerCase());
  return differs === undefined ? null : `${differs} is ${onChain[differs]} on chain, not ${claimed[differs]}`;
}
