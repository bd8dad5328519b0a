import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { listAppOrders, listCallbackAttempts, findOrderById } from '../../db/queries/orders';
import { listPayins } from '../../db/queries/payins';
import { findPaymentById, listAppPayments, listAppPaymentsChangedSince, listPaymentStatusEvents } from '../../db/queries/payments';
import { listPaymentRefunds, sumCompletedRefunds } from '../../db/queries/refunds';
import { listAppWebhookDeliveries } from '../../db/queries/webhook-deliveries';
import type { MerchantAppRow, PaymentRow } from '../../db/tables';
import { arrivedTowards } from '../../domain/collecting';
import { formatUnits } from '../../domain/money';
import { PAYMENT_STATUSES } from '../../domain/payment';
import { paymentData } from '../../domain/payment-resource';
import { leftToRefund, REFUNDABLE_STATUS } from '../../domain/refunds';
import { listQuarantinedTransfers } from '../../services/ledger';
import { withDisplayedDeposit } from '../../services/chains';
import type { RefundClaimDeps } from '../../services/refund-claims';
import { createRefund } from '../../services/refunds';
import { merchantStats } from '../../services/stats';
import { acceptAsPaid } from '../../services/underpayments';
import { paymentWorkflowId } from '../../services/workflows';
import { notFound } from '../errors';
import type { DeveloperState } from '../middleware/jwt';
import { toRefundResource } from '../serializers/refund';
import {
  deliveryListQuerySchema,
  orderListQuerySchema,
  paymentChangesQuerySchema,
  paymentListQuerySchema,
  type AcceptedPayment,
  type CallbackAttemptList,
  type DashboardConfig,
  type ListedPayment,
  type DeliveryPage,
  type OrderPage,
  type PaymentChanges,
  type PaymentDetail,
  type PaymentPage,
} from '../schemas/dashboard';
import { createRefundBodySchema, idempotencyKeySchema, paymentIdParamSchema } from '../schemas/payments';
import { statsQuerySchema, type MerchantStats } from '../schemas/merchant';
import { orderIdParamSchema } from '../schemas/orders';
import { toWebhookDeliveryRecord } from '../serializers/webhook-delivery';
import { parseOrThrow } from '../validation';

/** Refunds and "accept as paid" go to the same services, and so the same runs, as the payment API's. */
export interface DashboardDataDeps extends RefundClaimDeps {
  /** The Temporal Web UI, for links to a payment's workflow; absent when the operator has none. */
  temporalUi?: { url: string; namespace: string };
  devMailSinkUrl?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The next page's cursor: the last row's id when the page is full (a keyset cursor, see `listAppPayments`). */
const nextCursor = <T>(rows: T[], limit: number, id: (row: T) => string) => (rows.length === limit ? id(rows[rows.length - 1]!) : null);

/** The statuses as the payment entered them, with the merchant's events put in by their time. */
function inOrder<S extends { at: Date }, E extends { at: Date }>(statuses: S[], merchantEvents: E[]): Array<S | E> {
  const events = [...merchantEvents].sort((a, b) => a.at.getTime() - b.at.getTime());
  const merged: Array<S | E> = [];
  for (const status of statuses) {
    while (events.length > 0 && events[0]!.at < status.at) merged.push(events.shift()!);
    merged.push(status);
  }
  return [...merged, ...events];
}

/**
 * The JSON the dashboard's pages read (all behind the developer's session or token, each scoped to an app the
 * developer owns): payments with their timeline, deliveries, legacy orders, the app's statistics, and the
 * page configuration (chains with their explorers, the Temporal UI). And the merchant's two money operations on a
 * payment, through the very services the payment API's Admin key calls: a refund, and "accept as paid".
 */
export function dashboardDataRoutes<S extends DeveloperState>(
  router: Router<S>,
  deps: DashboardDataDeps,
  developer: Middleware<S>,
  ownApp: (developerId: string, rawAppId: string) => Promise<MerchantAppRow>,
): void {
  const { knex } = deps;
  const explorers = new Map(deps.chains.registry.chains.map((c) => [c.chainId, c.explorerUrl]));
  const txLink = (chainId: number, hash: string | null) => {
    const explorer = explorers.get(chainId);
    return hash && explorer ? `${explorer.replace(/\/+$/, '')}/tx/${hash}` : null;
  };

  /** The payment of the path, if it is the app's; another app's payment is a 404, as a missing one. */
  const ownPayment = async (app: MerchantAppRow, rawPaymentId: string): Promise<PaymentRow> => {
    const paymentId = parseOrThrow(paymentIdParamSchema, rawPaymentId, 'payment id', 'paymentId');
    const payment = await findPaymentById({ knex, id: paymentId });
    if (!payment || payment.app_id !== app.app_id) throw notFound(`payment ${paymentId}`);
    return payment;
  };
  /** Listed payments, each with what its completed refunds gave back. */
  const listed = async (rows: PaymentRow[]): Promise<ListedPayment[]> => {
    const refunded = await sumCompletedRefunds({ knex, paymentIds: rows.map((r) => r.id) });
    return rows.map((row) => {
      const units = refunded.get(row.id);
      return { ...paymentData(row), refunded: units === undefined ? null : formatUnits(units, row.source_decimals) };
    });
  };

  router.get('/dashboard/config', (ctx) => {
    ctx.body = {
      chains: deps.chains.registry.chains.map((c) => ({
        chainId: String(c.chainId),
        name: c.name,
        explorerUrl: c.explorerUrl ?? null,
        tokens: Object.keys(c.tokens),
        addressForm: deps.chains.family(c.chainId).addresses.form,
      })),
      temporalUiUrl: deps.temporalUi?.url ?? null,
      devMailSinkUrl: deps.devMailSinkUrl ?? null,
      paymentStatuses: [...PAYMENT_STATUSES],
    } satisfies DashboardConfig;
  });

  router.get('/apps/:appId/stats', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const { period } = parseOrThrow(statsQuerySchema, ctx.query, 'stats query');
    ctx.body = (await merchantStats({ knex, chains: deps.chains }, app.app_id, period)) satisfies MerchantStats;
  });

