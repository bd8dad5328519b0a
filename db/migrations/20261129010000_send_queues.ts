import type { Knex } from 'knex';

/**
 * One transfer at a time per sending account. Intents that must wait their turn (every transaction of an account
 * whose chain takes one at a time: TON seqno, Stellar sequence; every transfer out of one deposit address) are
 * queued here unsigned, with what they move, and signed when the transaction before them on the same queue landed.
 * A signed row keeps its queue and the action it was prepared from, so it can be prepared again when it can no longer
 * land (a Solana blockhash or a Tron expiration past, a sequence number used by another transaction).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chain_tx_queue', (t) => {
    t.text('intent_key').primary({ constraintName: 'chain_tx_queue_pkey' });
    t.integer('chain_id').notNullable();
    // `account:<address>` (an account whose chain takes one transaction at a time) or `deposit:<paymentId>`.
    t.text('queue_key').notNullable();
    t.uuid('payment_id').references('id').inTable('payments').withKeyName('chain_tx_queue_payment_fk');
    t.text('purpose').notNullable();
    // Lower first: payouts never wait behind sweeps, sweeps never behind refunds.
    t.smallint('priority').notNullable();
    // The transfer as its terms were checked (services/money-terms.ts), and the chain action it becomes.
    t.jsonb('request').notNullable();
    t.jsonb('action').notNullable();
    // Why it could not be prepared when its turn came (a call that would revert); its own wait tries it again.
    t.text('refused');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['chain_id', 'queue_key', 'priority', 'created_at'], 'chain_tx_queue_turn_idx');
  });
  await knex.schema.alterTable('chain_txs', (t) => {
    t.text('queue_key');
    t.jsonb('action');
    t.text('valid_until');
    t.index(['chain_id', 'queue_key'], 'chain_txs_in_flight_idx', { predicate: knex.whereRaw(`status = 'signed' and queue_key is not null`) });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('chain_txs', (t) => {
    t.dropIndex(['chain_id', 'queue_key'], 'chain_txs_in_flight_idx');
    t.dropColumn('valid_until');
    t.dropColumn('action');
    t.dropColumn('queue_key');
  });
  await knex.schema.dropTable('chain_tx_queue');
}
