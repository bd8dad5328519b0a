import { defineSearchAttributeKey } from '@temporalio/common';

/** Custom search attributes every Payrail workflow may set; registered on the Temporal namespace at start-up. */
export const PaymentStatusKey = defineSearchAttributeKey('PaymentStatus', 'KEYWORD');
export const MerchantAppIdKey = defineSearchAttributeKey('MerchantAppId', 'KEYWORD');
export const OrderIdKey = defineSearchAttributeKey('OrderId', 'KEYWORD');
export const SourceChainIdKey = defineSearchAttributeKey('SourceChainId', 'KEYWORD');

/** Status of a legacy order workflow (`order-<id>`). */
export const OrderStatusKey = defineSearchAttributeKey('OrderStatus', 'KEYWORD');

/**
 * Why a payment run is waiting on people rather than on the chain: `treasury_short` (the payout waits for the
 * destination treasury to be funded), `chain_step_reverts` (a chain step's call would revert), `chain_tx_refused`
 * (the node keeps refusing a transaction: its fee payer cannot pay, …); `retryChainStep` after fixing it. Empty
 * otherwise.
 */
export const AwaitingOperatorKey = defineSearchAttributeKey('AwaitingOperator', 'KEYWORD');

export const customSearchAttributes = [PaymentStatusKey, MerchantAppIdKey, OrderIdKey, SourceChainIdKey, OrderStatusKey, AwaitingOperatorKey] as const;
