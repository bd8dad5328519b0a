import type { Knex } from 'knex';
import type { BridgeQuote } from '../../domain/bridges';
import type { RebalanceRow } from '../tables';

/**
 * Opens a rebalance of the route (token, from, to) unless one is bridging there already (one per route at a time:
 * `rebalances_one_per_route`). Returns the new row, or undefined when the route is busy.
 */
export async function openRebalance(options: { knex: Knex; row: Pick<RebalanceRow, 'id' | 'token_symbol' | 'from_chain_id' | 'to_chain_id' | 'amount_units'> }): Promise<RebalanceRow | undefined> {
  const rows = await options
    .knex<RebalanceRow>('rebalances')
    .insert(options.row)
    .onConflict(options.knex.raw(`(token_symbol, from_chain_id, to_chain_id) where status = 'bridging'`) as never)
    .ignore()
    .returning('*');
  return rows[0];
}

export async function findRebalance(options: { knex: Knex; id: string }): Promise<RebalanceRow | undefined> {
  return options.knex<RebalanceRow>('rebalances').where({ id: options.id }).first();
}

/** Rebalances bridging now, oldest first. */
export async function listBridgingRebalances(options: { knex: Knex }): Promise<RebalanceRow[]> {
  return options.knex<RebalanceRow>('rebalances').where({ status: 'bridging' }).orderBy('created_at');
}

/** The quote the rebalance's run fixed; kept once (a retry finds it set). */
export async function recordRebalanceQuote(options: { knex: Knex; id: string; quote: BridgeQuote }): Promise<void> {
  await options.knex<RebalanceRow>('rebalances').where({ id: options.id }).whereNull('quote').update({ quote: JSON.stringify(options.quote) as never });
}

/** What reached the destination treasury, as the chain showed it; kept once. */
export async function recordRebalanceReceived(options: { knex: Knex; id: string; receivedUnits: string }): Promise<void> {
  await options.knex<RebalanceRow>('rebalances').where({ id: options.id }).whereNull('received_units').update({ received_units: options.receivedUnits });
}

/** The rebalance's run ended: `completed` (arrived) or `failed` (a transaction reverted). Idempotent. */
export async function finishRebalance(options: { knex: Knex; id: string; status: 'completed' | 'failed' }): Promise<void> {
  await options
    .knex<RebalanceRow>('rebalances')
    .where({ id: options.id, status: 'bridging' })
    .update({ status: options.status, completed_at: options.knex.fn.now() as unknown as Date });
}
