import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { EvmChains } from '../../chains/evm';
import {
  USD_PRICE_CURRENCIES,
  isPayCurrencyCode,
  resolvePayCurrency,
  servedPayCurrencies,
  type ServedPayCurrency,
} from '../../chains/legacy-currencies';
import { findOrderById, findOrderByMerchantOrderId, insertOrder } from '../../db/queries/orders';
import type { MerchantAppRow, OrderRow } from '../../db/tables';
import type { Logger } from '../../lib/logger';
import { parseUnits } from '../../lib/money';
import { ensureOrderWorkflow } from '../../lib/order-workflows';
import { USD_DECIMALS, peggedUnitsForUsd } from '../../lib/pricing';
import { orderWorkflowId } from '../../workflows/ids';
import { cancelOrderUpdate, chooseCurrencyUpdate } from '../../workflows/messages';
import type { OrderPaymentRef, OrderStatus } from '../../workflows/order-types';
import { ApiError } from '../errors';
import type { CreateOrderBody } from '../schemas/orders';
import { preparePayment } from './payments';

export interface OrderServiceDeps {
  knex: Knex;
  chains: EvmChains;
  temporal: { client: Client; taskQueue: string };
  feeBps: number;
  latePayinWindowSeconds: number;
  /** Time from creation until an order without a payment expires (spec 8: 60 minutes). */
  orderTtlSeconds: number;
  log: Logger;
}

/** How long a create call waits for the payment of a fixed `pay_currency` before answering without it. */
const PAYMENT_WAIT_MS = 15_000;

const fieldError = (code: string, field: string, message: string) => new ApiError(400, code, `${field}: ${message}`, [{ path: field, message }]);

/**
 * Whether the merchant's wallet can be paid from `currency`: the same checks as a real payment (bridge route,
 * payout token, amount after the fee), run on a draft. Returns the reason when it cannot.
 */
function payableReason(deps: OrderServiceDeps, app: MerchantAppRow, currency: ServedPayCurrency, usdMicros: bigint): string | null {
  try {
    preparePayment(deps, app, {
      sourceChainId: currency.chainId,
      sourceToken: currency.token,
      // Stablecoins at their real amount; a priced coin only needs a placeholder, its payout comes from the USD value.
      amountUnits: currency.pricing.kind === 'usd_pegged' ? peggedUnitsForUsd(usdMicros, currency.token.decimals) : 1n,
      usdValueMicros: currency.pricing.kind === 'usd_pegged' ? undefined : usdMicros,
      orderId: null,
      display: { title: null, name: null, description: null, currency: null },
      metadata: null,
      expiresAt: new Date(),
    });
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err.details?.map((d) => d.message).join('; ') ?? err.message;
    throw err;
  }
}

/**
 * Creates the order and starts its workflow, or returns the existing order for a repeated `merchant_order_id`
 * (even if the rest of the body differs). With a fixed `pay_currency` and without `fast`, waits briefly for the
 * payment so the response can carry the deposit address and amount.
 */
