/**
 * Chain transactions Payrail signs (sweeps, payouts, refunds, bridge steps). Each is an intent with a key that
 * names what it is for; the key makes its submission idempotent: one intent, one signed transaction, ever.
 */

export interface ChainTxIntent {
  intentKey: string;
  /** The payment it belongs to (null for treasury housekeeping). */
  paymentId: string | null;
  chainId: number;
}

/** How deep the transaction must be before the wait ends. */
export type ChainDepth = 'confirmations' | 'finality';

export interface ChainTxResult {
  intentKey: string;
  txHash: string;
  blockNumber: number;
  succeeded: boolean;
  /** ISO 8601 time of the block that includes it. */
  confirmedAt: string;
}

/** Intent keys: what a transaction is for, per payment or per payin. */
export const intentKeys = {
  sweep: (paymentId: string) => `sweep:${paymentId}`,
  payout: (paymentId: string) => `payout:${paymentId}`,
  /** The bridge's allowance to pull the token from the source treasury (when it pulls it). */
  bridgeApprove: (paymentId: string) => `bridge-approve:${paymentId}`,
  /** The bridge's start on the source chain: a CCTP burn or an OFT send. */
  bridgeBurn: (paymentId: string) => `bridge-burn:${paymentId}`,
  /** The CCTP mint on the destination chain (an OFT is delivered by LayerZero's executor). */
  bridgeMint: (paymentId: string) => `bridge-mint:${paymentId}`,
  /** A payin (or the excess of one) going back to its sender; `payinKey` is `payinId(payin)`. */
  refund: (payinKey: string) => `refund:${payinKey}`,
};
