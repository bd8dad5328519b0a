import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { ChainTxRow } from '../../db/tables';

/** The payment's bridge transactions (approval, burn or send, mint), in the order they were signed. */
export const bridgeTxs = (knex: Knex, paymentId: string) =>
  knex<ChainTxRow>('chain_txs').where({ payment_id: paymentId }).where('purpose', 'like', 'bridge %').orderBy('created_at');

/**
 * The payment's bridge transactions after its approval: the treasury grants the bridge a standing allowance the
 * first time one is short, so whether this payment's run sent it depends on the payments bridged before it.
 */
export async function bridgeTxsAfterApproval(knex: Knex, paymentId: string): Promise<ChainTxRow[]> {
  const txs = await bridgeTxs(knex, paymentId);
  assert.ok(txs.filter((t) => t.purpose === 'bridge approve').length <= 1, `payment ${paymentId} approved the bridge at most once`);
  return txs.filter((t) => t.purpose !== 'bridge approve');
}
