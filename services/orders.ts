import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { PriceUnavailable } from '../chains/family';
import { DomainError, invalidField } from '../domain/errors';
import { formatUnits, parseUnits } from '../domain/money';
import type { OrderPaymentRef, OrderStatus } from '../domain/orders';
import type { PricingPolicy } from '../domain/payment-plan';
import { USD_PRICE_CURRENCIES, isPayCurrencyCode } from '../domain/pay-currencies';
import { USD_DECIMALS, formatRate, peggedUnitsForUsd, unitsForUsd } from '../domain/pricing';
import { findMerchantApp } from '../db/queries/merchants';
import {
  attachOrderPayment,
  claimReceipt,
  findOrderById,
  findOrderByMerchantOrderId,
  insertOrder,
  lockOrder,
  releaseReceipt,
} from '../db/queries/orders';
import { findPaymentById } from '../db/queries/payments';
import type { MerchantAppRow, OrderRow, PaymentRow } from '../db/tables';
import type { Logger } from '../lib/logger';
import type { Mailer } from '../lib/mail';
import type { SecretBox } from '../lib/secrets';
import { cancelOrderUpdate, chooseCurrencyUpdate } from '../workflows/messages';
import type { CreatedOrderPayment } from '../workflows/types';
import { orderWorkflowId } from '../workflows/ids';
import { insertPreparedPayment, preparePayment, type PaymentDraft } from './payments';
import { resolvePayCurrency, servedPayCurrencies, type ServedPayCurrency } from './pay-currencies';
import { ensureOrderWorkflow, orderWorkflowHandle, paymentWorkflowInput, paymentWorkflowMemo, startOrderWithPayment } from './workflows';

export interface OrderServiceDeps {
  knex: Knex;
  chains: ChainAdapters;
  temporal: { client: Client; taskQueue: string };
  pricing: PricingPolicy;
  latePayinWindowSeconds: number;
  /** Time from creation until an order without a payment expires (spec 8: 60 minutes). */
  orderTtlSeconds: number;
  /** Seals each order's merchant_token at rest. */
  secretBox: SecretBox;
  log: Logger;
}

/** What a merchant asks for (spec 2.9), as the API validated it. */
export interface CreateOrderCommand {
  merchant_order_id?: string;
  price_amount: string;
  price_currency: string;
  pay_currency?: string;
  title?: string;
  description?: string;
  email?: string;
  callback_url?: string;
  cancel_url?: string;
  success_url?: string;
  mobile?: boolean;
  fast?: boolean;
  merchant_token?: string;
}

/** How long a create call waits for the payment of a fixed `pay_currency` before answering without it. */
const PAYMENT_WAIT_MS = 15_000;

export const orderPaymentUrl = (publicBaseUrl: string, orderId: string): string => `${publicBaseUrl}/pay/order/${orderId}`;

/** What the customer must send for an order priced `usdMicros`, in `currency`: the one place this is decided. */
interface OrderQuote {
  amountUnits: bigint;
  /** The USD value a priced (non-pegged) coin was converted at; the payout is computed from it. */
  usdValueMicros?: bigint;
  rate: string;
  rateSource: string;
}

async function quoteOrder(deps: Pick<OrderServiceDeps, 'chains'>, currency: ServedPayCurrency, usdMicros: bigint): Promise<OrderQuote> {
  if (currency.pricing.kind === 'usd_pegged') {
    return { amountUnits: peggedUnitsForUsd(usdMicros, currency.token.decimals), rate: '1', rateSource: `${currency.token.symbol} is a USD stablecoin, priced 1:1` };
  }
  let reading;
  try {
    reading = await deps.chains.adapter(currency.pricing.feedChainId).readUsdPriceFeed(currency.pricing.feed, {
      maxAgeSeconds: currency.pricing.maxAgeSeconds,
      nowSeconds: Math.floor(Date.now() / 1000),
    });
  } catch (err) {
    if (err instanceof PriceUnavailable) throw new DomainError('price_unavailable', err.message);
    throw err;
  }
  return {
    amountUnits: unitsForUsd(usdMicros, currency.token.decimals, reading),
    usdValueMicros: usdMicros,
    rate: formatRate(reading),
    rateSource: `price feed ${reading.feed} on chain ${currency.pricing.feedChainId}, round ${reading.roundId}, updated ${new Date(reading.updatedAt * 1000).toISOString()}`,
  };
}

type DraftOrder = Pick<OrderRow, 'id' | 'title' | 'merchant_order_id' | 'description' | 'price_currency' | 'expires_at'>;

