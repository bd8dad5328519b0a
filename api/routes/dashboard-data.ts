import type Router from '@koa/router';
import type { Knex } from 'knex';
import type { Middleware } from 'koa';
import type { ChainAdapters } from '../../chains/adapters';
import { listAppOrders, listCallbackAttempts, findOrderById } from '../../db/queries/orders';
import { findPaymentById, listAppPayments, listAppPaymentsChangedSince, listPaymentStatusEvents } from '../../db/queries/payments';
import { listAppWebhookDeliveries } from '../../db/queries/webhook-deliveries';
import type { MerchantAppRow } from '../../db/tables';
import { PAYMENT_STATUSES } from '../../domain/payment';
import { paymentData } from '../../domain/payment-resource';
import { listQuarantinedTransfers } from '../../services/ledger';
import { withDisplayedDeposit } from '../../services/chains';
import { merchantStats } from '../../services/stats';
import { paymentWorkflowId } from '../../services/workflows';
import { notFound } from '../errors';
import type { DeveloperState } from '../middleware/jwt';
import {
  deliveryListQuerySchema,
  orderListQuerySchema,
  paymentChangesQuerySchema,
  paymentListQuerySchema,
  type CallbackAttemptList,
  type DashboardConfig,
  type DeliveryPage,
  type OrderPage,
  type PaymentChanges,
  type PaymentDetail,
  type PaymentPage,
} from '../schemas/dashboard';
import { paymentIdParamSchema } from '../schemas/payments';
import { statsQuerySchema, type MerchantStats } from '../schemas/merchant';
import { orderIdParamSchema } from '../schemas/orders';
import { toWebhookDeliveryRecord } from '../serializers/webhook-delivery';
import { parseOrThrow } from '../validation';

export interface DashboardDataDeps {
  knex: Knex;
  chains: ChainAdapters;
  publicBaseUrl: string;
  /** The Temporal Web UI, for links to a payment's workflow; absent when the operator has none. */
  temporalUi?: { url: string; namespace: string };
  devMailSinkUrl?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The next page's cursor: the last row's id when the page is full (a keyset cursor, see `listAppPayments`). */
const nextCursor = <T>(rows: T[], limit: number, id: (row: T) => string) => (rows.length === limit ? id(rows[rows.length - 1]!) : null);

/**
 * The JSON the dashboard's pages read (all behind the developer's session or token, each scoped to an app the
 * developer owns): payments with their timeline, deliveries, legacy orders, the app's statistics, and the
 * page configuration (chains with their explorers, the Temporal UI).
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

  router.get('/dashboard/config', (ctx) => {
    ctx.body = {
      chains: deps.chains.registry.chains.map((c) => ({ chainId: String(c.chainId), name: c.name, explorerUrl: c.explorerUrl ?? null, tokens: Object.keys(c.tokens) })),
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
    ctx.body = { data: rows.map(paymentData), nextCursor: nextCursor(rows, query.limit, (r) => r.id) } satisfies PaymentPage;
  });

  router.get('/apps/:appId/payments/changes', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const { since } = parseOrThrow(paymentChangesQuerySchema, ctx.query, 'query');
    const rows = await listAppPaymentsChangedSince({ knex, appId: app.app_id, since, limit: 200 });
    ctx.body = { data: rows.map(paymentData) } satisfies PaymentChanges;
  });

  router.get('/apps/:appId/payments/:paymentId', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const paymentId = parseOrThrow(paymentIdParamSchema, ctx.params.paymentId, 'payment id', 'paymentId');
    const payment = await findPaymentById({ knex, id: paymentId });
    if (!payment || payment.app_id !== app.app_id) throw notFound(`payment ${paymentId}`);
    const [events, deliveries, quarantined] = await Promise.all([
      listPaymentStatusEvents({ knex, paymentId }),
      listAppWebhookDeliveries({ knex, appId: app.app_id, filter: { paymentId }, limit: 100 }),
      listQuarantinedTransfers({ knex }, paymentId),
    ]);
    const workflowId = paymentWorkflowId(paymentId);
    ctx.body = {
      payment: paymentData(withDisplayedDeposit(deps.chains.registry, payment)),
      paymentLink: `${deps.publicBaseUrl}/pay/${paymentId}`,
      timeline: [{ status: 'payment_unpaid', at: payment.created_at.toISOString() }, ...events.map((e) => ({ status: e.status, at: e.at.toISOString() }))],
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
