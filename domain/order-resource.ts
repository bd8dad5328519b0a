/**
 * The legacy order object (docs/legacy-orders.md): what `POST /v1/orders` and `GET /v1/orders/{id}` return and what
 * callbacks carry. Every field is always present; what is not known yet is `null`. The `merchant_token` is never
 * part of it (it travels in callbacks only).
 */
import { formatUnits, parseUnits } from './money';
import type { OrderRecord, OrderStatus } from './orders';
import type { PaymentRecord } from './payment';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** numeric(24,6) as stored ("12.500000") in canonical form ("12.5"). */
export const canonicalPrice = (stored: string): string => formatUnits(parseUnits(stored, 6), 6);

export function orderResource(order: OrderRecord, payment: PaymentRecord | null | undefined, paymentUrl: string) {
  const amount = (units: string | null | undefined) => (units == null || !payment ? null : formatUnits(BigInt(units), payment.source_decimals));
  return {
    id: order.id,
    merchant_order_id: order.merchant_order_id,
    status: order.status,
    price_amount: canonicalPrice(order.price_amount),
    price_currency: order.price_currency,
    pay_currency: order.selected_currency ?? order.pay_currency,
    pay_amount: amount(payment?.source_amount_units),
    pay_address: payment?.deposit_address ?? null,
    pay_chain_id: payment ? String(payment.source_chain_id) : null,
    pay_token_address: payment?.source_token_address ?? null,
    rate: order.rate,
    received_amount: amount(payment?.amount_received_units),
    tx_hash: payment?.payin_tx_hash ?? null,
    payment_id: order.payment_id,
    payment_status: payment?.status ?? null,
    title: order.title,
    description: order.description,
    email: order.email,
    callback_url: order.callback_url,
    success_url: order.success_url,
    cancel_url: order.cancel_url,
    mobile: order.mobile,
    fast: order.fast,
    payment_url: paymentUrl,
    created_at: order.created_at.toISOString(),
    updated_at: order.updated_at.toISOString(),
    expires_at: order.expires_at.toISOString(),
    paid_at: iso(order.paid_at),
  };
}

export type OrderResource = ReturnType<typeof orderResource>;

/**
 * The JSON body POSTed to `callback_url`: the order object with `status` set to the status this callback reports,
 * plus `callback_id` (the same on every attempt of this callback; deduplicate on it) and the `merchant_token`.
 */
export function callbackBody(input: {
  order: OrderRecord;
  payment: PaymentRecord | null | undefined;
  paymentUrl: string;
  callbackId: string;
  status: OrderStatus;
  /** The order's merchant_token, opened. */
  merchantToken: string | null;
}) {
  return {
    callback_id: input.callbackId,
    ...orderResource(input.order, input.payment, input.paymentUrl),
    status: input.status,
    merchant_token: input.merchantToken,
  };
}
