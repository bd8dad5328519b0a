import Router from '@koa/router';
import type { Knex } from 'knex';
import { findMerchantApp } from '../../db/queries/merchants';
import { findPaymentById, findPaymentByOrder } from '../../db/queries/payments';
import type { MerchantAppRow, PaymentRow } from '../../db/tables';
import { invalidRequest, notFound } from '../errors';
import { requireApiKey, type ApiKeyState } from '../middleware/api-key';
import type { RateLimiter } from '../../services/rate-limits';
import { appIdSchema } from '../schemas/common';
import {
  createPaymentBodySchema,
  createPaymentByAppIdBodySchema,
  orderIdSchema,
  paymentIdParamSchema,
} from '../schemas/payments';
import { toChainList } from '../serializers/chains';
import { toPaymentResource } from '../serializers/payment';
import { createPayment, type PaymentServiceDeps } from '../../services/payments';
import { parseOrThrow } from '../validation';

export interface PaymentRoutesDeps extends PaymentServiceDeps {
  knex: Knex;
  publicBaseUrl: string;
  rateLimiter: RateLimiter;
}

/** The payment service (spec 4.1), mounted at `{payment_api_url}`. */
export function paymentRoutes(deps: PaymentRoutesDeps): Router<ApiKeyState> {
  const { knex } = deps;
  const router = new Router<ApiKeyState>();
  const anyKey = requireApiKey(deps, ['Orders', 'Admin']);

  const loadApp = async (appId: string): Promise<MerchantAppRow> => {
    const app = await findMerchantApp({ knex, appId });
    if (!app) throw notFound(`app ${appId}`);
    return app;
  };
  const present = async (row: PaymentRow, app?: MerchantAppRow) =>
    toPaymentResource(row, app ?? (await loadApp(row.app_id)), deps.publicBaseUrl);

  // Public: which chains and tokens payments may use, with decimals and minimums.
  router.get('/chains', (ctx) => {
    ctx.body = toChainList(deps.chains.registry);
  });

  router.post('/', anyKey, async (ctx) => {
    const body = parseOrThrow(createPaymentBodySchema, ctx.request.body, 'payment');
    const app = await loadApp(ctx.state.apiKey.appId);
    await deps.rateLimiter.consume('paymentCreatesPerApp', app.app_id);
    const { payment, created } = await createPayment(deps, app, body);
    ctx.status = created ? 201 : 200;
    ctx.body = await present(payment, app);
  });

  router.post('/payments', async (ctx) => {
    const { appId, ...body } = parseOrThrow(createPaymentByAppIdBodySchema, ctx.request.body, 'payment');
    const app = await findMerchantApp({ knex, appId });
    if (!app) throw invalidRequest('invalid payment', [{ path: 'appId', message: `no merchant app ${appId}` }]);
    await deps.rateLimiter.consume('paymentCreatesPerApp', app.app_id);
    const { payment, created } = await createPayment(deps, app, body);
    ctx.status = created ? 201 : 200;
    ctx.body = await present(payment, app);
  });

  router.get('/payments/order/:appId/:orderId', anyKey, async (ctx) => {
    const appId = parseOrThrow(appIdSchema, ctx.params.appId, 'appId', 'appId');
    const orderId = parseOrThrow(orderIdSchema, ctx.params.orderId, 'orderId', 'orderId');
    // A key never sees another app's payments, not even whether they exist.
    if (appId !== ctx.state.apiKey.appId) throw notFound('payment');
    const payment = await findPaymentByOrder({ knex, appId, orderId });
    if (!payment) throw notFound('payment');
    ctx.body = await present(payment);
  });

  router.get('/payments/:id', async (ctx) => {
    const id = parseOrThrow(paymentIdParamSchema, ctx.params.id, 'payment id', 'id');
    const payment = await findPaymentById({ knex, id });
    if (!payment) throw notFound('payment');
    ctx.body = await present(payment);
  });

  return router;
}
