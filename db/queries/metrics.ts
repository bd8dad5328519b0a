import type { Knex } from 'knex';

/** Rows counted per label values; counts come back from PostgreSQL as strings (bigint). */
export interface LabelledCount<L extends string> {
  labels: Record<L, string>;
  count: number;
}

async function countBy<L extends string>(query: Knex.QueryBuilder, columns: Record<L, string>): Promise<Array<LabelledCount<L>>> {
  const entries = Object.entries(columns) as Array<[L, string]>;
  const rows: Array<Record<string, unknown>> = await query
    .select(entries.map(([label, column]) => `${column} as ${label}`))
    .count('* as count')
    .groupBy(entries.map(([, column]) => column));
  return rows.map((row) => ({ labels: Object.fromEntries(entries.map(([label]) => [label, String(row[label])])) as Record<L, string>, count: Number(row.count) }));
}

export function countPaymentsByStatus(options: { knex: Knex }): Promise<Array<LabelledCount<'status'>>> {
  return countBy(options.knex('payments'), { status: 'status' });
}

export function countOrdersByStatus(options: { knex: Knex }): Promise<Array<LabelledCount<'status'>>> {
  return countBy(options.knex('orders'), { status: 'status' });
}

export function countChainTxsByStatus(options: { knex: Knex }): Promise<Array<LabelledCount<'chain' | 'status'>>> {
  return countBy(options.knex('chain_txs'), { chain: 'chain_id', status: 'status' });
}

export function countWebhookDeliveriesByStatus(options: { knex: Knex }): Promise<Array<LabelledCount<'status'>>> {
  return countBy(options.knex('webhook_deliveries'), { status: 'status' });
}

/** Callback attempts by outcome: `2xx`, `4xx`…, or `error` when no response came back. */
export async function countCallbackAttemptsByOutcome(options: { knex: Knex }): Promise<Array<LabelledCount<'outcome'>>> {
  const { rows } = await options.knex.raw<{ rows: Array<{ outcome: string; count: string }> }>(
    "select coalesce((status_code / 100)::text || 'xx', 'error') as outcome, count(*) as count from order_callback_attempts group by 1",
  );
  return rows.map((row) => ({ labels: { outcome: row.outcome }, count: Number(row.count) }));
}

/** Broadcast attempts replaced at their nonce (higher fees, or re-planned), per chain. */
export async function countReplacedChainTxAttempts(options: { knex: Knex }): Promise<Array<LabelledCount<'chain'>>> {
  const { rows } = await options.knex.raw<{ rows: Array<{ chain: number; count: string }> }>(
    'select chain_id as chain, coalesce(sum(cardinality(replaced_tx_hashes)), 0) as count from chain_txs group by chain_id',
  );
  return rows.map((row) => ({ labels: { chain: String(row.chain) }, count: Number(row.count) }));
}

export async function listChainCursorBlocks(options: { knex: Knex }): Promise<Array<{ chainId: number; blockNumber: number }>> {
  const rows = await options.knex('chain_cursors').select<Array<{ chain_id: number; block_number: string }>>('chain_id', 'block_number');
  return rows.map((row) => ({ chainId: row.chain_id, blockNumber: Number(row.block_number) }));
}
