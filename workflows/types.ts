/** Inputs, results and query shapes of Payrail's workflows. The shared vocabulary they use lives in domain/. */
import type { OrderPaymentRef, OrderStatus } from '../domain/orders';
import type { ConfirmedPayin, DetectedPayin } from '../domain/payins';
import type { PaymentStatus } from '../domain/payment';

/**
 * A payment run knows which payment it is and when it expires: its first task needs no more (it starts the expiry
 * timer). Its terms are read from the database when a payin or the expiry first needs them: money never moves on input.
 */
export interface PaymentWorkflowInput {
  paymentId: string;
  /** ISO 8601, the payment's `expires_at`. */
  expiresAt: string;
}

/** A payin that reached the deposit address of a payment whose run has ended. */
export interface LatePayinWorkflowInput {
  paymentId: string;
  payin: DetectedPayin;
}

export type LatePayinOutcome = 'refunded' | 'dropped' | 'counted_by_payment' | 'held';

/** A merchant refund: the refund and its payment (for logs). Its terms are read from the database before it is signed. */
export interface RefundWorkflowInput {
  refundId: string;
  paymentId: string;
}

/** Where a payin stands in its payment's run. */
export type PayinProgress = 'detected' | 'confirming' | 'counted' | 'dropped' | 'refunding' | 'refunded' | 'refused' | 'held';

export interface PaymentState {
  status: PaymentStatus;
  payins: Array<(DetectedPayin | ConfirmedPayin) & { state: PayinProgress }>;
}

export interface ChainWatcherInput {
  chainId: number;
  pollIntervalMs: number;
  /** The largest block range one scan may cover (the provider's limit); scans shrink below it after failures. */
  maxBlocks: number;
  /** Scans per run before it continues as new (default 500). */
  scansPerRun?: number;
}

export interface OrderWorkflowInput {
  orderId: string;
  appId: string;
  merchantOrderId: string | null;
  /** Fixed by the merchant (`pay_currency`): the payment is created at once. Null: the customer chooses. */
  payCurrency: string | null;
  /** What the customer may choose from. */
  currencyOptions: string[];
  /** ISO 8601; the workflow turns it into a timer relative to its own clock. */
  expiresAt: string;
  /** The order has a `callback_url`. */
  callbacks: boolean;
  /** The order has an `email` for the receipt. */
  receipt: boolean;
}

export interface OrderState {
  status: OrderStatus;
  payment: OrderPaymentRef | null;
  paymentStatus: PaymentStatus | null;
}

/** What `createOrderPayment` hands the order workflow to start its child payment with. */
export interface CreatedOrderPayment {
  paymentId: string;
  /** ISO 8601, the payment's `expires_at`: with `paymentId`, the child's `PaymentWorkflowInput`. */
  expiresAt: string;
  searchAttributes: { merchantAppId: string; sourceChainId: string; orderId: string | null };
  /** What operators read in the Temporal UI; `payCurrency` is the currency the payment is in. */
  memo: Record<string, string>;
}

/** A rebalance's run (`rebalance-<id>`): the rebalance only; its terms are read from its row. */
export interface RebalanceWorkflowInput {
  rebalanceId: string;
}

/** A rebalance as stored: `amountUnits` of the token from the treasury on `fromChainId` to the one on `toChainId`. */
export interface RebalanceTerms {
  rebalanceId: string;
  tokenSymbol: string;
  fromChainId: number;
  toChainId: number;
  amountUnits: string;
  status: 'bridging' | 'completed' | 'failed';
}

export interface RebalancerInput {
  /** How often the rebalancer looks at the floats (at once on `checkFloats`). */
  intervalMs: number;
  /** Rounds per run before it continues as new (default 100). */
  roundsPerRun?: number;
}
