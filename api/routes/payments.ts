import Router from '@koa/router';
import type { Knex } from 'knex';
import { paymentLogParam } from '../log-context';
import { findMerchantApp } from '../../db/queries/merchants';
import { findMerchantPaymentByOrder, findPaymentById, listAppPaymentChanges, listAppPayments } from '../../db/queries/payments';
import type { MerchantAppRow, PaymentRow } from '../../db/tables';
import type { ApiMetrics } from '../../lib/metrics';
import { invalidRequest, notFound } from '../errors';
import { optionalApiKey, requireApiKey, type ApiKeyState } from '../middleware/api-key';
import type { RateLimiter } from '../../services/rate-limits';
import { appIdSchema } from '../schemas/common';
import {
  createPaymentBodySchema,
  createPaymentByAppIdBodySchema,
  createRefundBodySchema,
  idempotencyKeySchema,
  orderIdSchema,
  paymentIdParamSchema,
  refundIdParamSchema,
} from '../schemas/payments';
import { changeCursor, createdCursor, encodeCursor, keyPaymentListQuerySchema, type KeyPaymentPage } from '../schemas/listing';
import { toChainList } from '../serializers/chains';
import { toPaymentResource } from '../serializers/payment';
import { toRefundResource } from '../serializers/refund';
import { createPayment, type PaymentServiceDeps } from '../../services/payments';
import { sendRefundToSender } from '../../services/refund-claims';
import { createRefund, listRefunds, type RefundServiceDeps } from '../../services/refunds';
import { acceptAsPaid } from '../../services/underpayments';
import { parseOrThrow } from '../validation';

export interface PaymentRoutesDeps extends PaymentServiceDeps, RefundServiceDeps {
  knex: Knex;
  publicBaseUrl: string;
  rateLimiter: RateLimiter;
  metrics: ApiMetrics;
}

