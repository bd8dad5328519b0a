import { heartbeat, sleep } from '@temporalio/activity';
import { keepScanning, scanChain, type ScanResult } from '../services/payins';
import type { ActivityDeps } from './deps';

export function createWatcherActivities(deps: ActivityDeps) {
  return {
    /**
     * Idempotent: scans the next block range after the chain's stored cursor, hands every payin found to its run
     * (signals and late-payin starts deduplicate on the payin), then moves the cursor. Heartbeats between reads.
     * With `keepScanningMs` (watchers of current code), goes on scanning for that long (`keepScanning`), pausing
     * `pollIntervalMs` when caught up; without (a scan an older watcher run scheduled before a deploy), scans once.
     */
    scanChain: (input: { chainId: number; maxBlocks: number; pollIntervalMs?: number; keepScanningMs?: number }): Promise<ScanResult> => {
      // The head at which this activity's last scan had read everything: a poll before the next block reads nothing else.
      let caughtUpAt: number | undefined;
      const scan = async () => {
        const result = await scanChain(deps, { chainId: input.chainId, maxBlocks: input.maxBlocks, heartbeat: () => heartbeat(), caughtUpAt });
        caughtUpAt = result.caughtUp ? result.head : undefined;
        return result;
      };
      if (input.keepScanningMs === undefined || input.pollIntervalMs === undefined) return scan();
      // The activity's sleep ends at once when the activity is cancelled (a worker draining past its grace).
      return keepScanning(scan, { pollIntervalMs: input.pollIntervalMs, keepScanningMs: input.keepScanningMs, heartbeat: () => heartbeat(), sleep });
    },
  };
}
