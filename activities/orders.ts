import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory, WorkflowNotFoundError } from '@temporalio/common';
import { formatUnits } from 'ethers';
import { ApiError } from '../api/errors';
import { toCallbackBody, toOrderResource } from '../api/serializers/order';
import { preparePayment } from '../api/services/payments';
import { isPayCurrencyCode, resolvePayCurrency } from '../chains/legacy-currencies';
import { PriceUnavailable, readUsdPriceFeed } from '../chains/price-feeds';
import { findMerchantApp } from '../db/queries/merchants';
import {
  applyOrderTransition,
  attachOrderPayment,
  claimReceipt,
  findOrderById,
  findOrderByPaymentId,
  insertCallbackAttempt,
  lockOrder,
  releaseReceipt,
} from '../db/queries/orders';
import { findPaymentById, insertPayment } from '../db/queries/payments';
import type { OrderRow, PaymentRow } from '../db/tables';
import { CallbackUrlRefused, postCallback } from '../lib/callbacks';
import { parseUnits } from '../lib/money';
import { paymentWorkflowInput, paymentWorkflowMemo } from '../lib/payment-workflows';
import { USD_DECIMALS, formatRate, peggedUnitsForUsd, unitsForUsd } from '../lib/pricing';
import { orderWorkflowId } from '../workflows/ids';
import { paymentUpdatedSignal } from '../workflows/messages';
import type { CreatedOrderPayment, OrderStatus } from '../workflows/order-types';
import type { PaymentTransition } from '../workflows/types';
import type { ActivityDeps } from './deps';

const CALLBACK_TIMEOUT_MS = 10_000;

/** Failure types the order workflow treats as final for a currency choice (no retry helps). */
export const ORDER_PAYMENT_FAILURES = ['UnsupportedPayCurrency', 'PriceUnavailable', 'PaymentNotPossible', 'OrderGone'] as const;

