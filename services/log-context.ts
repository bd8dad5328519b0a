import type { LogContext } from '../lib/log-context';
import { orderWorkflowId, paymentWorkflowId } from '../workflows/ids';

/** What log lines about a payment carry: its id and its workflow's. */
export const paymentLogFields = (paymentId: string): LogContext => ({ paymentId, workflowId: paymentWorkflowId(paymentId) });

/** What log lines about a legacy order carry: its id and its workflow's. */
export const orderLogFields = (orderId: string): LogContext => ({ orderId, workflowId: orderWorkflowId(orderId) });
