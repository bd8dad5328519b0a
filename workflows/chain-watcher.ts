import { ActivityFailure, TimeoutFailure, continueAsNew, log, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { WatcherActivities } from '../activities';
import { chainScanOptions } from './activity-options';
import type { ChainWatcherInput } from './types';

const { scanChain } = proxyActivities<WatcherActivities>(chainScanOptions);

/** Scan activities after which the watcher starts a fresh run, keeping each history small (unless its input says otherwise). */
const SCANS_PER_RUN = 500;
/** Pause after a scan that failed for another reason than a timeout (the node or the database is away). */
const FAILED_SCAN_BACKOFF = '5 seconds';
/**
 * How long one scan activity goes on scanning (pausing the poll interval whenever caught up): well inside its
 * heartbeat timeout and a draining worker's shutdown grace (10 s), so a worker that stops finishes the one it runs.
 */
const KEEP_SCANNING_MS = 5_000;

/**
 * After a failed scan: the next one covers half the range (a timeout or a node refusing the range both say it was
 * too much), and pauses first unless the scan timed out (a node or database that is away needs a moment).
 */
export function afterFailedScan(blocks: number, timedOut: boolean): { blocks: number; pause: boolean } {
  return { blocks: Math.max(1, Math.floor(blocks / 2)), pause: !timedOut };
}

/**
 * One per chain (`chain-watcher-<chainId>`). Each scan reads the next block range after the chain's cursor (kept in
 * PostgreSQL, so a restarted, reset or redeployed watcher resumes where scanning stopped), hands every payin it
 * finds to the run that owns its deposit address, and moves the cursor. A scan that fails (it timed out, or the node
 * refused the range as too large) is tried again on half the range; successful scans grow it back to `maxBlocks`.
 * The watcher never gives up: it pauses after a failure that was not a timeout (the node or the database away).
 */
export async function chainWatcherWorkflow(input: ChainWatcherInput): Promise<never> {
  let blocks = input.maxBlocks;
  const scansPerRun = input.scansPerRun ?? SCANS_PER_RUN;
  for (let scan = 0; scan < scansPerRun && !workflowInfo().continueAsNewSuggested; scan++) {
    try {
      // One activity scans on for a few seconds: an activity per poll interval cost Temporal a task, a timer and two
      // workflow tasks every half second and chain.
      await scanChain({ chainId: input.chainId, maxBlocks: blocks, pollIntervalMs: input.pollIntervalMs, keepScanningMs: KEEP_SCANNING_MS });
      blocks = Math.min(input.maxBlocks, blocks * 2);
    } catch (err) {
      const timedOut = err instanceof ActivityFailure && err.cause instanceof TimeoutFailure;
      const next = afterFailedScan(blocks, timedOut);
      blocks = next.blocks;
      log.warn('chain scan failed; trying again on half the range', { chainId: input.chainId, blocks, timedOut, error: String((err as Error).cause ?? err) });
      if (next.pause) await sleep(FAILED_SCAN_BACKOFF);
    }
  }
  return await continueAsNew<typeof chainWatcherWorkflow>(input);
}
