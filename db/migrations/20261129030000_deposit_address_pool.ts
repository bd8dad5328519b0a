import type { Knex } from 'knex';

/**
 * Deposit addresses made ahead by the worker for families whose addresses need the deposit seed to compute (Solana
 * and TON: SLIP-0010 ed25519 keys are hardened only). Each row is a payment id not yet given to a payment, with the
 * address its key has; creating a payment on such a chain claims (deletes) one row and takes its id and address, so
 * the API never holds the seed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deposit_address_pool', (t) => {
    t.uuid('payment_id').primary({ constraintName: 'deposit_address_pool_pkey' });
    t.integer('chain_id').notNullable();
    t.text('address').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['chain_id'], 'deposit_address_pool_chain_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deposit_address_pool');
}
