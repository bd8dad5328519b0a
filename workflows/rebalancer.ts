import { condition, continueAsNew, proxyActivities, setHandler } from '@temporalio/workflow';
import type { RebalanceActivities } from '../activities';
import { readModelOptions } from './activity-options';
import { checkFloatsSignal } from './messages';
import type { RebalancerInput } from './types';

const { rebalanceRound } = proxyActivities<RebalanceActivities>({ ...readModelOptions, startToCloseTimeout: '2 minutes' });

/** Rounds after which the rebalancer starts a fresh run, keeping each history small (unless its input says otherwise). */
const ROUNDS_PER_RUN = 100;

/**
 * The one rebalancer (`treasury-rebalancer`): every `intervalMs`, or at once on `checkFloats`, reads the treasuries'
 * floats and opens a rebalance (its own run, `rebalance-<id>`) for each short treasury a bridge can refill, one per
 * route at a time; a short treasury no bridge reaches is an operator's need, on `/metrics` and in `npm run reconcile`.
 */
export async function rebalancerWorkflow(input: RebalancerInput): Promise<never> {
  let checks = 0;
  setHandler(checkFloatsSignal, () => void checks++);
  for (let round = 0; round < (input.roundsPerRun ?? ROUNDS_PER_RUN); round++) {
    const seen = checks;
    await rebalanceRound();
    await condition(() => checks > seen, input.intervalMs);
  }
  return await continueAsNew<typeof rebalancerWorkflow>(input);
}
