import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from '../lib/logger';
import type { ApiMetrics } from '../lib/metrics';
import { checkReadiness } from '../services/health';
import { ApiError, errorMiddleware, standardErrorBody } from './errors';
import { isLegacyPath, legacyErrorBody } from './legacy/errors';
import { dashboardAppRoutes } from './routes/dashboard-app';
import { merchantRoutes, type MerchantRoutesDeps } from './routes/merchant';
import { docsRoutes } from './routes/docs';
import { orderRoutes } from './routes/orders';
import { payRoutes } from './routes/pay';
import { refundClaimRoutes } from './routes/refund-claims';
import { paymentRoutes, type PaymentRoutesDeps } from './routes/payments';

export type ApiDeps = PaymentRoutesDeps &
  MerchantRoutesDeps & {
    log: Logger;
    /** Proxies whose X-Forwarded-For entries are trusted for the client IP (rate limits); 0 = the socket's. */
    trustedProxyHops: number;
    /** Legacy orders expire this long after creation when unpaid (spec 8: 60 minutes). */
    orderTtlSeconds?: number;
    metrics: ApiMetrics;
    /** Set while the process drains before exiting: /readyz then sends load balancers elsewhere. */
    lifecycle: { draining: boolean };
  };

export const PAYMENT_API_PREFIX = '/v1/payment-api';
export const MERCHANT_API_PREFIX = '/v1/merchant-api';

/** Builds the HTTP application; `api/server.ts` is the only place that listens. */
export function createApp(deps: ApiDeps): Koa {
  // With N trusted hops, ctx.ip is the N-th X-Forwarded-For entry from the right: the last one a client can't forge.
  const app = new Koa({ proxy: deps.trustedProxyHops > 0, maxIpsCount: deps.trustedProxyHops });
  app.use(async (ctx, next) => {
    const end = deps.metrics.httpDuration.startTimer({ method: ctx.method });
    try {
      await next();
    } finally {
      // The route pattern, never the raw path: ids in paths would make a series per payment.
      end({ route: (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched', status: String(ctx.status) });
    }
  });
  // Over https (seen directly, or as X-Forwarded-Proto from a trusted proxy) browsers are told to stay on https.
  app.use(async (ctx, next) => {
    if (ctx.secure) ctx.set('strict-transport-security', 'max-age=31536000; includeSubDomains');
    await next();
  });
  app.use(errorMiddleware(deps.log, (path) => (isLegacyPath(path) ? legacyErrorBody : standardErrorBody)));
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
  // Liveness: the process serves requests. Readiness: it can do its work (PostgreSQL and Temporal answer).
  root.get('/livez', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  root.get('/readyz', async (ctx) => {
    const readiness = await checkReadiness({ knex: deps.knex, client: deps.temporal.client });
    const ready = readiness.ready && !deps.lifecycle.draining;
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : deps.lifecycle.draining ? 'draining' : 'not_ready', checks: readiness.checks };
  });
  const payments = paymentRoutes(deps);
  root.use(PAYMENT_API_PREFIX, payments.routes(), payments.allowedMethods());
  const merchant = merchantRoutes(deps);
  root.use(MERCHANT_API_PREFIX, merchant.routes(), merchant.allowedMethods());
  // Legacy orders (`POST /v1/orders`), the hosted payment page (`/pay/...`) and the merchant dashboard (`/dashboard`).
  const legacyDeps = { ...deps, orderTtlSeconds: deps.orderTtlSeconds ?? 3600 };
  for (const router of [orderRoutes(legacyDeps), payRoutes(legacyDeps), refundClaimRoutes(deps), dashboardAppRoutes(), docsRoutes(deps)]) root.use(router.routes(), router.allowedMethods());
  app.use(root.routes());
  app.use(root.allowedMethods());
  return app;
}
