import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { PAY_BUILD_DIR } from '../../lib/web-build';
import { orderLogParam, paymentLogParam } from '../log-context';
import { findMerchantApp } from '../../db/queries/merchants';
import { findOrderById } from '../../db/queries/orders';
import { listPayins } from '../../db/queries/payins';
import { findPaymentById } from '../../db/queries/payments';
import type { OrderRow, PaymentRow } from '../../db/tables';
import { ApiError, notFound } from '../errors';
import { ASSET_PREFIX, PAGE_SECURITY_HEADERS, renderNotFoundPage, renderPayPage } from '../pages/render';
import { orderPageState, paymentPageState, walletRequestOf, type PageState } from '../../services/pay-page';
import type { PayWallet } from '../schemas/pay';
import { chooseCurrencyBodySchema, orderIdParamSchema } from '../schemas/orders';
import { cancelOrder, chooseOrderCurrency, type OrderServiceDeps } from '../../services/orders';
import { parseOrThrow } from '../validation';

const WEB_DIR = path.resolve(__dirname, '../../web/pay');
/** The page's files: its stylesheet and script as written, and the wallet script as Vite bundled it (tools/build-web.ts). */
const ASSETS: Record<string, { dir: string; type: string }> = {
  'pay.css': { dir: WEB_DIR, type: 'text/css; charset=utf-8' },
  'pay.js': { dir: WEB_DIR, type: 'text/javascript; charset=utf-8' },
  'claim.js': { dir: WEB_DIR, type: 'text/javascript; charset=utf-8' },
  'wallet.js': { dir: PAY_BUILD_DIR, type: 'text/javascript; charset=utf-8' },
};

/**
 * The hosted payment page (`/pay/<payment id>`, and `/pay/order/<order id>` = a legacy order's `payment_url`), its
 * polled JSON state, and the customer's two actions on an order: choosing a currency and cancelling.
 */
export function payRoutes(deps: OrderServiceDeps): Router {
  const { knex, chains } = deps;
  const router = new Router();
  router.param('orderId', orderLogParam);
  router.param('id', paymentLogParam);
  // Read once; a file that is absent (the wallet script before its build) is looked for again at the next request.
  const assets = new Map<string, { type: string; body: Buffer }>();
  const asset = (file: string) => {
    const known = assets.get(file);
    const source = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (known || !source || !existsSync(path.join(source.dir, file))) return known;
    const loaded = { type: source.type, body: readFileSync(path.join(source.dir, file)) };
    assets.set(file, loaded);
    return loaded;
  };

  const merchantName = async (appId: string) => (await findMerchantApp({ knex, appId }))?.name ?? appId;
  const isUuid = (id: string) => orderIdParamSchema.safeParse(id).success;

  const loadOrder = async (id: string): Promise<{ order: OrderRow; payment: PaymentRow | null } | null> => {
    if (!isUuid(id)) return null;
    const order = await findOrderById({ knex, id });
    if (!order) return null;
    return { order, payment: order.payment_id ? ((await findPaymentById({ knex, id: order.payment_id })) ?? null) : null };
  };
  const payinsOf = async (payment: PaymentRow | null) => (payment ? listPayins({ knex, paymentId: payment.id }) : []);
  const orderState = async ({ order, payment }: { order: OrderRow; payment: PaymentRow | null }): Promise<PageState> =>
    orderPageState({ order, payment, payins: await payinsOf(payment), chains, merchant: await merchantName(order.app_id) });
  const paymentState = async (payment: PaymentRow): Promise<PageState> =>
    paymentPageState({ payment, payins: await payinsOf(payment), chains, merchant: await merchantName(payment.app_id) });

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
    const found = asset(ctx.params.file ?? '');
    if (!found) throw notFound('asset');
    ctx.set('cache-control', 'public, max-age=300');
    ctx.set('x-content-type-options', 'nosniff');
    ctx.type = found.type;
    ctx.body = found.body;
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
    html(ctx, 200, await renderPayPage(await paymentState(payment), { state: `/pay/${payment.id}/state` }));
  });

  router.get('/pay/:id/state', async (ctx) => {
    const payment = await loadPayment(ctx.params.id ?? '');
    if (!payment) throw new ApiError(404, 'not_found', 'payment not found');
    json(ctx, await paymentState(payment));
  });

  router.get('/pay/:id/wallet', async (ctx) => {
    const payment = await loadPayment(ctx.params.id ?? '');
    if (!payment) throw new ApiError(404, 'not_found', 'payment not found');
    if (payment.status !== 'payment_unpaid') throw new ApiError(409, 'payment_not_payable', 'this payment is not waiting for a payment any more');
    const wallet = await walletRequestOf(payment, chains);
    if (!wallet) throw new ApiError(409, 'wallet_not_supported', "this payment's network is paid by wallet link or QR code, not by a connected wallet");
    json(ctx, { payment_id: payment.id, wallet } satisfies PayWallet);
  });

  return router;
}
