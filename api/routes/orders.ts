import Router from '@koa/router';
import { orderLogParam } from '../log-context';
import { findOrderById, listCallbackAttempts } from '../../db/queries/orders';
import { findPaymentById } from '../../db/queries/payments';
import type { OrderRow } from '../../db/tables';
import type { ApiMetrics } from '../../lib/metrics';
import { ApiError } from '../errors';
import { parseLegacyBody } from '../legacy/errors';
import { requireLegacyToken } from '../legacy/token';
import type { ApiKeyState } from '../middleware/api-key';
import { createOrderBodySchema, orderIdParamSchema } from '../schemas/orders';
import { orderResource } from '../../domain/order-resource';
import { toCallbackAttemptResource } from '../serializers/order';
import { withDisplayedDeposit } from '../../services/chains';
import { createOrder, orderPaymentUrl, type OrderServiceDeps } from '../../services/orders';
import type { RateLimiter } from '../../services/rate-limits';

export interface OrderRoutesDeps extends OrderServiceDeps {
  publicBaseUrl: string;
  metrics: ApiMetrics;
  rateLimiter: RateLimiter;
  /** Development and tests: callbacks may go to plain `http://` (and private addresses). */
  webhookAllowPrivateNetworks: boolean;
}

/** The legacy order interface (spec 4.3): `POST /v1/orders`, plus a read of an order and its callback log. */
export function orderRoutes(deps: OrderRoutesDeps): Router<ApiKeyState> {
  const { knex } = deps;
  const router = new Router<ApiKeyState>();
  router.param('id', orderLogParam);
  const token = requireLegacyToken(deps);

  const present = async (order: OrderRow) => {
    const payment = order.payment_id ? await findPaymentById({ knex, id: order.payment_id }) : null;
    return orderResource(order, payment && withDisplayedDeposit(deps.chains.registry, payment), orderPaymentUrl(deps.publicBaseUrl, order.id));
  };

  router.post('/v1/orders', token, async (ctx) => {
    const body = parseLegacyBody(createOrderBodySchema, ctx.request.body, 'order');
    // Callbacks carry the merchant_token and the order's state: never in clear text outside development.
    if (body.callback_url?.startsWith('http:') && !deps.webhookAllowPrivateNetworks) {
      throw new ApiError(400, 'invalid_request', 'invalid order: callback_url', [{ path: 'callback_url', message: 'must start with https://' }]);
    }
    const { app } = ctx.state.apiKey;
    await deps.rateLimiter.consumeCreate('orderCreatesPerApp', app);
    const { order, created } = await createOrder(deps, app, body);
    if (created) deps.metrics.paymentsCreated.inc({ interface: 'legacy' });
    ctx.status = created ? 201 : 200;
    ctx.body = { status: ctx.status, order: await present(order), payment_url: orderPaymentUrl(deps.publicBaseUrl, order.id) };
  });

  router.get('/v1/orders/:id', token, async (ctx) => {
    const parsed = orderIdParamSchema.safeParse(ctx.params.id);
    if (!parsed.success) throw new ApiError(400, 'invalid_request', 'invalid order id', [{ path: 'id', message: 'must be an order id (UUID)' }]);
    const order = await findOrderById({ knex, id: parsed.data });
    // A key never sees another app's orders, not even whether they exist.
    if (!order || order.app_id !== ctx.state.apiKey.appId) throw new ApiError(404, 'not_found', 'order not found');
    const callbacks = await listCallbackAttempts({ knex, orderId: order.id });
    ctx.body = {
      status: 200,
      order: await present(order),
      payment_url: orderPaymentUrl(deps.publicBaseUrl, order.id),
      callbacks: callbacks.map(toCallbackAttemptResource),
    };
  });

  return router;
}
