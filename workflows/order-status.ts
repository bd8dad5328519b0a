/** How a legacy order follows its payment (pure; used by the order workflow). */
import type { OrderStatus } from './order-types';
import type { PaymentStatus } from './types';

/** Payment statuses after which nothing changes for the order. */
export const PAYMENT_SETTLED: readonly PaymentStatus[] = ['payment_completed', 'payment_refunded', 'payment_expired'];
const PAYMENT_PAID: readonly PaymentStatus[] = [
  'payment_payin_completed',
  'payment_bridging',
  'payment_payout_started',
  'payment_payout_completed',
  'payment_completed',
];

/** What the order becomes when its payment reaches `payment` (null: no change). */
export function orderStatusFor(payment: PaymentStatus, current: OrderStatus): OrderStatus | null {
  if (PAYMENT_PAID.includes(payment)) return 'paid';
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
