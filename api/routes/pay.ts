import { readFileSync } from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { findMerchantApp } from '../../db/queries/merchants';
import { findOrderById } from '../../db/queries/orders';
import { findPaymentById } from '../../db/queries/payments';
import type { OrderRow, PaymentRow } from '../../db/tables';
import { ApiError, notFound } from '../errors';
import { ASSET_PREFIX, PAGE_SECURITY_HEADERS, renderNotFoundPage, renderPayPage } from '../pages/render';
import { orderPageState, paymentPageState, type PageState } from '../../services/pay-page';
import { chooseCurrencyBodySchema, orderIdParamSchema } from '../schemas/orders';
import { cancelOrder, chooseOrderCurrency, type OrderServiceDeps } from '../../services/orders';
import { parseOrThrow } from '../validation';

const WEB_DIR = path.resolve(__dirname, '../../web/pay');
const ASSETS: Record<string, string> = { 'pay.css': 'text/css; charset=utf-8', 'pay.js': 'text/javascript; charset=utf-8' };

/**
 * The hosted payment page (`/pay/<payment id>`, and `/pay/order/<order id>` = a legacy order's `payment_url`), its
 * polled JSON state, and the customer's two actions on an order: choosing a currency and cancelling.
 */
export function payRoutes(deps: OrderServiceDeps): Router {
  const { knex, chains } = deps;
  const router = new Router();
  const assets = new Map(Object.entries(ASSETS).map(([file, type]) => [file, { type, body: readFileSync(path.join(WEB_DIR, file)) }]));

  const merchantName = async (appId: string) => (await findMerchantApp({ knex, appId }))?.name ?? appId;
  const isUuid = (id: string) => orderIdParamSchema.safeParse(id).success;

  const loadOrder = async (id: string): Promise<{ order: OrderRow; payment: PaymentRow | null } | null> => {
    if (!isUuid(id)) return null;
    const order = await findOrderById({ knex, id });
    if (!order) return null;
    return { order, payment: order.payment_id ? ((await findPaymentById({ knex, id: order.payment_id })) ?? null) : null };
  };
  const orderState = async ({ order, payment }: { order: OrderRow; payment: PaymentRow | null }): Promise<PageState> =>
    orderPageState({ order, payment, chains, merchant: await merchantName(order.app_id) });

  const html = (ctx: Context, status: number, body: string) => {
    ctx.status = status;
    ctx.set(PAGE_SECURITY_HEADERS);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = body;
  };
  const json = (ctx: Context, body: unknown) => {
    ctx.set('cache-control', 'no-store');
    ctx.body = body;
  };

  router.get(`${ASSET_PREFIX}/:file`, (ctx) => {
    const asset = assets.get(ctx.params.file ?? '');
    if (!asset) throw notFound('asset');
    ctx.set('cache-control', 'public, max-age=300');
    ctx.set('x-content-type-options', 'nosniff');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });

  router.get('/pay/order/:orderId', async (ctx) => {
    const found = await loadOrder(ctx.params.orderId ?? '');
    if (!found) return html(ctx, 404, renderNotFoundPage('order'));
    const base = `/pay/order/${found.order.id}`;
    html(ctx, 200, await renderPayPage(await orderState(found), { state: `${base}/state`, choose: `${base}/currency`, cancel: `${base}/cancel` }));
  });

  router.get('/pay/order/:orderId/state', async (ctx) => {
    const found = await loadOrder(ctx.params.orderId ?? '');
    if (!found) throw notFound('order');
    json(ctx, await orderState(found));
  });

  router.post('/pay/order/:orderId/currency', async (ctx) => {
    const found = await loadOrder(ctx.params.orderId ?? '');
    if (!found) throw notFound('order');
    const { pay_currency } = parseOrThrow(chooseCurrencyBodySchema, ctx.request.body ?? {}, 'currency choice');
    await chooseOrderCurrency(deps, found.order, pay_currency);
    json(ctx, await orderState((await loadOrder(found.order.id))!));
  });

  router.post('/pay/order/:orderId/cancel', async (ctx) => {
    const found = await loadOrder(ctx.params.orderId ?? '');
    if (!found) throw notFound('order');
    await cancelOrder(deps, found.order);
    json(ctx, await orderState((await loadOrder(found.order.id))!));
  });

  const loadPayment = async (id: string): Promise<PaymentRow | null> => (isUuid(id) ? ((await findPaymentById({ knex, id })) ?? null) : null);

  router.get('/pay/:id', async (ctx) => {
    const payment = await loadPayment(ctx.params.id ?? '');
    if (!payment) return html(ctx, 404, renderNotFoundPage('payment'));
    const state = paymentPageState({ payment, chains, merchant: await merchantName(payment.app_id) });
    html(ctx, 200, await renderPayPage(state, { state: `/pay/${payment.id}/state` }));
  });

  router.get('/pay/:id/state', async (ctx) => {
    const payment = await loadPayment(ctx.params.id ?? '');
    if (!payment) throw new ApiError(404, 'not_found', 'payment not found');
    json(ctx, paymentPageState({ payment, chains, merchant: await merchantName(payment.app_id) }));
  });

  return router;
}