const orderDraft = (order: DraftOrder, currency: ServedPayCurrency, quote: Pick<OrderQuote, 'amountUnits' | 'usdValueMicros' | 'rate'>): PaymentDraft => {
  const title = order.title ?? (order.merchant_order_id ? `Order ${order.merchant_order_id}` : 'Order');
  return {
    sourceChainId: currency.chainId,
    sourceToken: currency.token,
    amountUnits: quote.amountUnits,
    usdValueMicros: quote.usdValueMicros,
    orderId: null,
    keyless: false,
    display: { title, name: title, description: order.description, currency: order.price_currency },
    metadata: { legacyOrderId: order.id, merchantOrderId: order.merchant_order_id, payCurrency: currency.code, rate: quote.rate },
    expiresAt: order.expires_at,
  };
};

const ORDER_FIELDS = { token: 'pay_currency', amount: 'price_amount' };

/**
 * Whether the merchant's wallet can be paid from `currency` for this price: the checks of a real payment (route,
 * payout token, amount after the fee), on a draft. A priced coin is checked on its USD value, without reading its
 * feed. Returns the reason when it cannot.
 */
function payableReason(deps: OrderServiceDeps, app: MerchantAppRow, currency: ServedPayCurrency, usdMicros: bigint): string | null {
  const quote =
    currency.pricing.kind === 'usd_pegged'
      ? { amountUnits: peggedUnitsForUsd(usdMicros, currency.token.decimals), rate: '1' }
      : // Unread feed: a stand-in amount beyond any minimum and fixed fee, so only the route and USD value are checked.
        { amountUnits: 10n ** BigInt(currency.token.decimals + 18), usdValueMicros: usdMicros, rate: '0' };
  const draftOrder: DraftOrder = { id: '', title: null, merchant_order_id: null, description: null, price_currency: 'USD', expires_at: new Date() };
  try {
    preparePayment(deps, app, orderDraft(draftOrder, currency, quote), ORDER_FIELDS);
    return null;
  } catch (err) {
    if (err instanceof DomainError) return err.field?.message ?? err.message;
    throw err;
  }
}

const refusal = (code: 'unsupported_price_currency' | 'unsupported_pay_currency' | 'unsupported_currency_pair', field: string, message: string) =>
  invalidField(field, message, code);

/**
 * Creates the order and starts its workflow, or returns the existing order for a repeated `merchant_order_id`
 * (even if the rest of the body differs). With a fixed `pay_currency` and without `fast`, the workflow is started
 * with the payment's creation in the same call, and the answer waits briefly for it, so it can carry the deposit
 * address and amount.
 */