  router.get('/apps/:appId/payments', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const query = parseOrThrow(paymentListQuerySchema, ctx.query, 'query');
    const rows = await listAppPayments({
      knex,
      filter: {
        appId: app.app_id,
        status: query.status,
        search: query.q === undefined ? undefined : { orderId: query.q, paymentId: UUID.test(query.q) ? query.q.toLowerCase() : undefined },
        createdFrom: query.from,
        createdBefore: query.to,
      },
      afterId: query.cursor,
      limit: query.limit,
    });
    ctx.body = { data: await listed(rows), nextCursor: nextCursor(rows, query.limit, (r) => r.id) } satisfies PaymentPage;
  });

  router.get('/apps/:appId/payments/changes', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const { since } = parseOrThrow(paymentChangesQuerySchema, ctx.query, 'query');
    const rows = await listAppPaymentsChangedSince({ knex, appId: app.app_id, since, limit: 200 });
    ctx.body = { data: await listed(rows) } satisfies PaymentChanges;
  });

  router.get('/apps/:appId/payments/:paymentId', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const payment = await ownPayment(app, ctx.params.paymentId!);
    const paymentId = payment.id;
    const [events, deliveries, quarantined, payins, refunds] = await Promise.all([
      listPaymentStatusEvents({ knex, paymentId }),
      listAppWebhookDeliveries({ knex, appId: app.app_id, filter: { paymentId }, limit: 100 }),
      listQuarantinedTransfers({ knex }, paymentId),
      listPayins({ knex, paymentId }),
      listPaymentRefunds({ knex, paymentId }),
    ]);
    const workflowId = paymentWorkflowId(paymentId);
    const decimal = (units: bigint) => formatUnits(units, payment.source_decimals);
    const token = ` ${payment.source_token_symbol}`;
    const collecting = payment.status === 'payment_started';
    const arrived = collecting ? arrivedTowards(payment, payins) : null;
    const merchantEvents = [
      ...(payment.accepted_as_paid_at ? [{ event: 'accepted_as_paid' as const, at: payment.accepted_as_paid_at, note: 'Accepted as paid by the merchant' }] : []),
      ...refunds.flatMap((r) => [
        { event: 'refund_requested' as const, at: r.created_at, note: `Refund of ${decimal(BigInt(r.amount_units))}${token} asked for` },
        // When Payrail recorded it landed (its `completedAt` is the block's time, on the chain's clock).
        ...(r.status === 'completed' ? [{ event: 'refund_completed' as const, at: r.updated_at, note: `Refund of ${decimal(BigInt(r.amount_units))}${token} landed` }] : []),
      ]),
    ];
    const timeline = inOrder([{ status: 'payment_unpaid' as const, at: payment.created_at }, ...events], merchantEvents).map((entry) => ({ ...entry, at: entry.at.toISOString() }));
    ctx.body = {
      payment: paymentData(withDisplayedDeposit(deps.chains.registry, payment)),
      paymentLink: `${deps.publicBaseUrl}/pay/${paymentId}`,
      timeline,
      arrived: arrived && { confirmed: decimal(arrived.confirmedUnits), confirming: decimal(arrived.confirmingUnits), left: decimal(arrived.leftUnits) },
      acceptable: arrived !== null && arrived.confirmedUnits > 0n && payment.expires_at.getTime() > Date.now(),
      refundable: payment.status === REFUNDABLE_STATUS ? decimal(leftToRefund(payment, refunds)) : null,
      refunds: refunds.map((refund) => toRefundResource(deps, refund, payment)),
      keptForRefunds: payment.netted_units === null ? null : formatUnits(BigInt(payment.netted_units), payment.destination_decimals),
      links: {
        payinTx: txLink(payment.source_chain_id, payment.payin_tx_hash),
        payoutTx: txLink(payment.destination_chain_id, payment.payout_tx_hash),
        workflow: deps.temporalUi ? `${deps.temporalUi.url}/namespaces/${encodeURIComponent(deps.temporalUi.namespace)}/workflows/${encodeURIComponent(workflowId)}` : null,
      },
      deliveries: deliveries.map(toWebhookDeliveryRecord),
      quarantined: quarantined.map((q) => ({
        chainId: String(q.chainId),
        tokenAddress: q.tokenAddress,
        amountUnits: q.amountUnits,
        txHash: q.txHash,
        logIndex: q.logIndex,
        txLink: txLink(q.chainId, q.txHash),
        recordedAt: q.recordedAt.toISOString(),
      })),
    } satisfies PaymentDetail;
  });

  // The merchant refunds from the dashboard as with its Admin key: one service, the page's idempotency key per confirmation.
  router.post('/apps/:appId/payments/:paymentId/refunds', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const payment = await ownPayment(app, ctx.params.paymentId!);
    const idempotencyKey = parseOrThrow(idempotencyKeySchema, ctx.get('idempotency-key') || undefined, 'Idempotency-Key header', 'Idempotency-Key');
    const body = parseOrThrow(createRefundBodySchema, ctx.request.body ?? {}, 'refund');
    const { refund, payment: refunded, created } = await createRefund(deps, app.app_id, payment.id, idempotencyKey, body);
    ctx.status = created ? 201 : 200;
    ctx.body = toRefundResource(deps, refund, refunded);
  });

  router.post('/apps/:appId/payments/:paymentId/accept', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const payment = await ownPayment(app, ctx.params.paymentId!);
    const accepted = await acceptAsPaid(deps, app.app_id, payment.id);
    ctx.body = { payment: paymentData(withDisplayedDeposit(deps.chains.registry, accepted)) } satisfies AcceptedPayment;
  });

  router.get('/apps/:appId/deliveries', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const query = parseOrThrow(deliveryListQuerySchema, ctx.query, 'query');
    const rows = await listAppWebhookDeliveries({
      knex,
      appId: app.app_id,
      filter: { status: query.status, eventType: query.eventType, paymentId: query.paymentId },
      afterId: query.cursor,
      limit: query.limit,
    });
    ctx.body = {
      data: rows.map((row) => ({ ...toWebhookDeliveryRecord(row), url: row.url, createdAt: row.created_at.toISOString() })),
      nextCursor: nextCursor(rows, query.limit, (r) => r.delivery_id),
    } satisfies DeliveryPage;
  });

  router.get('/apps/:appId/orders', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const query = parseOrThrow(orderListQuerySchema, ctx.query, 'query');
    const rows = await listAppOrders({ knex, appId: app.app_id, afterId: query.cursor, limit: query.limit });
    ctx.body = {
      data: rows.map((o) => ({
        id: o.id,
        merchantOrderId: o.merchant_order_id,
        status: o.status,
        priceAmount: o.price_amount,
        priceCurrency: o.price_currency,
        payCurrency: o.selected_currency ?? o.pay_currency,
        paymentId: o.payment_id,
        title: o.title,
        createdAt: o.created_at.toISOString(),
      })),
      nextCursor: nextCursor(rows, query.limit, (r) => r.id),
    } satisfies OrderPage;
  });

  router.get('/apps/:appId/orders/:orderId/callbacks', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const orderId = parseOrThrow(orderIdParamSchema, ctx.params.orderId, 'order id', 'orderId');
    const order = await findOrderById({ knex, id: orderId });
    if (!order || order.app_id !== app.app_id) throw notFound(`order ${orderId}`);
    const attempts = await listCallbackAttempts({ knex, orderId });
    ctx.body = {
      data: attempts.map((a) => ({
        callbackId: a.callback_id,
        orderStatus: a.order_status,
        attempt: a.attempt,
        url: a.url,
        statusCode: a.status_code,
        error: a.error,
        responsePreview: a.response_preview,
        durationMs: a.duration_ms,
        attemptedAt: a.attempted_at.toISOString(),
      })),
    } satisfies CallbackAttemptList;
  });
}
