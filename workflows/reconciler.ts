import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import { readModelOptions } from './activity-options';

const { startOrphanedWorkflows } = proxyActivities<PaymentActivities>({ ...readModelOptions, startToCloseTimeout: '1 minute' });

/** Rounds after which the reconciler starts a fresh run, keeping each history small (unless its input says otherwise). */
const ROUNDS_PER_RUN = 100;

/**
 * Closes the one gap in creating payments and orders: the API writes the row, then starts the workflow. If the API
 * dies in between, this finds the row and starts its workflow, so no row is ever left without one.
 */
export async function paymentReconcilerWorkflow(input: { intervalMs: number; graceMs: number; roundsPerRun?: number }): Promise<never> {
  for (let round = 0; round < (input.roundsPerRun ?? ROUNDS_PER_RUN); round++) {
    await startOrphanedWorkflows({ olderThanMs: input.graceMs });
    await sleep(input.intervalMs);
  }
  return await continueAsNew<typeof paymentReconcilerWorkflow>(input);
}
