import { heartbeat } from '@temporalio/activity';
import { scanChain, type ScanResult } from '../services/payins';
import type { ActivityDeps } from './deps';

export function createWatcherActivities(deps: ActivityDeps) {
  return {
    /**
     * Idempotent: scans the next block range after the chain's stored cursor, hands every payin found to its run
     * (signals and late-payin starts deduplicate on the payin), then moves the cursor. Heartbeats between reads.
     */
    scanChain: (input: { chainId: number; maxBlocks: number }): Promise<ScanResult> => scanChain(deps, { ...input, heartbeat: () => heartbeat() }),
  };
}
