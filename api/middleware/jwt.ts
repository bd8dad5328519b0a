import type { Middleware } from 'koa';
import type { Knex } from 'knex';
import { findDashboardSession } from '../../db/queries/sessions';
import { verifyDeveloperToken } from '../../lib/developer-tokens';
import { sessionIdHash } from '../../services/accounts';
import { ApiError } from '../errors';
import type { RateLimiter } from '../../services/rate-limits';

export interface DeveloperState {
  developer: { id: string };
}

/** The dashboard's session cookie: `HttpOnly; SameSite=Strict; Path=/`, `Secure` when served over https. */
export const SESSION_COOKIE = 'payrail_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Authenticates a developer per route, by either of two credentials: `Authorization: Bearer <JWT>` (from
 * `POST /auth/token`, for scripts) or the dashboard's session cookie (from `POST /auth/session`). A cookie only
 * authenticates a state-changing request whose `Origin` is this API's own (SameSite=Strict already keeps other
 * sites' requests from carrying it; the Origin check also covers browsers without SameSite). Bad credentials count
 * as authentication failures of the client; a credential that verifies is never refused for them.
 */
export function requireDeveloper(deps: { jwtSecret: string; rateLimiter: RateLimiter; knex: Knex; publicBaseUrl: string }): Middleware<DeveloperState> {
  const publicOrigin = new URL(deps.publicBaseUrl).origin;
  return async (ctx, next) => {
    const token = /^Bearer +(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    const sessionId = token ? undefined : ctx.cookies.get(SESSION_COOKIE);
    if (!token && !sessionId) {
      throw new ApiError(401, 'missing_token', 'log in to the dashboard, or send your login token as Authorization: Bearer <token>', undefined, {
        'WWW-Authenticate': 'Bearer',
      });
    }
    if (sessionId && !SAFE_METHODS.has(ctx.method)) {
      const origin = ctx.get('origin');
      if (origin !== publicOrigin && origin !== `${ctx.protocol}://${ctx.host}`) throw new ApiError(403, 'cross_origin_request', 'state-changing dashboard requests must come from the dashboard itself');
    }
    const developerId = await deps.rateLimiter.authenticate(
      ctx.ip,
      async () =>
        token
          ? ((await verifyDeveloperToken(deps.jwtSecret, token)) ?? undefined)
          : (await findDashboardSession({ knex: deps.knex, idHash: sessionIdHash(sessionId!) }))?.developerId,
      () =>
        token
          ? new ApiError(401, 'invalid_token', 'the token is invalid or expired; log in again', undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token"' })
          : new ApiError(401, 'session_expired', 'the dashboard session has ended; log in again'),
    );
    ctx.state.developer = { id: developerId };
    await next();
  };
}