export function createOrderActivities(deps: ActivityDeps) {
  const { knex, chains, log } = deps;
  const settings = () => {
    if (!deps.orders) throw ApplicationFailure.nonRetryable('this worker is not configured for legacy orders', 'NotConfigured');
    return deps.orders;
  };

  const loadOrder = async (orderId: string): Promise<OrderRow> => {
    const order = await findOrderById({ knex, id: orderId });
    if (!order) throw ApplicationFailure.nonRetryable(`order ${orderId} does not exist`, 'OrderGone');
    return order;
  };

  const created = (row: PaymentRow, order: OrderRow, payCurrency: string): CreatedOrderPayment => ({
    paymentId: row.id,
    input: paymentWorkflowInput(row, deps.latePayinWindowMs),
    searchAttributes: { merchantAppId: row.app_id, sourceChainId: String(row.source_chain_id), orderId: order.merchant_order_id },
    memo: { ...paymentWorkflowMemo(row), legacyOrder: orderWorkflowId(order.id), payCurrency },
  });

  return {
    /**
     * Idempotent: prices the order in `payCurrency` and writes its payment row (and deposit address), or returns
     * the payment the order already has. The order workflow then starts the payment as its child.
     */
    async createOrderPayment(input: { orderId: string; payCurrency: string }): Promise<CreatedOrderPayment> {
      const { feeBps } = settings();
      const order = await loadOrder(input.orderId);
      if (order.payment_id) {
        const existing = await findPaymentById({ knex, id: order.payment_id });
        if (existing) return created(existing, order, order.selected_currency ?? input.payCurrency);
      }
      const app = await findMerchantApp({ knex, appId: order.app_id });
      if (!app) throw ApplicationFailure.nonRetryable(`merchant app ${order.app_id} does not exist`, 'OrderGone');
      if (!isPayCurrencyCode(input.payCurrency)) {
        throw ApplicationFailure.nonRetryable(`${input.payCurrency} is not a pay currency`, 'UnsupportedPayCurrency');
      }
      const resolved = resolvePayCurrency(chains.registry, input.payCurrency);
      if (!resolved.ok) throw ApplicationFailure.nonRetryable(resolved.message, 'UnsupportedPayCurrency');
      const currency = resolved.currency;

      // The order's price in micro-USD (the API only accepts USD and USD stablecoins as price currencies).
      const usdMicros = parseUnits(order.price_amount, USD_DECIMALS);
      let amountUnits: bigint;
      let rate: string;
      let rateSource: string;
      let usdValueMicros: bigint | undefined;
      if (currency.pricing.kind === 'usd_pegged') {
        amountUnits = peggedUnitsForUsd(usdMicros, currency.token.decimals);
        rate = '1';
        rateSource = `${currency.token.symbol} is a USD stablecoin, priced 1:1`;
      } else {
        let reading;
        try {
          reading = await readUsdPriceFeed(chains.provider(currency.chainId), currency.pricing.feed, {
            maxAgeSeconds: currency.pricing.maxAgeSeconds,
            nowSeconds: Math.floor(Date.now() / 1000),
          });
        } catch (err) {
          // A stale or broken feed may recover: let the retry policy try a few times before giving up.
          if (err instanceof PriceUnavailable) throw ApplicationFailure.retryable(err.message, 'PriceUnavailable');
          throw err;
        }
        amountUnits = unitsForUsd(usdMicros, currency.token.decimals, reading);
        rate = formatRate(reading);
        rateSource = `price feed ${reading.feed} on chain ${currency.chainId}, round ${reading.roundId}, updated ${new Date(reading.updatedAt * 1000).toISOString()}`;
        usdValueMicros = usdMicros;
      }

      let prepared;
      try {
        prepared = preparePayment(
          { chains, feeBps, latePayinWindowSeconds: deps.latePayinWindowMs / 1000 },
          app,
          {
            sourceChainId: currency.chainId,
            sourceToken: currency.token,
            amountUnits,
            usdValueMicros,
            orderId: null,
            display: {
              title: order.title ?? (order.merchant_order_id ? `Order ${order.merchant_order_id}` : 'Order'),
              name: order.title ?? (order.merchant_order_id ? `Order ${order.merchant_order_id}` : 'Order'),
              description: order.description,
              currency: order.price_currency,
            },
            metadata: { legacyOrderId: order.id, merchantOrderId: order.merchant_order_id, payCurrency: currency.code, rate },
            expiresAt: order.expires_at,
          },
          { token: 'pay_currency', amount: 'price_amount' },
        );
      } catch (err) {
        if (err instanceof ApiError) {
          const detail = err.details?.map((d) => `${d.path} ${d.message}`).join('; ');
          throw ApplicationFailure.nonRetryable(detail || err.message, 'PaymentNotPossible');
        }
        throw err;
      }

      const row = await knex.transaction(async (trx) => {
        const locked = await lockOrder({ trx, id: order.id });
        if (!locked) throw ApplicationFailure.nonRetryable(`order ${order.id} does not exist`, 'OrderGone');
        // A concurrent attempt got there first: its payment is the order's payment.
        if (locked.payment_id) return (await findPaymentById({ knex: trx, id: locked.payment_id }))!;
        const inserted = await insertPayment({ knex: trx, payment: prepared.payment, watchUntil: prepared.watchUntil });
        if (!inserted) throw new Error(`payment ${prepared.payment.id} was not inserted`);
        // The order workflow starts this payment as its child; the payment reconciler must leave it alone.
        await trx('payments').where({ id: inserted.id }).update({ workflow_started_at: trx.fn.now() });
        await attachOrderPayment({ trx, orderId: order.id, paymentId: inserted.id, selectedCurrency: currency.code, rate, rateSource });
        return inserted;
      });
      log.info({ orderId: order.id, paymentId: row.id, payCurrency: currency.code, amount: formatUnits(BigInt(row.source_amount_units), row.source_decimals), rate }, 'order payment created');
      return created(row, order, currency.code);
    },

    /** Idempotent: writes absolute values. */
    async recordOrderTransition(input: { orderId: string; status: OrderStatus }): Promise<void> {
      await applyOrderTransition({ knex, ...input });
    },

    /**
     * One attempt to deliver a callback; every attempt is logged with its status code and time. Throws (so the
     * retry policy tries again with backoff) unless the merchant answered 2xx. A URL the policy refuses is final.
     */
    async deliverOrderCallback(input: { orderId: string; callbackId: string; status: OrderStatus }): Promise<{ attempt: number; statusCode: number }> {
      const { publicBaseUrl, allowPrivateCallbackTargets } = settings();
      const order = await loadOrder(input.orderId);
      if (!order.callback_url) throw ApplicationFailure.nonRetryable(`order ${order.id} has no callback_url`, 'NoCallbackUrl');
      const payment = order.payment_id ? await findPaymentById({ knex, id: order.payment_id }) : null;
      const body = JSON.stringify(toCallbackBody({ order, payment, publicBaseUrl, callbackId: input.callbackId, status: input.status }));
      const attempt = Context.current().info.attempt;
      const attemptedAt = new Date();
      let statusCode: number | null = null;
      let preview: string | null = null;
      let error: string | null = null;
      let refused = false;
      try {
        const res = await postCallback(order.callback_url, body, {
          allowPrivateNetworks: allowPrivateCallbackTargets,
          timeoutMs: CALLBACK_TIMEOUT_MS,
          headers: { 'x-payrail-callback-id': input.callbackId },
        });
        statusCode = res.statusCode;
        preview = res.preview;
      } catch (err) {
        refused = err instanceof CallbackUrlRefused;
        error = err instanceof Error ? err.message : String(err);
      }
      await insertCallbackAttempt({
        knex,
        attempt: {
          order_id: order.id,
          callback_id: input.callbackId,
          order_status: input.status,
          attempt,
          url: order.callback_url,
          status_code: statusCode,
          error,
          response_preview: preview,
          duration_ms: Date.now() - attemptedAt.getTime(),
          attempted_at: attemptedAt,
        },
      });
      if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { attempt, statusCode };
      const what = statusCode !== null ? `answered HTTP ${statusCode}` : `failed: ${error}`;
      if (refused) throw ApplicationFailure.nonRetryable(`callback for order ${order.id} ${what}`, 'CallbackUrlRefused');
      // Benign: the merchant's endpoint failing is not Payrail's error (logged at debug); the attempt log has it.
      throw ApplicationFailure.create({
        message: `callback attempt ${attempt} for order ${order.id} ${what}`,
        type: 'CallbackFailed',
        category: ApplicationFailureCategory.BENIGN,
      });
    },

    /** Mails the receipt of a paid order to its `email`, once. */
    async sendOrderReceipt(input: { orderId: string }): Promise<{ sent: boolean }> {
      const { mailer, publicBaseUrl } = settings();
      const order = await loadOrder(input.orderId);
      if (!order.email || !order.payment_id) return { sent: false };
      if (!mailer) {
        log.warn({ orderId: order.id }, 'SMTP_URL is not set: receipt not mailed');
        return { sent: false };
      }
      const payment = await findPaymentById({ knex, id: order.payment_id });
      if (!payment) return { sent: false };
      if (!(await claimReceipt({ knex, orderId: order.id }))) return { sent: false };
      try {
        await mailer.send(receiptMessage(order, payment, publicBaseUrl));
      } catch (err) {
        await releaseReceipt({ knex, orderId: order.id });
        throw err;
      }
      return { sent: true };
    },
  };
}

