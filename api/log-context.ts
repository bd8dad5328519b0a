import type { Middleware } from 'koa';
import { withLogContext } from '../lib/log-context';
import { orderLogFields, paymentLogFields } from '../services/log-context';

type ParamMiddleware = (id: string, ctx: Parameters<Middleware>[0], next: () => Promise<unknown>) => Promise<unknown>;

/** `router.param('id', paymentLogParam)`: every line logged while serving the request names the payment and its workflow. */
export const paymentLogParam: ParamMiddleware = (id, _ctx, next) => withLogContext(paymentLogFields(id), next);

/** The same for a legacy order and its workflow. */
export const orderLogParam: ParamMiddleware = (id, _ctx, next) => withLogContext(orderLogFields(id), next);
