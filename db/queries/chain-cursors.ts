import type { Knex } from 'knex';
import type { ChainCursorRow } from '../tables';

export interface ChainCursor {
  blockNumber: number;
  blockHash: string;
}

export async function findChainCursor(options: { knex: Knex; chainId: number }): Promise<ChainCursor | null> {
  const row = await options.knex<ChainCursorRow>('chain_cursors').where({ chain_id: options.chainId }).first();
  return row ? { blockNumber: Number(row.block_number), blockHash: row.block_hash } : null;
}

/**
 * Moves the cursor from `from` (null: no cursor yet) to `to`. Returns false when the stored cursor is not `from`
 * any more: another scan (a zombie attempt, a second watcher run) moved it, and this one must not overwrite it.
 */
export async function advanceChainCursor(options: { knex: Knex; chainId: number; from: ChainCursor | null; to: ChainCursor }): Promise<boolean> {
  const { knex, chainId, from, to } = options;
  const values = { chain_id: chainId, block_number: String(to.blockNumber), block_hash: to.blockHash, updated_at: knex.fn.now() as unknown as Date };
  if (from === null) {
    const inserted = await knex<ChainCursorRow>('chain_cursors').insert(values).onConflict('chain_id').ignore().returning('chain_id');
    return inserted.length > 0;
  }
  const updated = await knex<ChainCursorRow>('chain_cursors')
    .where({ chain_id: chainId, block_number: String(from.blockNumber), block_hash: from.blockHash })
    .update(values);
  return updated > 0;
}

/** Forgets the cursors of chains whose state was reset (the devnet starts from block 0 on every run). */
export async function deleteChainCursors(options: { knex: Knex; chainIds: number[] }): Promise<void> {
  await options.knex('chain_cursors').whereIn('chain_id', options.chainIds).delete();
}
