/** Types shared by workflows, activities and the API. Amounts are base units as decimal strings (bigint-safe JSON). */

export const PAYMENT_STATUSES = [
  'payment_unpaid',
  'payment_started',
  'payment_payin_completed',
  'payment_bridging',
  'payment_payout_started',
  'payment_payout_completed',
  'payment_completed',
  'payment_expired',
  'payment_bounced',
  'payment_refunded',
] as const;

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export interface TokenRef {
  chainId: number;
  symbol: string;
  address: string;
  decimals: number;
}

export interface PaymentWorkflowInput {
  paymentId: string;
  appId: string;
  orderId: string | null;
  source: TokenRef & {
    amountUnits: string;
    feeUnits: string;
    depositAddress: string;
  };
  destination: TokenRef & { receiverAddress: string; amountUnits: string };
  /** ISO 8601; the workflow turns it into a timer relative to its own clock. */
  expiresAt: string;
  /** How long after expiry or completion late payins to the deposit address are still refunded. */
  latePayinWindowMs: number;
}

/** An ERC-20 transfer into a deposit address, as the chain watcher saw it (possibly unconfirmed). */
export interface DetectedPayin {
  chainId: number;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  tokenAddress: string;
  from: string;
  to: string;
  amountUnits: string;
}

export interface ConfirmedPayin extends DetectedPayin {
  /** ISO 8601 time of the block that includes it. */
  confirmedAt: string;
}

export type PayinConfirmation = { outcome: 'confirmed'; payin: ConfirmedPayin } | { outcome: 'dropped' };

export interface ChainTxResult {
  intentKey: string;
  txHash: string;
  blockNumber: number;
  succeeded: boolean;
  /** ISO 8601 time of the block that includes it. */
  confirmedAt: string;
}

export interface PaymentState {
  status: PaymentStatus;
  payins: Array<DetectedPayin & { state: 'detected' | 'confirmed' | 'dropped' | 'paid' | 'refunded' }>;
}

export interface ChainScanCursor {
  blockNumber: number;
  blockHash: string;
}

export interface ChainWatcherInput {
  chainId: number;
  pollIntervalMs: number;
  cursor: ChainScanCursor | null;
}

export interface ChainScanResult {
  cursor: ChainScanCursor;
  /** True when the scan reached the chain head, so the watcher may sleep. */
  caughtUp: boolean;
  /** Payins matched to the payment owning the deposit address. */
  payins: Array<DetectedPayin & { paymentId: string }>;
}

/** A read-model write for one lifecycle step; fields left out keep their stored values. */
export interface PaymentTransition {
  paymentId: string;
  status: PaymentStatus;
  payin?: { senderAddress: string; txHash: string; amountReceivedUnits: string; confirmedAt: string };
  payout?: { txHash: string; confirmedAt: string };
}

/** The chain transaction the payment workflow wants; the intent key makes its submission idempotent. */
export interface ChainTxIntent {
  intentKey: string;
  paymentId: string;
  chainId: number;
}
