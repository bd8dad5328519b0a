import type { BridgeQuote } from '../domain/bridges';
import { endRebalance, keepRebalanceQuote, loadRebalanceTerms, runRebalanceRound } from '../services/rebalances';
import type { ActivityDeps } from './deps';

/** The rebalancer's round and a rebalance's bookkeeping (its bridge steps are the chain writes of activities/chain.ts). */
export function createRebalanceActivities(deps: ActivityDeps) {
  return {
    /**
     * Idempotent (one rebalance bridging per route, one run per rebalance): reads the floats and the plan, opens the
     * rebalances a bridge can carry and starts their runs; reports the needs left to an operator.
     */
    rebalanceRound: () => runRebalanceRound(deps),

    /** Idempotent (read-only): the rebalance's terms as stored. */
    loadRebalance: (input: { rebalanceId: string }) => loadRebalanceTerms(deps, input.rebalanceId),

    /** Idempotent (kept once): the quote the run fixed, for reconcile and the operator. */
    recordRebalanceQuote: (input: { rebalanceId: string; quote: BridgeQuote }) => keepRebalanceQuote(deps, input.rebalanceId, input.quote),

    /** Idempotent: the rebalance ended, completed (with what arrived, as booked from the chain) or failed. */
    endRebalance: (input: { rebalanceId: string; status: 'completed' | 'failed' }) => endRebalance(deps, input.rebalanceId, input.status),
  };
}

export type RebalanceActivities = ReturnType<typeof createRebalanceActivities>;
