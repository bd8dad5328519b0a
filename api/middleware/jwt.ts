import type { Middleware } from 'koa';
import { verifyDeveloperToken } from '../../lib/developer-tokens';
import { ApiError } from '../errors';
import type { RateLimiter } from '../../services/rate-limits';

export interface DeveloperState {
  developer: { id: string };
}

/**
 * Authenticates a dashboard session (`Authorization: Bearer <JWT>` from `POST /auth/token`) per route. Bad
 * tokens count as authentication failures of the client; a token that verifies is never refused for them.
 */
export function requireJwt(deps: { jwtSecret: string; rateLimiter: RateLimiter }): Middleware<DeveloperState> {
  return async (ctx, next) => {
    const token = /^Bearer +(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    if (!token) {
      throw new ApiError(401, 'missing_token', 'send your login token as Authorization: Bearer <token>', undefined, { 'WWW-Authenticate': 'Bearer' });
    }
    const developerId = await deps.rateLimiter.authenticate(
      ctx.ip,
      async () => (await verifyDeveloperToken(deps.jwtSecret, token)) ?? undefined,
      () =>
        new ApiError(401, 'invalid_token', 'the token is invalid or expired; log in again', undefined, {
          'WWW-Authenticate': 'Bearer error="invalid_token"',
        }),
    );
    ctx.state.developer = { id: developerId };
    await next();
  };
}
