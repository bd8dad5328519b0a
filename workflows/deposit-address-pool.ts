import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { DepositAddressActivities } from '../activities';
import { readModelOptions } from './activity-options';

const { refillDepositAddressPool } = proxyActivities<DepositAddressActivities>({ ...readModelOptions, startToCloseTimeout: '1 minute' });

/** Rounds after which the pool keeper starts a fresh run, keeping each history small (unless its input says otherwise). */
const ROUNDS_PER_RUN = 100;

/**
 * Keeps a chain's deposit address pool filled (`deposit-address-pool-<chainId>`), for families whose addresses only
 * the deposit seed can compute (services/deposit-addresses.ts): every interval, the worker that holds the seed tops
 * the pool up once it runs low, so the API, which holds no seed, always finds addresses to hand out.
 */
export async function depositAddressPoolWorkflow(input: { chainId: number; intervalMs: number; roundsPerRun?: number }): Promise<never> {
  for (let round = 0; round < (input.roundsPerRun ?? ROUNDS_PER_RUN); round++) {
    await refillDepositAddressPool({ chainId: input.chainId });
    await sleep(input.intervalMs);
  }
  return await continueAsNew<typeof depositAddressPoolWorkflow>(input);
}
