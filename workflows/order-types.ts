/** Types of the legacy order workflow, shared with its activities and the API. */
import type { PaymentStatus, PaymentWorkflowInput } from './types';

export const ORDER_STATUSES = ['new', 'pending', 'confirming', 'paid', 'expired', 'canceled', 'invalid', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Statuses the merchant is told about by a callback (docs/legacy-orders.md). */
export const CALLBACK_STATUSES: readonly OrderStatus[] = ['paid', 'expired', 'canceled', 'invalid', 'refunded'];

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

/** The order's payment, once one was created. */
export interface OrderPaymentRef {
  paymentId: string;
  payCurrency: string;
}

export interface OrderState {
  status: OrderStatus;
  payment: OrderPaymentRef | null;
  paymentStatus: PaymentStatus | null;
}

/** Sent to the order by the payment's read-model writer on every payment transition. */
export interface PaymentUpdate {
  paymentId: string;
  status: PaymentStatus;
}

/** What `createOrderPayment` hands the order workflow to start its child payment with. */
export interface CreatedOrderPayment {
  paymentId: string;
  input: PaymentWorkflowInput;
  searchAttributes: { merchantAppId: string; sourceChainId: string; orderId: string | null };
  memo: Record<string, string>;
}