export async function createOrder(deps: OrderServiceDeps, app: MerchantAppRow, command: CreateOrderCommand): Promise<{ order: OrderRow; created: boolean }> {
  const { knex, chains } = deps;
  const merchantOrderId = command.merchant_order_id ?? null;
  if (merchantOrderId !== null) {
    const existing = await findOrderByMerchantOrderId({ knex, appId: app.app_id, merchantOrderId });
    if (existing) return { order: await withWorkflow(deps, existing), created: false };
  }

  if (!(USD_PRICE_CURRENCIES as readonly string[]).includes(command.price_currency)) {
    throw refusal(
      'unsupported_price_currency',
      'price_currency',
      `${command.price_currency} cannot be priced: Payrail has no rate source for it (use one of ${USD_PRICE_CURRENCIES.join(', ')})`,
    );
  }
  const usdMicros = parseUnits(command.price_amount, USD_DECIMALS);

  let options: string[];
  if (command.pay_currency) {
    if (!isPayCurrencyCode(command.pay_currency)) throw refusal('unsupported_pay_currency', 'pay_currency', `${command.pay_currency} is not a pay currency`);
    const resolved = resolvePayCurrency(chains.registry, command.pay_currency);
    if (!resolved.ok) {
      throw refusal(resolved.reason === 'no_price_source' ? 'unsupported_currency_pair' : 'unsupported_pay_currency', 'pay_currency', resolved.message);
    }
    const reason = payableReason(deps, app, resolved.currency, usdMicros);
    if (reason) throw refusal('unsupported_pay_currency', 'pay_currency', `${command.pay_currency} cannot be paid out to this merchant: ${reason}`);
    options = [resolved.currency.code];
  } else {
    options = servedPayCurrencies(chains.registry)
      .filter((c) => payableReason(deps, app, c, usdMicros) === null)
      .map((c) => c.code);
    if (options.length === 0) throw refusal('unsupported_pay_currency', 'pay_currency', 'no currency on this deployment can pay this order');
  }

  const inserted = await insertOrder({
    knex,
    order: {
      id: randomUUID(),
      app_id: app.app_id,
      merchant_order_id: merchantOrderId,
      price_amount: command.price_amount,
      price_currency: command.price_currency,
      pay_currency: command.pay_currency ?? null,
      currency_options: options,
      title: command.title ?? null,
      description: command.description ?? null,
      email: command.email ?? null,
      callback_url: command.callback_url ?? null,
      cancel_url: command.cancel_url ?? null,
      success_url: command.success_url ?? null,
      mobile: command.mobile ?? false,
      fast: command.fast ?? false,
      merchant_token_sealed: command.merchant_token ? deps.secretBox.seal(command.merchant_token) : null,
      expires_at: new Date(Date.now() + deps.orderTtlSeconds * 1000),
    },
  });
  if (!inserted) {
    // A concurrent request with the same merchant_order_id committed first: answer with its order.
    const winner = await findOrderByMerchantOrderId({ knex, appId: app.app_id, merchantOrderId: merchantOrderId! });
    if (!winner) throw new Error(`order ${merchantOrderId} vanished after a conflict`);
    return { order: await withWorkflow(deps, winner), created: false };
  }
  if (!inserted.pay_currency || inserted.fast) return { order: await withWorkflow(deps, inserted), created: true };
  try {
    await withTimeout(startOrderWithPayment(deps, inserted, inserted.pay_currency), PAYMENT_WAIT_MS);
  } catch (err) {
    // The order exists either way (the reconciler starts its workflow if this start never reached Temporal);
    // the hosted page offers the currency again.
    deps.log.warn({ orderId: inserted.id, err }, 'payment of a fixed pay_currency not ready; answering without it');
  }
  return { order: (await findOrderById({ knex, id: inserted.id })) ?? inserted, created: true };
}

