import type { Middleware } from 'koa';
import type { Knex } from 'knex';
import { findActiveApiKeyByHash } from '../../db/queries/merchants';
import type { ApiKeyScope } from '../../db/tables';
import { hashApiKey } from '../../lib/api-keys';
import { ApiError } from '../errors';

export interface ApiKeyState {
  apiKey: { id: string; appId: string; scope: ApiKeyScope };
}

/** Authenticates `X-API-Key` per route; revoked keys fail at once because every request reads the key row. */
export function requireApiKey(knex: Knex, scopes: ApiKeyScope[]): Middleware<ApiKeyState> {
  return async (ctx, next) => {
    const presented = ctx.get('x-api-key');
    if (!presented) throw new ApiError(401, 'missing_api_key', 'send your API key in the X-API-Key header');
    const key = await findActiveApiKeyByHash({ knex, keyHash: hashApiKey(presented) });
    if (!key) throw new ApiError(401, 'invalid_api_key', 'the API key is unknown or revoked');
    if (!scopes.includes(key.scope)) {
      throw new ApiError(403, 'scope_insufficient', `this endpoint requires an API key with scope ${scopes.join(' or ')}`);
    }
    ctx.state.apiKey = { id: key.id, appId: key.app_id, scope: key.scope };
    await next();
  };
}