/** The payment service (spec 4.1), mounted at `{payment_api_url}`. */
export function paymentRoutes(deps: PaymentRoutesDeps): Router<ApiKeyState> {
  const { knex } = deps;
  const router = new Router<ApiKeyState>();
  router.param('id', paymentLogParam);
  const anyKey = requireApiKey(deps, ['Orders', 'Admin']);
  const optionalKey = optionalApiKey(deps, ['Orders', 'Admin']);
  const adminKey = requireApiKey(deps, ['Admin']);

  const loadApp = async (appId: string): Promise<MerchantAppRow> => {
    const app = await findMerchantApp({ knex, appId });
    if (!app) throw notFound(`app ${appId}`);
    return app;
  };
  /** `reader`: the app whose key authenticated the request, if any; only the owning app sees its private fields. */
  const present = async (row: PaymentRow, reader: string | null, app?: MerchantAppRow) =>
    toPaymentResource(deps.chains.registry, row, app ?? (await loadApp(row.app_id)), deps.publicBaseUrl, { withMerchantFields: reader === row.app_id });

  // Public: which chains and tokens payments may use, with decimals and minimums.
  router.get('/chains', (ctx) => {
    ctx.body = toChainList(deps.chains.registry, deps.pricing);
  });

  /**
   * The key's app's payments, each as its key reads it. Newest first; with `updatedSince`, by change, oldest first
   * (a client syncing pages by `updatedSince` and the cursor, and never skips a change; see listAppPaymentChanges).
   */
  router.get('/', anyKey, async (ctx) => {
    const query = parseOrThrow(keyPaymentListQuerySchema, ctx.query, 'query');
    const { app, appId } = ctx.state.apiKey;
    const created = { status: query.status, createdFrom: query.createdFrom, createdBefore: query.createdTo };
    let rows: PaymentRow[];
    let cursorAt: (row: PaymentRow) => string;
    if (query.updatedSince === undefined) {
      const after = query.cursor === undefined ? undefined : parseOrThrow(createdCursor, query.cursor, 'cursor', 'cursor');
      const search = query.orderId === undefined ? undefined : { orderId: query.orderId };
      rows = await listAppPayments({ knex, filter: { appId, ...created, search }, afterId: after?.id, limit: query.limit + 1 });
      cursorAt = (row) => encodeCursor(['c', row.id]);
    } else {
      const after = query.cursor === undefined ? undefined : parseOrThrow(changeCursor, query.cursor, 'cursor', 'cursor');
      const changes = await listAppPaymentChanges({ knex, filter: { appId, ...created, orderId: query.orderId, updatedSince: query.updatedSince }, after, limit: query.limit + 1 });
      rows = changes;
      cursorAt = (row) => encodeCursor(['u', (row as (typeof changes)[number]).updated_us, row.id]);
    }
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    ctx.body = {
      data: await Promise.all(page.map((row) => present(row, appId, app))),
      nextCursor: last ? cursorAt(last) : (query.cursor ?? null),
      hasMore: rows.length > query.limit,
    } satisfies KeyPaymentPage;
  });

  router.post('/', anyKey, async (ctx) => {
    const body = parseOrThrow(createPaymentBodySchema, ctx.request.body, 'payment');
    const { app } = ctx.state.apiKey;
    await deps.rateLimiter.consumeCreate('paymentCreatesPerApp', app);
    const { payment, created } = await createPayment(deps, app, body, { keyless: false });
    if (created) deps.metrics.paymentsCreated.inc({ interface: 'payment' });
    ctx.status = created ? 201 : 200;
    ctx.body = await present(payment, ctx.state.apiKey.appId, app);
  });

  router.post('/payments', async (ctx) => {
    const { appId, ...body } = parseOrThrow(createPaymentByAppIdBodySchema, ctx.request.body, 'payment');
    // Keyless creates have budgets of their own (per client, in all, per app): a flood of them never uses up the
    // merchant's keyed creates, and one client can't use up everyone's.
    await deps.rateLimiter.consume(['keylessCreatesPerIp', ctx.ip], ['keylessCreatesGlobal', 'all']);
    const app = await findMerchantApp({ knex, appId });
    if (!app) throw invalidRequest('invalid payment', [{ path: 'appId', message: `no merchant app ${appId}` }]);
    await deps.rateLimiter.consume(['keylessCreatesPerApp', app.app_id]);
    const { payment, created } = await createPayment(deps, app, body, { keyless: true });
    if (created) deps.metrics.paymentsCreated.inc({ interface: 'payment' });
    ctx.status = created ? 201 : 200;
    ctx.body = await present(payment, null, app);
  });

  router.get('/payments/order/:appId/:orderId', anyKey, async (ctx) => {
    const appId = parseOrThrow(appIdSchema, ctx.params.appId, 'appId', 'appId');
    const orderId = parseOrThrow(orderIdSchema, ctx.params.orderId, 'orderId', 'orderId');
    // A key never sees another app's payments, not even whether they exist.
    if (appId !== ctx.state.apiKey.appId) throw notFound('payment');
    const payment = await findMerchantPaymentByOrder({ knex, appId, orderId });
    if (!payment) throw notFound('payment');
    ctx.body = await present(payment, ctx.state.apiKey.appId);
  });

  // The payment link's id is public (customers have it): without the owning app's key, its private fields are null.
  router.get('/payments/:id', optionalKey, async (ctx) => {
    const id = parseOrThrow(paymentIdParamSchema, ctx.params.id, 'payment id', 'id');
    const payment = await findPaymentById({ knex, id });
    if (!payment) throw notFound('payment');
    // The key's app, read with the key, is the payment's own when its merchant polls: not read a second time.
    const { apiKey } = ctx.state;
    ctx.body = await present(payment, apiKey?.appId ?? null, apiKey?.appId === payment.app_id ? apiKey.app : undefined);
  });

  // Accept as paid: the payment completes with what arrived; an Admin key of its own app.
  router.post('/:id/accept', adminKey, async (ctx) => {
    const id = parseOrThrow(paymentIdParamSchema, ctx.params.id, 'payment id', 'id');
    ctx.body = await present(await acceptAsPaid(deps, ctx.state.apiKey.appId, id), ctx.state.apiKey.appId, ctx.state.apiKey.app);
  });

  // Merchant refunds: money leaves the treasury, so only an Admin key of the payment's own app.
  router.post('/:id/refunds', adminKey, async (ctx) => {
    const id = parseOrThrow(paymentIdParamSchema, ctx.params.id, 'payment id', 'id');
    const idempotencyKey = parseOrThrow(idempotencyKeySchema, ctx.get('idempotency-key') || undefined, 'Idempotency-Key header', 'Idempotency-Key');
    const body = parseOrThrow(createRefundBodySchema, ctx.request.body, 'refund');
    const { refund, payment, created } = await createRefund(deps, ctx.state.apiKey.appId, id, idempotencyKey, body);
    ctx.status = created ? 201 : 200;
    ctx.body = toRefundResource(deps, refund, payment);
  });

  router.get('/:id/refunds', adminKey, async (ctx) => {
    const id = parseOrThrow(paymentIdParamSchema, ctx.params.id, 'payment id', 'id');
    const { payment, refunds } = await listRefunds(deps, ctx.state.apiKey.appId, id);
    ctx.body = { data: refunds.map((refund) => toRefundResource(deps, refund, payment)) };
  });

  // A claim nobody made within the claim window goes back to the payment's sender, when the merchant says so.
  router.post('/:id/refunds/:refundId/send-to-sender', adminKey, async (ctx) => {
    const id = parseOrThrow(paymentIdParamSchema, ctx.params.id, 'payment id', 'id');
    const refundId = parseOrThrow(refundIdParamSchema, ctx.params.refundId, 'refund id', 'refundId');
    const { refund, payment } = await sendRefundToSender(deps, ctx.state.apiKey.appId, id, refundId);
    ctx.body = toRefundResource(deps, refund, payment);
  });

  return router;
}
