import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { DetectedPayin, PaymentState } from './types';

/** Sent by the chain watcher for every transfer it sees into a payment's deposit address (may repeat). */
export const payinDetectedSignal = defineSignal<[DetectedPayin]>('payinDetected');

/** The live lifecycle state held by the payment workflow. */
export const paymentStateQuery = defineQuery<PaymentState>('paymentState');

// Legacy orders.
import { defineUpdate } from '@temporalio/workflow';
import type { OrderPaymentRef, OrderState, OrderStatus, PaymentUpdate } from './order-types';

/** The customer picked a currency on the hosted page (or the merchant fixed one): creates the order's payment. */
export const chooseCurrencyUpdate = defineUpdate<OrderPaymentRef, [string]>('chooseCurrency');

/** The customer cancelled on the hosted page. */
export const cancelOrderUpdate = defineUpdate<OrderStatus, []>('cancelOrder');

/** The order's payment moved to another status. */
export const paymentUpdatedSignal = defineSignal<[PaymentUpdate]>('paymentUpdated');

export const orderStateQuery = defineQuery<OrderState>('orderState');
