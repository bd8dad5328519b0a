/** Legacy orders (docs/legacy-orders.md): statuses, the stored record, and how an order follows its payment. */
import type { PaymentStatus } from './payment';
import { PAID_STATUSES } from './payment';

export const ORDER_STATUSES = ['new', 'pending', 'confirming', 'paid', 'expired', 'canceled', 'invalid', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Statuses the merchant is told about by a callback. */
export const CALLBACK_STATUSES: readonly OrderStatus[] = ['paid', 'expired', 'canceled', 'invalid', 'refunded'];

/** The stored order (the `orders` row). */
export interface OrderRecord {
  id: string;
  app_id: string;
  merchant_order_id: string | null;
  status: OrderStatus;
  /** The sequence of the last status write applied (writes carry the order run's sequence). */
  status_sequence: number;
  /** numeric(24,6) as node-postgres returns it, e.g. "12.500000". */
  price_amount: string;
  price_currency: string;
  pay_currency: string | null;
  currency_options: string[];
  selected_currency: string | null;
  payment_id: string | null;
  rate: string | null;
  rate_source: string | null;
  title: string | null;
  description: string | null;
  email: string | null;
  callback_url: string | null;
  cancel_url: string | null;
  success_url: string | null;
  mobile: boolean;
  fast: boolean;
  /** The merchant's `merchant_token`, sealed at rest (lib/secrets); opened only to send a callback. */
  merchant_token_sealed: string | null;
  expires_at: Date;
  paid_at: Date | null;
  receipt_sent_at: Date | null;
  created_at: Date;
  updated_at: Date;
  workflow_started_at: Date | null;
}

/** The order's payment, once one was created. */
export interface OrderPaymentRef {
  paymentId: string;
  payCurrency: string;
}

/** A payment run tells its order of every status it reaches. */
export interface PaymentUpdate {
  paymentId: string;
  status: PaymentStatus;
}

/** What the order becomes when its payment reaches `payment` (null: no change). */
export function orderStatusFor(payment: PaymentStatus, current: OrderStatus): OrderStatus | null {
  if (PAID_STATUSES.includes(payment)) return 'paid';
  switch (payment) {
    case 'payment_unpaid':
      // A reorg removed the payin that was confirming.
      return current === 'confirming' ? 'pending' : null;
    case 'payment_started':
      return 'confirming';
    case 'payment_bounced':
      // After `paid` a bounce means the payout failed and a refund follows; before it, the payin was not acceptable.
      return current === 'paid' ? null : 'invalid';
    case 'payment_refunded':
      return current === 'paid' ? 'refunded' : 'invalid';
    case 'payment_expired':
      return current === 'canceled' ? null : 'expired';
    default:
      return null;
  }
}