export type OrderActivities = ReturnType<typeof createOrderActivities>;

function receiptMessage(order: OrderRow, payment: PaymentRow, publicBaseUrl: string) {
  const { price_amount: price, pay_currency: currency, pay_amount: paid, tx_hash: txHash } = toOrderResource(order, payment, publicBaseUrl);
  const title = order.title ?? (order.merchant_order_id ? `Order ${order.merchant_order_id}` : 'Your order');
  const lines = [
    `Thank you for your payment.`,
    ``,
    `Order: ${title}${order.merchant_order_id ? ` (${order.merchant_order_id})` : ''}`,
    `Price: ${price} ${order.price_currency}`,
    `Paid: ${paid ?? '?'} ${payment.source_token_symbol}${currency ? ` (${currency})` : ''}`,
    `Transaction: ${txHash ?? 'pending'}`,
    `Date: ${(order.paid_at ?? new Date()).toISOString()}`,
    ``,
    `Payrail order ${order.id}`,
  ];
  return { to: order.email!, subject: `Payment receipt: ${title}`, text: lines.join('\n') };
}

/**
 * Tells the legacy order owning this payment (if any) that the payment moved. Called by the payment read-model
 * writer after each transition, so the payment workflow itself needs no change. An order that has already
 * finished no longer listens; that is not an error.
 */
export async function notifyOrderOfPayment(
  deps: Pick<ActivityDeps, 'knex' | 'temporal' | 'log'>,
  transition: Pick<PaymentTransition, 'paymentId' | 'status'>,
): Promise<void> {
  const order = await findOrderByPaymentId({ knex: deps.knex, paymentId: transition.paymentId });
  if (!order) return;
  try {
    await deps.temporal.client.workflow
      .getHandle(orderWorkflowId(order.id))
      .signal(paymentUpdatedSignal, { paymentId: transition.paymentId, status: transition.status });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      deps.log.info({ orderId: order.id, paymentId: transition.paymentId, status: transition.status }, 'order workflow closed; payment update not delivered');
      return;
    }
    throw err;
  }
}
