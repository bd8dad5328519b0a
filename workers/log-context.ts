import type { Context } from '@temporalio/activity';
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory } from '@temporalio/worker';
import { withLogContext, type LogContext } from '../lib/log-context';
import type { Logger } from '../lib/logger';

const PAYMENT_WORKFLOW = /^payment-(.+)$/;
const ORDER_WORKFLOW = /^order-(.+)$/;

/** The payment, order and workflow an activity works for: from its input, else from its workflow's id. */
export function activityLogContext(workflowId: string | undefined, input: unknown): LogContext {
  const fields = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const paymentId = typeof fields.paymentId === 'string' ? fields.paymentId : PAYMENT_WORKFLOW.exec(workflowId ?? '')?.[1];
  const orderId = typeof fields.orderId === 'string' ? fields.orderId : ORDER_WORKFLOW.exec(workflowId ?? '')?.[1];
  return { ...(workflowId && { workflowId }), ...(paymentId && { paymentId }), ...(orderId && { orderId }) };
}

/**
 * Every activity runs inside its log context, so each line it logs (through any logger from lib/logger.ts) names
 * its payment and workflow; its outcome is logged at debug level.
 */
export function logContextInterceptor(log: Logger): ActivityInterceptorsFactory {
  return (ctx: Context) => {
    const inbound: ActivityInboundCallsInterceptor = {
      execute: (input, next) =>
        withLogContext(activityLogContext(ctx.info.workflowExecution?.workflowId, input.args[0]), async () => {
          try {
            const result: unknown = await next(input);
            log.debug({ activityType: ctx.info.activityType, attempt: ctx.info.attempt }, 'activity completed');
            return result;
          } catch (err) {
            log.debug({ activityType: ctx.info.activityType, attempt: ctx.info.attempt, err: String(err) }, 'activity failed');
            throw err;
          }
        }),
    };
    return { inbound };
  };
}
