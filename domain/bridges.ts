/**
 * A cross-chain transfer of the payment's token through a real bridge (Circle CCTP v2 for USDC, LayerZero OFT for
 * USDT), as the payment workflow keeps it: plain JSON, so the quote recorded in the run's history fixes every later
 * step (a retried start signs the same call; a crash resumes with the same transfer).
 */

export type BridgeKind = 'cctp' | 'oft';

/** Whose transfer it is: a payment's own funds (its bridging step), or a rebalance between treasuries. */
export type BridgeOwner = { paymentId: string } | { rebalanceId: string };

export interface BridgeQuote {
  kind: BridgeKind;
  sourceChainId: number;
  destinationChainId: number;
  tokenSymbol: string;
  /** Base units taken from the treasury on the source chain. */
  amountUnits: string;
  /** Who receives the tokens on the destination chain (Payrail's treasury there). */
  recipient: string;
  /** At most this many base units are deducted on the way (CCTP's maxFee; an OFT's own fee). */
  maxFeeUnits: string;
  /** Native coin (wei) the start transaction pays on the source chain (LayerZero's messaging fee). */
  nativeFeeWei: string;
  /** Rough time from the start transaction to the tokens on the destination. */
  expectedSeconds: number;
  /** Bridge-specific fields of the start call, fixed here (decimal strings and hex). */
  params: Record<string, string>;
}

/**
 * A transfer on its way longer than twice its protocol's expected time (the quote's, from the chains file) is late: it
 * waits for an operator to look (`AwaitingOperator=bridge_late`), an attestation or a delivery that never comes.
 */
export const bridgeLateAfterMs = (quote: Pick<BridgeQuote, 'expectedSeconds'>): number => quote.expectedSeconds * 2 * 1000;

/** One look at a started transfer on its way. */
export type BridgeArrival =
  | { state: 'pending'; detail: string }
  /** CCTP: Iris attested the burn; Payrail's mint (receiveMessage) on the destination completes it. */
  | { state: 'attested'; message: string; attestation: string }
  /** OFT: the LayerZero executor delivered it on the destination; nothing is left to do. */
  | { state: 'delivered'; txHash: string; receivedUnits: string };
