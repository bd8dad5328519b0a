import type { Middleware } from 'koa';
import type { Knex } from 'knex';
import { findActiveApiKeyByHash, keyUseIsStale, touchApiKey } from '../../db/queries/merchants';
import type { ApiKeyScope, MerchantAppRow } from '../../db/tables';
import { hashApiKey } from '../../lib/api-keys';
import { ApiError } from '../errors';
import type { RateLimiter } from '../../services/rate-limits';

export interface ApiKeyState {
  /** `app`: the key's app as read with the key, so a handler needs no read of its own. */
  apiKey: { id: string; appId: string; scope: ApiKeyScope; app: MerchantAppRow };
}

/**
 * Authenticates `X-API-Key` per route; revoked keys fail at once because every request reads the key row.
 * Unknown keys count as authentication failures of the client; a key that verifies is never refused for them.
 */
export function requireApiKey(deps: { knex: Knex; rateLimiter: RateLimiter }, scopes: ApiKeyScope[]): Middleware<ApiKeyState> {
  return async (ctx, next) => {
    const presented = ctx.get('x-api-key');
    if (!presented) throw new ApiError(401, 'missing_api_key', 'send your API key in the X-API-Key header');
    const key = await deps.rateLimiter.authenticate(
      ctx.ip,
      () => findActiveApiKeyByHash({ knex: deps.knex, keyHash: hashApiKey(presented) }),
      () => new ApiError(401, 'invalid_api_key', 'the API key is unknown or revoked'),
    );
    if (!scopes.includes(key.scope)) {
      const wanted = scopes.map((s) => s.toLowerCase()).join(' or ');
      throw new ApiError(403, 'scope_insufficient', `this key has scope ${key.scope}: an ${wanted}-scope key is required`);
    }
    // The row just read says when the key was last used: most requests have nothing to record.
    if (keyUseIsStale(key.last_used_at)) await touchApiKey({ knex: deps.knex, keyId: key.id });
    ctx.state.apiKey = { id: key.id, appId: key.app_id, scope: key.scope, app: key.app };
    await next();
  };
}

/** `requireApiKey` when an `X-API-Key` is sent (a bad one is still a 401); without one the request goes on unauthenticated. */
export function optionalApiKey(deps: { knex: Knex; rateLimiter: RateLimiter }, scopes: ApiKeyScope[]): Middleware<Partial<ApiKeyState>> {
  const required = requireApiKey(deps, scopes);
  return async (ctx, next) => {
    if (ctx.get('x-api-key')) await required(ctx as Parameters<typeof required>[0], next);
    else await next();
  };
}
