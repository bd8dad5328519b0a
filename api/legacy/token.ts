import type { Knex } from 'knex';
import type { Middleware } from 'koa';
import { findActiveApiKeyByHash } from '../../db/queries/merchants';
import { hashApiKey } from '../../lib/api-keys';
import { ApiError } from '../errors';
import type { ApiKeyState } from '../middleware/api-key';
import type { RateLimiter } from '../../services/rate-limits';

/**
 * The legacy interface authenticates with the merchant's API key in a `token` header (spec 5). Orders and Admin
 * keys both work; a revoked key fails at once because every request reads the key row. Unknown tokens count as
 * authentication failures of the client, exactly like bad `X-API-Key`s.
 */
export function requireLegacyToken(deps: { knex: Knex; rateLimiter: RateLimiter }): Middleware<ApiKeyState> {
  return async (ctx, next) => {
    const presented = ctx.get('token').trim();
    if (!presented) throw new ApiError(401, 'missing_api_key', 'send your API key in the token header');
    const key = await deps.rateLimiter.authenticate(
      ctx.ip,
      () => findActiveApiKeyByHash({ knex: deps.knex, keyHash: hashApiKey(presented) }),
      () => new ApiError(401, 'invalid_api_key', 'the API key in the token header is unknown or revoked'),
    );
    ctx.state.apiKey = { id: key.id, appId: key.app_id, scope: key.scope, app: key.app };
    await next();
  };
}
