import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import { retryUntilDone } from './activity-options';

const { startOrphanedPaymentWorkflows } = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '1 minute',
  retry: retryUntilDone,
});

const ROUNDS_PER_RUN = 100;

/**
 * Closes the one gap in payment creation: the API writes the row, then starts the workflow. If the API dies in
 * between, this finds the row and starts its workflow, so no payment row is ever left without one.
 */
export async function paymentReconcilerWorkflow(input: { intervalMs: number; graceMs: number }): Promise<never> {
  for (let round = 0; round < ROUNDS_PER_RUN; round++) {
    await startOrphanedPaymentWorkflows({ olderThanMs: input.graceMs });
    await sleep(input.intervalMs);
  }
  return await continueAsNew<typeof paymentReconcilerWorkflow>(input);
}
