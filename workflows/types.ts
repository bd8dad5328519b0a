/** Inputs, results and query shapes of Payrail's workflows. The shared vocabulary they use lives in domain/. */
import type { OrderPaymentRef, OrderStatus } from '../domain/orders';
import type { ConfirmedPayin, DetectedPayin } from '../domain/payins';
import type { PaymentStatus } from '../domain/payment';

/** A payment run knows which payment it is and when it expires; its terms are read from the database (money never moves on input). */
export interface PaymentWorkflowInput {
  paymentId: string;
  /**
   * Given by every start since lean runs (docs/workflow-versioning.md), with the payment's expiry from its row: a
   * lean run's first task only starts its expiry timer, it reads its terms when a payin or the expiry first needs
   * them, and it has every payment patch without recording a marker. Runs started without it (before lean runs, and
   * a legacy order's payment) read their terms first and ask `patched()`.
   */
  lean?: {
    expiresAt: string;
    /**
     * Given by every start since delayed starts (docs/workflow-versioning.md): the run may have been started with a
     * start delay that ends at its expiry, so its first task may come at the expiry (or sooner, with a payin's
     * signal-with-start). It counts the time left from that task, and starts no timer once none is left. Lean runs
     * started before it timed their expiry from the run's start.
     */
    timedFromFirstTask?: true;
    /**
     * Given by every start since local chain waits (docs/workflow-versioning.md): the run waits for its payins and
     * transactions inside its own workflow task (a local activity) and hands a wait that outlasts
     * `localChainWaitOptions` to a chain-waits activity task. Runs started before it wait in activity tasks only.
     */
    localWaits?: true;
    /**
     * Given by every start since combined steps (docs/workflow-versioning.md): the run records the read-model
     * writes between two of its other steps in one local activity (`recordPaymentProgress`: a payin with the status
     * it brings, the counted payins with payment_payout_started, a final status with the deposit address's watch),
     * and reserves and signs its payout in one (`payOutFromTreasury`). Runs started before it call each alone.
     */
    combinedSteps?: true;
  };
}

/** A payin that reached the deposit address of a payment whose run has ended. */
export interface LatePayinWorkflowInput {
  paymentId: string;
  payin: DetectedPayin;
}

export type LatePayinOutcome = 'refunded' | 'dropped' | 'counted_by_payment' | 'held';

/** Where a payin stands in its payment's run (the legacy run said `confirmed` and `paid`). */
export type PayinProgress = 'detected' | 'confirming' | 'confirmed' | 'counted' | 'paid' | 'dropped' | 'refunding' | 'refunded' | 'refused' | 'held';

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
  searchAttributes: { merchantAppId: string; sourceChainId: string; orderId: string | null };
  /** What operators read in the Temporal UI; `payCurrency` is the currency the payment is in. */
  memo: Record<string, string>;
}
