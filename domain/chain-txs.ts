/**
 * Chain transactions Payrail signs (sweeps, payouts, refunds, bridge steps). Each is an intent with a key that
 * names what it is for; the key makes its submission idempotent: one intent, one signed transaction, ever.
 */

/**
 * What Payrail signs on a chain, in the family's own terms: each adapter turns it into one transaction. A sweep moves
 * a payment's funds out of its deposit address; a transfer pays from the treasury (payouts, refunds). Bridges sign
 * contract calls of their own (`BridgeEndpoint.prepareCall`).
 */
export type ChainAction =
  | { kind: 'sweep'; paymentId: string; tokenAddress: string; to: string; amountUnits: string }
  | { kind: 'transfer'; tokenAddress: string; to: string; amountUnits: string };

/** The bridge steps the outbox signs from the treasury, named as their intent keys begin. */
export type BridgeStep = 'bridge-approve' | 'bridge-burn' | 'bridge-mint';

/** What a signing activity is asked to move; `recipient` is null for a sweep into the treasury. */
export interface TransferRequest {
  intentKey: string;
  paymentId: string | null;
  chainId: number;
  /** Null for a call that moves no token of ours by itself (a bridge approval). */
  tokenAddress: string | null;
  recipient: string | null;
  amountUnits: string | null;
  /** The kind of call: out of the deposit address, out of the treasury, or a bridge step from the treasury. */
  from: 'deposit' | 'treasury' | BridgeStep;
}

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

/** Intent keys: what a transaction is for, per payment, per payin or per rebalance. */
export const intentKeys = {
  sweep: (paymentId: string) => `sweep:${paymentId}`,
  payout: (paymentId: string) => `payout:${paymentId}`,
  /** The bridge's allowance to pull the token from the source treasury (when it pulls it). */
  bridgeApprove: (paymentId: string) => `bridge-approve:${paymentId}`,
  /** The bridge's start on the source chain: a CCTP burn or an OFT send. */
  bridgeBurn: (paymentId: string) => `bridge-burn:${paymentId}`,
  /** The CCTP mint on the destination chain (an OFT is delivered by LayerZero's executor). */
  bridgeMint: (paymentId: string) => `bridge-mint:${paymentId}`,
  /** A rebalance's bridge allowance, start (burn or send) and mint, from treasury to treasury: keyed by the rebalance, no payment. */
  rebalanceApprove: (rebalanceId: string) => `rebalance-approve:${rebalanceId}`,
  rebalanceBurn: (rebalanceId: string) => `rebalance-burn:${rebalanceId}`,
  rebalanceMint: (rebalanceId: string) => `rebalance-mint:${rebalanceId}`,
  /** A payin (or the excess of one) going back to its sender; `payinKey` is `payinId(payin)`. */
  refund: (payinKey: string) => `refund:${payinKey}`,
  /** A merchant's refund of a completed payment, from the source chain's treasury; `refundId` is the refund's id. */
  merchantRefund: (refundId: string) => `merchant-refund:${refundId}`,
  /** A merchant's refund past its refund credit, from the payment's deposit address where the merchant funded it. */
  fundedRefund: (refundId: string) => `funded-refund:${refundId}`,
  /** The native coin a transfer out of a deposit left there of what the treasury sent along, back to the treasury. */
  recover: (transferIntentKey: string) => `recover:${transferIntentKey}`,
};

/** The node's refusal of an intent's transaction when a check of its wait sent it again. */
export interface TxRefusal {
  reason: string;
  txHash: string;
  /**
   * The transaction carries a bound past which it can no longer land (a Solana blockhash, a Tron or TON expiration):
   * the outbox then prepares it against the chain as it is and signs it again.
   */
  expires: boolean;
}

/**
 * A wait's judge of the node's refusals, fed every check's (undefined when the node took the transaction or was not
 * asked): true once they last, that is `limit` checks in a row refused the same transaction and it is one that
 * never expires, or one signed again after its predecessor was refused. A refused transaction that expires waits
 * for that: what the node refuses may be the chain moving under it (a payin landing in a deposit whose sweep closes
 * its token account), which the transaction prepared again takes into account.
 */
export function lastingRefusals(limit: number): (refusal: TxRefusal | undefined) => boolean {
  let refusedHash: string | undefined;
  let inARow = 0;
  let signedAgain = false;
  return (refusal) => {
    if (!refusal) {
      refusedHash = undefined;
      inARow = 0;
      signedAgain = false;
      return false;
    }
    if (refusal.txHash !== refusedHash) {
      signedAgain = refusedHash !== undefined;
      refusedHash = refusal.txHash;
      inARow = 0;
    }
    inARow += 1;
    return inARow >= limit && (!refusal.expires || signedAgain);
  };
}
