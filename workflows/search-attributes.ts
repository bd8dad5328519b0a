import { defineSearchAttributeKey } from '@temporalio/common';

/** Custom search attributes every Payrail workflow may set; registered on the Temporal namespace at start-up. */
export const PaymentStatusKey = defineSearchAttributeKey('PaymentStatus', 'KEYWORD');
export const MerchantAppIdKey = defineSearchAttributeKey('MerchantAppId', 'KEYWORD');
export const OrderIdKey = defineSearchAttributeKey('OrderId', 'KEYWORD');
export const SourceChainIdKey = defineSearchAttributeKey('SourceChainId', 'KEYWORD');

/** Status of a legacy order workflow (`order-<id>`). */
export const OrderStatusKey = defineSearchAttributeKey('OrderStatus', 'KEYWORD');

export const customSearchAttributes = [PaymentStatusKey, MerchantAppIdKey, OrderIdKey, SourceChainIdKey, OrderStatusKey] as const;