async function withWorkflow(deps: OrderServiceDeps, row: OrderRow): Promise<OrderRow> {
  if (!row.workflow_started_at) await ensureOrderWorkflow(deps, row);
  return row;
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** An update the order workflow refused, as the customer should see it. */
const updateRefusal = (err: unknown): DomainError | null => {
  if (err instanceof WorkflowUpdateFailedError) return new DomainError('conflict', err.cause instanceof Error ? err.cause.message : err.message);
  if (err instanceof WorkflowNotFoundError) return new DomainError('conflict', 'the order is closed');
  return null;
};

/** The customer's currency choice on the hosted page: creates the order's payment (once). */
export async function chooseOrderCurrency(deps: OrderServiceDeps, order: OrderRow, payCurrency: string): Promise<OrderPaymentRef> {
  if (!isPayCurrencyCode(payCurrency) || !order.currency_options.includes(payCurrency)) {
    throw invalidField('pay_currency', `${payCurrency} is not offered for this order (offered: ${order.currency_options.join(', ')})`);
  }
  try {
    return await withTimeout(orderWorkflowHandle(deps, order.id).executeUpdate(chooseCurrencyUpdate, { args: [payCurrency] }), 60_000);
  } catch (err) {
    throw updateRefusal(err) ?? err;
  }
}

/** The customer cancelled on the hosted page. */
export async function cancelOrder(deps: OrderServiceDeps, order: OrderRow): Promise<OrderStatus> {
  try {
    return await orderWorkflowHandle(deps, order.id).executeUpdate(cancelOrderUpdate);
  } catch (err) {
    throw updateRefusal(err) ?? err;
  }
}

async function loadOrder(knex: Knex, orderId: string): Promise<OrderRow> {
  const order = await findOrderById({ knex, id: orderId });
  if (!order) throw new DomainError('not_found', `order ${orderId} does not exist`);
  return order;
}

const createdPayment = (row: PaymentRow, order: OrderRow, payCurrency: string): CreatedOrderPayment => ({
  ...paymentWorkflowInput(row),
  searchAttributes: { merchantAppId: row.app_id, sourceChainId: String(row.source_chain_id), orderId: order.merchant_order_id },
  memo: { ...paymentWorkflowMemo(row), legacyOrder: orderWorkflowId(order.id), payCurrency },
});

/**
 * Prices the order in `payCurrency` and writes its payment row (and deposit address), or returns the payment the
 * order already has. The order workflow then starts the payment as its child. Idempotent.
 */
export async function createOrderPayment(
  deps: Pick<OrderServiceDeps, 'knex' | 'chains' | 'pricing' | 'latePayinWindowSeconds' | 'log'>,
  input: { orderId: string; payCurrency: string },
): Promise<CreatedOrderPayment> {
  const { knex, chains } = deps;
  const order = await loadOrder(knex, input.orderId);
  if (order.payment_id) {
    const existing = await findPaymentById({ knex, id: order.payment_id });
    if (existing) return createdPayment(existing, order, order.selected_currency ?? input.payCurrency);
  }
  const app = await findMerchantApp({ knex, appId: order.app_id });
  if (!app) throw new DomainError('not_found', `merchant app ${order.app_id} does not exist`);
  if (!isPayCurrencyCode(input.payCurrency)) throw new DomainError('unsupported_pay_currency', `${input.payCurrency} is not a pay currency`);
  const resolved = resolvePayCurrency(chains.registry, input.payCurrency);
  if (!resolved.ok) throw new DomainError('unsupported_pay_currency', resolved.message);
  const currency = resolved.currency;
  const quote = await quoteOrder(deps, currency, parseUnits(order.price_amount, USD_DECIMALS));
  const prepared = preparePayment(deps, app, orderDraft(order, currency, quote), ORDER_FIELDS);

  const row = await knex.transaction(async (trx) => {
    const locked = await lockOrder({ trx, id: order.id });
    if (!locked) throw new DomainError('not_found', `order ${order.id} does not exist`);
    // A concurrent attempt got there first: its payment is the order's payment.
    if (locked.payment_id) return (await findPaymentById({ knex: trx, id: locked.payment_id }))!;
    // A pooled deposit address is claimed in this transaction: a rollback gives it back.
    const inserted = await insertPreparedPayment({ knex: trx, chains }, prepared);
    if (!inserted) throw new Error(`the payment of order ${order.id} was not inserted`);
    // The order workflow starts this payment as its child; the payment reconciler must leave it alone.
    await trx('payments').where({ id: inserted.id }).update({ workflow_started_at: trx.fn.now() });
    await attachOrderPayment({ trx, orderId: order.id, paymentId: inserted.id, selectedCurrency: currency.code, rate: quote.rate, rateSource: quote.rateSource });
    return inserted;
  });
  deps.log.info(
    { orderId: order.id, paymentId: row.id, payCurrency: currency.code, amount: formatUnits(BigInt(row.source_amount_units), row.source_decimals), rate: quote.rate },
    'order payment created',
  );
  return createdPayment(row, order, currency.code);
}

/** Mails the receipt of a paid order to its `email`, once. */
export async function sendOrderReceipt(
  deps: { knex: Knex; log: Logger; mailer?: Pick<Mailer, 'send'>; publicBaseUrl: string },
  orderId: string,
): Promise<{ sent: boolean }> {
  const { knex, mailer } = deps;
  const order = await loadOrder(knex, orderId);
  if (!order.email || !order.payment_id) return { sent: false };
  if (!mailer) {
    deps.log.warn({ orderId: order.id }, 'SMTP_URL is not set: receipt not mailed');
    return { sent: false };
  }
  const payment = await findPaymentById({ knex, id: order.payment_id });
  if (!payment) return { sent: false };
  if (!(await claimReceipt({ knex, orderId: order.id }))) return { sent: false };
  try {
    await mailer.send(receiptMessage(order, payment));
  } catch (err) {
    await releaseReceipt({ knex, orderId: order.id });
    throw err;
  }
  return { sent: true };
}

function receiptMessage(order: OrderRow, payment: PaymentRow) {
  const title = order.title ?? (order.merchant_order_id ? `Order ${order.merchant_order_id}` : 'Your order');
  const price = formatUnits(parseUnits(order.price_amount, 6), 6);
  const paid = formatUnits(BigInt(payment.source_amount_units), payment.source_decimals);
  const lines = [
    `Thank you for your payment.`,
    ``,
    `Order: ${title}${order.merchant_order_id ? ` (${order.merchant_order_id})` : ''}`,
    `Price: ${price} ${order.price_currency}`,
    `Paid: ${paid} ${payment.source_token_symbol}${order.selected_currency ? ` (${order.selected_currency})` : ''}`,
    `Transaction: ${payment.payin_tx_hash ?? 'pending'}`,
    `Date: ${(order.paid_at ?? new Date()).toISOString()}`,
    ``,
    `Payrail order ${order.id}`,
  ];
  return { to: order.email!, subject: `Payment receipt: ${title}`, text: lines.join('\n') };
}
