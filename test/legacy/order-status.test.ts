import assert from 'node:assert/strict';
import { orderStatusFor, type OrderStatus } from '../../domain/orders';
import { SETTLED_STATUSES, type PaymentStatus } from '../../domain/payment';

/** How an order follows its payment (docs/legacy-orders.md, Statuses): [payment status, order before, order after]. */
const CASES: Array<[PaymentStatus, OrderStatus, OrderStatus | null]> = [
  ['payment_started', 'pending', 'confirming'],
  ['payment_unpaid', 'confirming', 'pending'],
  ['payment_unpaid', 'pending', null],
  ['payment_payin_completed', 'confirming', 'paid'],
  ['payment_payin_completed', 'pending', 'paid'],
  ['payment_bridging', 'paid', 'paid'],
  ['payment_payout_completed', 'paid', 'paid'],
  ['payment_completed', 'confirming', 'paid'],
  ['payment_bounced', 'confirming', 'invalid'],
  ['payment_refunded', 'invalid', 'invalid'],
  ['payment_refunded', 'confirming', 'invalid'],
  ['payment_bounced', 'paid', null],
  ['payment_refunded', 'paid', 'refunded'],
  ['payment_expired', 'pending', 'expired'],
  // A cancelled order stays cancelled when its payment expires, but follows a payin that still arrives in time.
  ['payment_expired', 'canceled', null],
  ['payment_started', 'canceled', 'confirming'],
  ['payment_payin_completed', 'canceled', 'paid'],
];

describe('legacy order status from its payment', () => {
  for (const [payment, before, after] of CASES) {
    it(`${before} + ${payment} → ${after ?? 'unchanged'}`, () => {
      assert.equal(orderStatusFor(payment, before), after);
    });
  }

  it('the order workflow ends once the payment is completed, refunded or expired', () => {
    assert.deepEqual([...SETTLED_STATUSES].sort(), ['payment_completed', 'payment_expired', 'payment_refunded']);
  });
});
