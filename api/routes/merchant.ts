import Router from '@koa/router';
import type { Context } from 'koa';
import { findDeveloperApp, listApiKeys, listDeveloperAppIds, listDeveloperApps, revokeApiKey, updateAppSettings, updateWebhookUrl } from '../../db/queries/merchants';
import { findAppWebhookEvent, listAppWebhookEvents, listWebhookDeliveries } from '../../db/queries/webhook-deliveries';
import type { MerchantAppRow, WebhookDeliveryRow } from '../../db/tables';
import type { WebhookEventType } from '../../domain/webhook-events';
import { LOGIN_CODE_TTL_SECONDS } from '../../lib/login-codes';
import { notFound } from '../errors';
import { requireApiKey, type ApiKeyState } from '../middleware/api-key';
import { requireDeveloper, SESSION_COOKIE, type DeveloperState } from '../middleware/jwt';
import { dashboardDataRoutes, type DashboardDataDeps } from './dashboard-data';
import { appIdSchema } from '../schemas/common';
import {
  apiKeyIdSchema,
  appUpdateBodySchema,
  createApiKeyBodySchema,
  loginCodeRequestSchema,
  registerBodySchema,
  statsQuerySchema,
  tokenRequestSchema,
  webhookUpdateBodySchema,
  type ApiKeyList,
  type AppList,
  type CreatedApiKey,
  type DashboardSession,
  type DashboardToken,
  type LoginCodeSent,
  type MerchantStats,
  type RegisteredApp,
  type WebhookSecretRotation,
  type WebhookTestResult,
} from '../schemas/merchant';
import { toApiKeyResource, toAppResource } from '../serializers/merchant';
import { toWebhookDeliveryRecord } from '../serializers/webhook-delivery';
import { listWebhookDeliveriesQuerySchema, type WebhookDeliveryLog } from '../schemas/webhook-deliveries';
import {
  checkWebhookUrl,
  createApiKey,
  exchangeLoginCode,
  registerApp,
  sessionIdHash,
  startDashboardSession,
  rotateWebhookSecret,
  sendLoginCode,
  type AccountServiceDeps,
} from '../../services/accounts';
import { merchantStats } from '../../services/stats';
import { appStatement, statementCsv } from '../../services/statements';
import {
  encodeCursor,
  eventIdParamSchema,
  eventListQuerySchema,
  statementQuerySchema,
  statementSchema,
  type EventPage,
  type WebhookEvent,
} from '../schemas/listing';
import type { z } from 'zod';
import { createWebhookService } from '../../services/webhooks';
import { deleteDashboardSession, findDashboardSession } from '../../db/queries/sessions';
import { ApiError } from '../errors';
import { parseOrThrow } from '../validation';

export type MerchantRoutesDeps = AccountServiceDeps & DashboardDataDeps & { webhookTimeoutMs: number };

type MerchantState = ApiKeyState & DeveloperState;

/**
 * The merchant service (spec 4.2), mounted at `{merchant_api_url}`: dashboard login, registration, the
 * dashboard's JSON endpoints (JWT, `developer`) and the key-authenticated `/me/stats`. New dashboard endpoints
 * go here behind `developer`.
 */
