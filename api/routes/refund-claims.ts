import Router from '@koa/router';
import { DomainError } from '../../domain/errors';
import { claimRefund, claimView, findClaimedRefund, type ClaimLink, type RefundClaimDeps } from '../../services/refund-claims';
import { renderClaimPage } from '../pages/claim';
import { PAGE_SECURITY_HEADERS, renderNotFoundPage } from '../pages/render';
import { claimRefundBodySchema } from '../schemas/payments';
import { parseOrThrow } from '../validation';

export const CLAIM_PATH = '/pay/:id/refunds/:refundId/claim/:token';

/**
 * A refund's claim link (services/refund-claims.ts): the hosted claim page, and the customer's claim (JSON). Public:
 * the link's token is the capability, and a link that does not match its payment and refund is a 404.
 */
export function refundClaimRoutes(deps: RefundClaimDeps): Router {
  const router = new Router();
  const linkOf = (params: Record<string, string | undefined>): ClaimLink => ({ paymentId: params.id ?? '', refundId: params.refundId ?? '', token: params.token ?? '' });

  router.get(CLAIM_PATH, async (ctx) => {
    ctx.set(PAGE_SECURITY_HEADERS);
    ctx.type = 'text/html; charset=utf-8';
    try {
      const { refund, payment } = await findClaimedRefund(deps, linkOf(ctx.params));
      ctx.body = renderClaimPage(await claimView(deps, refund, payment), ctx.path);
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'not_found')) throw err;
      ctx.status = 404;
      ctx.body = renderNotFoundPage('refund');
    }
  });

  router.post(CLAIM_PATH, async (ctx) => {
    const body = parseOrThrow(claimRefundBodySchema, ctx.request.body ?? {}, 'claim');
    const { refund, payment } = await claimRefund(deps, linkOf(ctx.params), body);
    ctx.set('cache-control', 'no-store');
    ctx.body = await claimView(deps, refund, payment);
  });

  return router;
}
