import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Knex } from 'knex';
import { listDeveloperAppIds } from '../../db/queries/merchants';
import { listWebhookDeliveries } from '../../db/queries/webhook-deliveries';
import { listWebhookDeliveriesQuerySchema } from '../schemas/webhook-deliveries';
import { toWebhookDeliveryRecord } from '../serializers/webhook-delivery';
import { parseOrThrow } from '../validation';

/** What the dashboard's JWT middleware leaves in `ctx.state` for an authenticated developer. */
export interface DeveloperState {
  developer: { id: string; email: string };
}

/**
 * The webhook delivery log (spec 2.7, 4.2), for the merchant service at `{merchant_api_url}`. The JWT
 * middleware is handed in, so this router does not depend on how developers log in.
 */
export function webhookDeliveryRoutes(deps: { knex: Knex; requireJwt: Middleware<DeveloperState> }): Router<DeveloperState> {
  const { knex } = deps;
  const router = new Router<DeveloperState>();

  router.get('/me/webhook/deliveries', deps.requireJwt, async (ctx) => {
    const { limit } = parseOrThrow(listWebhookDeliveriesQuerySchema, ctx.query, 'query');
    const appIds = await listDeveloperAppIds({ knex, developerId: ctx.state.developer.id });
    const rows = appIds.length === 0 ? [] : await listWebhookDeliveries({ knex, appIds, limit });
    ctx.body = { data: rows.map(toWebhookDeliveryRecord) };
  });

  return router;
}
