import {
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import { retryUntilDone } from './activity-options';
import { paymentWorkflowId } from './ids';
import { payinDetectedSignal } from './messages';
import type { ChainWatcherInput } from './types';

const { scanChain } = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '2 minutes',
  retry: retryUntilDone,
});

/** Scans after which the watcher starts a fresh run, keeping each history small. */
const SCANS_PER_RUN = 400;

/**
 * One per chain. Scans new blocks for ERC-20 transfers into watched deposit addresses and signals the payment
 * that owns each address. Its cost grows with blocks, not with open payments: matching happens in one
 * `eth_getLogs` filter per block range.
 */
export async function chainWatcherWorkflow(input: ChainWatcherInput): Promise<never> {
  let cursor = input.cursor;
  for (let scan = 0; scan < SCANS_PER_RUN && !workflowInfo().continueAsNewSuggested; scan++) {
    const result = await scanChain({ chainId: input.chainId, cursor });
    for (const { paymentId, ...payin } of result.payins) {
      try {
        await getExternalWorkflowHandle(paymentWorkflowId(paymentId)).signal(payinDetectedSignal, payin);
      } catch (err) {
        // Only a payment whose late-payin window has just closed stops listening; its address leaves the watch list.
        log.warn('payment workflow did not take the payin signal', { paymentId, txHash: payin.txHash, error: String(err) });
      }
    }
    cursor = result.cursor;
    if (result.caughtUp) await sleep(input.pollIntervalMs);
  }
  return await continueAsNew<typeof chainWatcherWorkflow>({ ...input, cursor });
}
