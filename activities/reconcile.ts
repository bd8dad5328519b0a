import { listOrdersWithoutWorkflow } from '../db/queries/orders';
import { listPaymentsWithoutWorkflow } from '../db/queries/payments';
import { ensureOrderWorkflow } from '../lib/order-workflows';
import { ensurePaymentWorkflow } from '../lib/payment-workflows';
import type { ActivityDeps } from './deps';

const BATCH = 100;

export function createReconcileActivities({ knex, temporal, latePayinWindowMs, log }: Pick<ActivityDeps, 'knex' | 'temporal' | 'latePayinWindowMs' | 'log'>) {
  return {
    /** Idempotent: starting a payment workflow that already runs finds the running one. */
    async startOrphanedPaymentWorkflows(input: { olderThanMs: number }): Promise<number> {
      const orphans = await listPaymentsWithoutWorkflow({ knex, olderThanMs: input.olderThanMs, limit: BATCH });
      for (const row of orphans) {
        await ensurePaymentWorkflow({ client: temporal.client, knex, taskQueue: temporal.taskQueue, row, latePayinWindowMs });
        log.warn({ paymentId: row.id }, 'started the workflow of a payment whose creation was interrupted');
      }
      // Legacy orders have the same gap between their row and their workflow.
      const orphanOrders = await listOrdersWithoutWorkflow({ knex, olderThanMs: input.olderThanMs, limit: BATCH });
      for (const row of orphanOrders) {
        await ensureOrderWorkflow({ client: temporal.client, knex, taskQueue: temporal.taskQueue, row });
        log.warn({ orderId: row.id }, 'started the workflow of an order whose creation was interrupted');
      }
      return orphans.length + orphanOrders.length;
    },
  };
}
