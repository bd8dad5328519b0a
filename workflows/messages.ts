/** Every signal, query and update of Payrail's workflows, defined once. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OrderPaymentRef, OrderStatus, PaymentUpdate } from '../domain/orders';
import type { DetectedPayin } from '../domain/payins';
import type { OrderState, PaymentState } from './types';

/** Sent by the chain watcher for every transfer it sees into a payment's deposit address (may repeat). */
export const payinDetectedSignal = defineSignal<[DetectedPayin]>('payinDetected');

/** The live lifecycle state held by the payment workflow. */
export const paymentStateQuery = defineQuery<PaymentState>('paymentState');

/** The customer picked a currency on the hosted page (or the merchant fixed one): creates the order's payment. */
export const chooseCurrencyUpdate = defineUpdate<OrderPaymentRef, [string]>('chooseCurrency');

/** The customer cancelled on the hosted page. */
export const cancelOrderUpdate = defineUpdate<OrderStatus, []>('cancelOrder');

/** The order's payment moved to another status (sent by the payment run to its parent order). */
export const paymentUpdatedSignal = defineSignal<[PaymentUpdate]>('paymentUpdated');

export const orderStateQuery = defineQuery<OrderState>('orderState');

/**
 * An operator fixed what made a chain step's call revert (funded the treasury's gas, unpaused a token, …): the
 * payment run, waiting with `AwaitingOperator=chain_step_reverts`, tries the step again.
 */
export const retryChainStepSignal = defineSignal<[]>('retryChainStep');

/**
 * A payin was recorded as the funding of a merchant's refund: its run, waiting for it, reads the refund's funding
 * from the database (the signal carries nothing, so it can fund nothing).
 */
export const refundFundedSignal = defineSignal<[]>('refundFunded');

/**
 * The merchant accepts a payment that collects with less than its amount as paid (`POST {payment_api_url}/{id}/accept`
 * or the dashboard): refused unless the payment collects, before its expiry, with a confirmed payin.
 */
export const acceptAsPaidUpdate = defineUpdate<void, []>('acceptAsPaid');

/**
 * Look at the treasuries' floats now (an operator, or a test, that has just drained or funded one): the rebalancer
 * runs its round at once instead of at its next interval.
 */
export const checkFloatsSignal = defineSignal<[]>('checkFloats');
