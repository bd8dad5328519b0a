import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { LedgerActivities } from '../activities';
import { readModelOptions } from './activity-options';

const { reconcileBooks } = proxyActivities<LedgerActivities>({ ...readModelOptions, startToCloseTimeout: '5 minutes' });

/** Rounds after which the reconciler starts a fresh run, keeping each history small (unless its input says otherwise). */
const ROUNDS_PER_RUN = 100;

/**
 * Compares the ledger with the chain every `intervalMs` (`npm run reconcile`'s check, all accounts): each round's
 * reading is recorded for the `payrail_reconcile_differences` gauge, which the Grafana dashboard alerts on.
 */
export async function ledgerReconcilerWorkflow(input: { intervalMs: number; roundsPerRun?: number }): Promise<never> {
  for (let round = 0; round < (input.roundsPerRun ?? ROUNDS_PER_RUN); round++) {
    await reconcileBooks();
    await sleep(input.intervalMs);
  }
  return await continueAsNew<typeof ledgerReconcilerWorkflow>(input);
}