export function merchantRoutes(deps: MerchantRoutesDeps): Router<MerchantState> {
  const { knex } = deps;
  const services: AccountServiceDeps = deps;
  const router = new Router<MerchantState>();
  const developer = requireDeveloper(deps);
  const secureCookies = deps.publicBaseUrl.startsWith('https:');
  /** Sets (or, with an empty value, clears) the session cookie; `Secure` whenever the dashboard is served over https. */
  const setSessionCookie = (ctx: Context, value: string, expires: Date) => {
    // Behind a TLS-terminating proxy the socket is plain http; the public origin decides.
    if (secureCookies) ctx.cookies.secure = true;
    ctx.cookies.set(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'strict', path: '/', secure: secureCookies, expires, overwrite: true });
  };
  const adminKey = requireApiKey(deps, ['Admin']);

  /** The `:appId` of the path, if the logged-in developer owns it; anyone else's app is a 404. */
  const ownApp = async (developerId: string, rawAppId: string): Promise<MerchantAppRow> => {
    const appId = parseOrThrow(appIdSchema, rawAppId, 'appId', 'appId');
    const app = await findDeveloperApp({ knex, developerId, appId });
    if (!app) throw notFound(`app ${appId}`);
    return app;
  };

  router.post('/auth/login-code', async (ctx) => {
    const { email } = parseOrThrow(loginCodeRequestSchema, ctx.request.body, 'login code request');
    const { loginId } = await sendLoginCode(services, email, ctx.ip);
    ctx.status = 202;
    ctx.body = { message: 'if the address can receive mail, a login code is on its way', expiresInSeconds: LOGIN_CODE_TTL_SECONDS, loginId } satisfies LoginCodeSent;
  });

  router.post('/auth/token', async (ctx) => {
    const login = parseOrThrow(tokenRequestSchema, ctx.request.body, 'token request');
    ctx.body = (await exchangeLoginCode(services, login, ctx.ip)) satisfies DashboardToken;
  });

  /** The dashboard's login: the same code, traded for an HttpOnly session cookie instead of a token. */
  router.post('/auth/session', async (ctx) => {
    const login = parseOrThrow(tokenRequestSchema, ctx.request.body, 'login');
    const session = await startDashboardSession(services, login, ctx.ip);
    setSessionCookie(ctx, session.sessionId, session.expiresAt);
    ctx.body = { developerId: session.developerId, email: session.email, expiresAt: session.expiresAt.toISOString() } satisfies DashboardSession;
  });

  router.get('/auth/session', async (ctx) => {
    const sessionId = ctx.cookies.get(SESSION_COOKIE);
    const session = sessionId ? await findDashboardSession({ knex, idHash: sessionIdHash(sessionId) }) : undefined;
    if (!session) throw new ApiError(401, 'session_expired', 'not logged in to the dashboard');
    ctx.body = { developerId: session.developerId, email: session.email, expiresAt: session.expiresAt.toISOString() } satisfies DashboardSession;
  });

  /** Logout ends the session server-side: the cookie's value is useless afterwards, also if it was copied. */
  router.delete('/auth/session', developer, async (ctx) => {
    const sessionId = ctx.cookies.get(SESSION_COOKIE);
    if (sessionId) await deleteDashboardSession({ knex, idHash: sessionIdHash(sessionId) });
    setSessionCookie(ctx, '', new Date(0));
    ctx.status = 204;
  });

  router.post('/register', developer, async (ctx) => {
    const body = parseOrThrow(registerBodySchema, ctx.request.body, 'registration');
    await services.rateLimiter.consume(['registrationsPerIp', ctx.ip]);
    const { app, webhookSecret } = await registerApp(services, ctx.state.developer.id, body);
    ctx.status = 201;
    ctx.body = { ...toAppResource(app), webhookSecret } satisfies RegisteredApp;
  });

  router.get('/apps', developer, async (ctx) => {
    ctx.body = { data: (await listDeveloperApps({ knex, developerId: ctx.state.developer.id })).map(toAppResource) } satisfies AppList;
  });

  router.post('/apps/:appId/keys', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const body = parseOrThrow(createApiKeyBodySchema, ctx.request.body, 'API key');
    const { row, key } = await createApiKey(services, app.app_id, body);
    ctx.status = 201;
    ctx.body = { ...toApiKeyResource(row), key } satisfies CreatedApiKey;
  });

  router.get('/apps/:appId/keys', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    ctx.body = { data: (await listApiKeys({ knex, appId: app.app_id })).map(toApiKeyResource) } satisfies ApiKeyList;
  });

  router.delete('/apps/:appId/keys/:keyId', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const keyId = parseOrThrow(apiKeyIdSchema, ctx.params.keyId, 'API key id', 'keyId');
    const revoked = await revokeApiKey({ knex, appId: app.app_id, keyId });
    if (!revoked) throw notFound(`API key ${keyId}`);
    ctx.body = toApiKeyResource(revoked);
  });

  router.patch('/apps/:appId', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const body = parseOrThrow(appUpdateBodySchema, ctx.request.body, 'app settings');
    const settings = {
      ...(body.keylessPayments === undefined ? {} : { keyless_payments: body.keylessPayments }),
      ...(body.underpaymentToleranceBps === undefined ? {} : { underpayment_tolerance_bps: body.underpaymentToleranceBps }),
    };
    ctx.body = toAppResource(await updateAppSettings({ knex, appId: app.app_id, settings }));
  });

  router.put('/apps/:appId/webhook', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const { webhookUrl } = parseOrThrow(webhookUpdateBodySchema, ctx.request.body, 'webhook');
    ctx.body = toAppResource(await updateWebhookUrl({ knex, appId: app.app_id, webhookUrl: await checkWebhookUrl(deps, webhookUrl) }));
  });

  router.post('/apps/:appId/webhook/rotate', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const { app: rotated, webhookSecret } = await rotateWebhookSecret(services, app.app_id);
    const { webhookSecretFingerprint, webhookSecretRotatedAt } = toAppResource(rotated);
    ctx.body = { webhookSecret, webhookSecretFingerprint, webhookSecretRotatedAt } satisfies WebhookSecretRotation;
  });

  const webhooks = createWebhookService({
    knex,
    chains: deps.chains,
    log: deps.log,
    secrets: deps.secretBox,
    webhooks: { allowPrivateNetworks: deps.webhookAllowPrivateNetworks, timeoutMs: deps.webhookTimeoutMs },
  });
  router.post('/apps/:appId/webhook/test', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    ctx.body = (await webhooks.sendTestWebhook(app.app_id)) satisfies WebhookTestResult;
  });

  router.get('/me/webhook/deliveries', developer, async (ctx) => {
    const { limit } = parseOrThrow(listWebhookDeliveriesQuerySchema, ctx.query, 'query');
    const appIds = await listDeveloperAppIds({ knex, developerId: ctx.state.developer.id });
    const rows = appIds.length === 0 ? [] : await listWebhookDeliveries({ knex, appIds, limit });
    ctx.body = { data: rows.map(toWebhookDeliveryRecord) } satisfies WebhookDeliveryLog;
  });

  dashboardDataRoutes(router, deps, developer, ownApp);

  /** A webhook event as a merchant's server reads it: the body's `data` as it was sent, and the delivery's outcome. */
  const toWebhookEvent = (row: WebhookDeliveryRow): WebhookEvent => ({
    eventId: row.delivery_id,
    eventType: row.event_type as WebhookEventType,
    paymentId: row.payment_id!,
    createdAt: row.created_at.toISOString(),
    data: row.body === null ? null : (JSON.parse(row.body) as { data: Record<string, unknown> }).data,
    delivery: { status: row.status, statusCode: row.status_code, deliveredAt: row.delivered_at?.toISOString() ?? null, url: row.url },
  });

  // The app's webhook events (kept with the delivery log, which nothing deletes): what a server that missed a
  // delivery reconciles from. Nothing is re-sent: delivery stays at most once.
  router.get('/events', adminKey, async (ctx) => {
    const query = parseOrThrow(eventListQuerySchema, ctx.query, 'query');
    const rows = await listAppWebhookEvents({
      knex,
      appId: ctx.state.apiKey.appId,
      filter: { eventType: query.type, since: query.since, delivered: query.delivered },
      afterId: query.cursor?.id,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    ctx.body = {
      data: page.map(toWebhookEvent),
      nextCursor: last ? encodeCursor(['e', last.delivery_id]) : (typeof ctx.query.cursor === 'string' ? ctx.query.cursor : null),
      hasMore: rows.length > query.limit,
    } satisfies EventPage;
  });

  router.get('/events/:id', adminKey, async (ctx) => {
    const eventId = parseOrThrow(eventIdParamSchema, ctx.params.id, 'event id', 'id');
    const row = await findAppWebhookEvent({ knex, appId: ctx.state.apiKey.appId, eventId });
    if (!row) throw notFound(`event ${eventId}`);
    ctx.body = toWebhookEvent(row);
  });

  /**
   * An app's statement: its Admin key, or the developer who owns it (the dashboard's Export). Another app's key,
   * like another developer, finds no such app.
   */
  const authenticated = async () => {};
  router.get('/apps/:appId/statement', async (ctx) => {
    let app: MerchantAppRow;
    if (ctx.get('x-api-key')) {
      await adminKey(ctx, authenticated);
      const appId = parseOrThrow(appIdSchema, ctx.params.appId, 'appId', 'appId');
      if (ctx.state.apiKey.appId !== appId) throw notFound(`app ${appId}`);
      app = ctx.state.apiKey.app;
    } else {
      await developer(ctx, authenticated);
      app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    }
    const query = parseOrThrow(statementQuerySchema, ctx.query, 'statement query');
    const statement = (await appStatement({ knex, registry: deps.chains.registry }, { appId: app.app_id, from: query.from, to: query.to })) satisfies z.input<typeof statementSchema>;
    if (query.format === 'csv') {
      ctx.type = 'text/csv; charset=utf-8';
      ctx.attachment(`${app.app_id}-statement-${statement.from.slice(0, 10)}-${statement.to.slice(0, 10)}.csv`);
      ctx.body = statementCsv(statement);
    } else {
      ctx.body = statement;
    }
  });

  router.get('/me/stats', adminKey, async (ctx) => {
    const { period } = parseOrThrow(statsQuerySchema, ctx.query, 'stats query');
    ctx.body = (await merchantStats(services, ctx.state.apiKey.appId, period)) satisfies MerchantStats;
  });

  return router;
}
