import { insertLedgerReconciliation } from '../db/queries/ledger';
import { isFailure, reconcileLedger } from '../services/ledger';
import { describeReconciliation } from '../services/reconcile-report';
import type { ActivityDeps } from './deps';

/** The ledger reconciler's round. */
export function createLedgerActivities(deps: ActivityDeps) {
  return {
    /**
     * Idempotent (reads the ledger and the chains, records a reading; a retry records a newer one): compares every
     * account we control with the chain, records the counts the `payrail_reconcile_differences` gauge reports, and
     * logs each failure as `npm run reconcile` prints it.
     */
    async reconcileBooks(): Promise<{ failures: number }> {
      const result = await reconcileLedger(deps);
      const findings = describeReconciliation(deps.chains.registry, result).filter((line) => / — (DIFFERENCE|STUCK BRIDGE)/.test(line));
      await insertLedgerReconciliation({
        knex: deps.knex,
        reading: {
          accounts: result.accounts.length,
          differences: result.accounts.filter(isFailure).length,
          stuckBridges: result.stuckBridges.length,
          inFlight: result.accounts.filter((a) => a.inFlight).length,
          findings,
        },
      });
      for (const finding of findings) deps.log.error({ finding }, 'the ledger and the chain disagree');
      return { failures: result.failures };
    },
  };
}

export type LedgerActivities = ReturnType<typeof createLedgerActivities>;
