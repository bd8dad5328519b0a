import type { Logger } from '../lib/logger';
import { listOrdersWithoutWorkflow } from '../db/queries/orders';
import { findPaymentById, listPaymentsWithoutWorkflow } from '../db/queries/payments';
import { listRefundsWithoutWorkflow } from '../db/queries/refunds';
import { orderWorkflowId, paymentWorkflowId, refundWorkflowId } from '../workflows/ids';
import { ensureOrderWorkflow, ensurePaymentWorkflow, startRefundWorkflow, type WorkflowStarterDeps } from './workflows';

const BATCH = 100;

/**
 * Closes the one gap in creating payments, orders and refunds: the API writes the row, then starts the workflow. If
 * the API dies in between, this finds the row and starts its workflow, so no row is ever left without one (a refund
 * once it has an address). Idempotent: starting a workflow that already runs finds the running one.
 */
export async function startOrphanedWorkflows(deps: WorkflowStarterDeps & { log: Logger }, input: { olderThanMs: number }): Promise<number> {
  const { knex, log } = deps;
  const payments = await listPaymentsWithoutWorkflow({ knex, olderThanMs: input.olderThanMs, limit: BATCH });
  for (const row of payments) {
    await ensurePaymentWorkflow(deps, row);
    log.warn({ paymentId: row.id, workflowId: paymentWorkflowId(row.id) }, 'started the workflow of a payment whose creation was interrupted');
  }
  const orders = await listOrdersWithoutWorkflow({ knex, olderThanMs: input.olderThanMs, limit: BATCH });
  for (const row of orders) {
    await ensureOrderWorkflow(deps, row);
    log.warn({ orderId: row.id, workflowId: orderWorkflowId(row.id) }, 'started the workflow of an order whose creation was interrupted');
  }
  const refunds = await listRefundsWithoutWorkflow({ knex, olderThanMs: input.olderThanMs, limit: BATCH });
  for (const row of refunds) {
    await startRefundWorkflow(deps, row, (await findPaymentById({ knex, id: row.payment_id }))!);
    log.warn({ refundId: row.id, paymentId: row.payment_id, workflowId: refundWorkflowId(row.id) }, 'started the workflow of a refund whose start was interrupted');
  }
  return payments.length + orders.length + refunds.length;
}
