import Router from '@koa/router';
import { findDeveloperApp, listApiKeys, listDeveloperAppIds, listDeveloperApps, revokeApiKey, updateWebhookUrl } from '../../db/queries/merchants';
import { listWebhookDeliveries } from '../../db/queries/webhook-deliveries';
import type { MerchantAppRow } from '../../db/tables';
import { LOGIN_CODE_TTL_SECONDS } from '../../lib/login-codes';
import { notFound } from '../errors';
import { requireApiKey, type ApiKeyState } from '../middleware/api-key';
import { requireJwt, type DeveloperState } from '../middleware/jwt';
import { appIdSchema } from '../schemas/common';
import {
  apiKeyIdSchema,
  createApiKeyBodySchema,
  loginCodeRequestSchema,
  registerBodySchema,
  statsQuerySchema,
  tokenRequestSchema,
  webhookUpdateBodySchema,
} from '../schemas/merchant';
import { toApiKeyResource, toAppResource } from '../serializers/merchant';
import { toWebhookDeliveryRecord } from '../serializers/webhook-delivery';
import { listWebhookDeliveriesQuerySchema } from '../schemas/webhook-deliveries';
import {
  checkWebhookUrl,
  createApiKey,
  exchangeLoginCode,
  registerApp,
  rotateWebhookSecret,
  sendLoginCode,
  type AccountServiceDeps,
} from '../../services/accounts';
import { merchantStats } from '../../services/stats';
import { parseOrThrow } from '../validation';

export type MerchantRoutesDeps = AccountServiceDeps;

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
  const developer = requireJwt(deps);
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
    await sendLoginCode(services, email, ctx.ip);
    ctx.status = 202;
    ctx.body = { message: 'if the address can receive mail, a login code is on its way', expiresInSeconds: LOGIN_CODE_TTL_SECONDS };
  });

  router.post('/auth/token', async (ctx) => {
    const login = parseOrThrow(tokenRequestSchema, ctx.request.body, 'token request');
    ctx.body = await exchangeLoginCode(services, login, ctx.ip);
  });

  router.post('/register', developer, async (ctx) => {
    const body = parseOrThrow(registerBodySchema, ctx.request.body, 'registration');
    const { app, webhookSecret } = await registerApp(services, ctx.state.developer.id, body);
    ctx.status = 201;
    ctx.body = { ...toAppResource(app), webhookSecret };
  });

  router.get('/apps', developer, async (ctx) => {
    ctx.body = { data: (await listDeveloperApps({ knex, developerId: ctx.state.developer.id })).map(toAppResource) };
  });

  router.post('/apps/:appId/keys', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const body = parseOrThrow(createApiKeyBodySchema, ctx.request.body, 'API key');
    const { row, key } = await createApiKey(services, app.app_id, body);
    ctx.status = 201;
    ctx.body = { ...toApiKeyResource(row), key };
  });

  router.get('/apps/:appId/keys', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    ctx.body = { data: (await listApiKeys({ knex, appId: app.app_id })).map(toApiKeyResource) };
  });

  router.delete('/apps/:appId/keys/:keyId', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const keyId = parseOrThrow(apiKeyIdSchema, ctx.params.keyId, 'API key id', 'keyId');
    const revoked = await revokeApiKey({ knex, appId: app.app_id, keyId });
    if (!revoked) throw notFound(`API key ${keyId}`);
    ctx.body = toApiKeyResource(revoked);
  });

  router.put('/apps/:appId/webhook', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const { webhookUrl } = parseOrThrow(webhookUpdateBodySchema, ctx.request.body, 'webhook');
    ctx.body = toAppResource(await updateWebhookUrl({ knex, appId: app.app_id, webhookUrl: await checkWebhookUrl(deps, webhookUrl) }));
  });

  router.post('/apps/:appId/webhook/rotate', developer, async (ctx) => {
    const app = await ownApp(ctx.state.developer.id, ctx.params.appId!);
    const rotated = await rotateWebhookSecret(services, app.app_id);
    ctx.body = {
      webhookSecret: rotated.webhookSecret,
      webhookSecretFingerprint: rotated.app.webhook_secret_fingerprint,
      webhookSecretRotatedAt: rotated.app.webhook_secret_rotated_at?.toISOString(),
    };
  });

  router.get('/me/webhook/deliveries', developer, async (ctx) => {
    const { limit } = parseOrThrow(listWebhookDeliveriesQuerySchema, ctx.query, 'query');
    const appIds = await listDeveloperAppIds({ knex, developerId: ctx.state.developer.id });
    const rows = appIds.length === 0 ? [] : await listWebhookDeliveries({ knex, appIds, limit });
    ctx.body = { data: rows.map(toWebhookDeliveryRecord) };
  });

  router.get('/me/stats', adminKey, async (ctx) => {
    const { period } = parseOrThrow(statsQuerySchema, ctx.query, 'stats query');
    ctx.body = await merchantStats(services, ctx.state.apiKey.appId, period);
  });

  return router;
}