export async function createOrder(
  deps: OrderServiceDeps,
  app: MerchantAppRow,
  body: CreateOrderBody,
): Promise<{ order: OrderRow; created: boolean }> {
  const { knex, chains } = deps;
  const merchantOrderId = body.merchant_order_id ?? null;
  if (merchantOrderId !== null) {
    const existing = await findOrderByMerchantOrderId({ knex, appId: app.app_id, merchantOrderId });
    if (existing) return { order: await withWorkflow(deps, existing), created: false };
  }

  if (!(USD_PRICE_CURRENCIES as readonly string[]).includes(body.price_currency)) {
    throw fieldError(
      'unsupported_price_currency',
      'price_currency',
      `${body.price_currency} cannot be priced: Payrail has no rate source for it (use one of ${USD_PRICE_CURRENCIES.join(', ')})`,
    );
  }
  const usdMicros = parseUnits(body.price_amount, USD_DECIMALS);

  let options: string[];
  if (body.pay_currency) {
    const resolved = resolvePayCurrency(chains.registry, body.pay_currency);
    if (!resolved.ok) {
      throw fieldError(resolved.reason === 'no_price_source' ? 'unsupported_currency_pair' : 'unsupported_pay_currency', 'pay_currency', resolved.message);
    }
    const reason = payableReason(deps, app, resolved.currency, usdMicros);
    if (reason) throw fieldError('unsupported_pay_currency', 'pay_currency', `${body.pay_currency} cannot be paid out to this merchant: ${reason}`);
    options = [resolved.currency.code];
  } else {
    options = servedPayCurrencies(chains.registry)
      .filter((c) => payableReason(deps, app, c, usdMicros) === null)
      .map((c) => c.code);
    if (options.length === 0) throw fieldError('unsupported_pay_currency', 'pay_currency', 'no currency on this deployment can pay this order');
  }

  const inserted = await insertOrder({
    knex,
    order: {
      id: randomUUID(),
      app_id: app.app_id,
      merchant_order_id: merchantOrderId,
      price_amount: body.price_amount,
      price_currency: body.price_currency,
      pay_currency: body.pay_currency ?? null,
      currency_options: options,
      title: body.title ?? null,
      description: body.description ?? null,
      email: body.email ?? null,
      callback_url: body.callback_url ?? null,
      cancel_url: body.cancel_url ?? null,
      success_url: body.success_url ?? null,
      mobile: body.mobile ?? false,
      fast: body.fast ?? false,
      merchant_token: body.merchant_token ?? null,
      expires_at: new Date(Date.now() + deps.orderTtlSeconds * 1000),
    },
  });
  if (!inserted) {
    // A concurrent request with the same merchant_order_id committed first: answer with its order.
    const winner = await findOrderByMerchantOrderId({ knex, appId: app.app_id, merchantOrderId: merchantOrderId! });
    if (!winner) throw new Error(`order ${merchantOrderId} vanished after a conflict`);
    return { order: await withWorkflow(deps, winner), created: false };
  }
  let order = await withWorkflow(deps, inserted);
  if (order.pay_currency && !order.fast) {
    try {
      await updateWithTimeout(deps, order.id, order.pay_currency, PAYMENT_WAIT_MS);
      order = (await findOrderById({ knex, id: order.id })) ?? order;
    } catch (err) {
      // The order exists either way; the hosted page offers the currency again.
      deps.log.warn({ orderId: order.id, err }, 'payment of a fixed pay_currency not ready; answering without it');
    }
  }
  return { order, created: true };
}

async function withWorkflow(deps: OrderServiceDeps, row: OrderRow): Promise<OrderRow> {
  if (!row.workflow_started_at) await ensureOrderWorkflow({ ...deps.temporal, knex: deps.knex, row });
  return row;
}

async function updateWithTimeout(deps: OrderServiceDeps, orderId: string, payCurrency: string, timeoutMs: number): Promise<OrderPaymentRef> {
  const handle = deps.temporal.client.workflow.getHandle(orderWorkflowId(orderId));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no payment within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([handle.executeUpdate(chooseCurrencyUpdate, { args: [payCurrency] }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const updateRejection = (err: unknown): ApiError | null => {
  if (err instanceof WorkflowUpdateFailedError) {
    const cause = err.cause instanceof Error ? err.cause.message : err.message;
    return new ApiError(409, 'conflict', cause);
  }
  if (err instanceof WorkflowNotFoundError) return new ApiError(409, 'conflict', 'the order is closed');
  return null;
};

/** The customer's currency choice on the hosted page: creates the order's payment (once). */
export async function chooseOrderCurrency(deps: OrderServiceDeps, order: OrderRow, payCurrency: string): Promise<OrderPaymentRef> {
  if (!isPayCurrencyCode(payCurrency) || !order.currency_options.includes(payCurrency)) {
    throw new ApiError(400, 'invalid_request', `${payCurrency} is not offered for this order`, [{ path: 'pay_currency', message: `must be one of ${order.currency_options.join(', ')}` }]);
  }
  try {
    return await updateWithTimeout(deps, order.id, payCurrency, 60_000);
  } catch (err) {
    throw updateRejection(err) ?? err;
  }
}

/** The customer cancelled on the hosted page. */
export async function cancelOrder(deps: OrderServiceDeps, order: OrderRow): Promise<OrderStatus> {
  try {
    return await deps.temporal.client.workflow.getHandle(orderWorkflowId(order.id)).executeUpdate(cancelOrderUpdate);
  } catch (err) {
    throw updateRejection(err) ?? err;
  }
}
