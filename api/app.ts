import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from '../lib/logger';
import { ApiError, errorMiddleware } from './errors';
import { legacyErrorShape } from './legacy/errors';
import { orderRoutes } from './routes/orders';
import { payRoutes } from './routes/pay';
import { paymentRoutes, type PaymentRoutesDeps } from './routes/payments';

export type ApiDeps = PaymentRoutesDeps & {
  log: Logger;
  /** Legacy orders expire this long after creation when unpaid (spec 8: 60 minutes). */
  orderTtlSeconds?: number;
};

export const PAYMENT_API_PREFIX = '/v1/payment-api';

/** Builds the HTTP application; `api/server.ts` is the only place that listens. */
export function createApp(deps: ApiDeps): Koa {
  const app = new Koa({ proxy: false });
  app.use(errorMiddleware(deps.log));
  app.use(legacyErrorShape());
  app.use(async (ctx, next) => {
    const hasBody = Boolean(ctx.request.length) || ctx.get('transfer-encoding') !== '';
    if (['POST', 'PUT', 'PATCH'].includes(ctx.method) && hasBody && !ctx.is('application/json')) {
      throw new ApiError(415, 'unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
    }
    await next();
  });
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: '64kb',
      encoding: 'utf-8',
      // A body that cannot be decoded (e.g. labelled gzip but not gzip) is the client's error, never a 500.
      onError: (err) => {
        const status = (err as { status?: number }).status;
        throw status && status < 500 ? err : new ApiError(400, 'invalid_request', 'the request body could not be decoded');
      },
    }),
  );

  const root = new Router();
  root.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  const payments = paymentRoutes(deps);
  root.use(PAYMENT_API_PREFIX, payments.routes(), payments.allowedMethods({ throw: true }));
  // Legacy orders (`POST /v1/orders`) and the hosted payment page (`/pay/...`).
  const legacyDeps = { ...deps, orderTtlSeconds: deps.orderTtlSeconds ?? 3600 };
  for (const router of [orderRoutes(legacyDeps), payRoutes(legacyDeps)]) root.use(router.routes(), router.allowedMethods({ throw: true }));
  app.use(root.routes());
  app.use(root.allowedMethods({ throw: true }));
  return app;
}
