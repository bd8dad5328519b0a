import type { Knex } from 'knex';

/**
 * Accounts that receive for a deposit without being its address (TON: the deposit wallet's jetton wallet of each
 * configured jetton), recorded once per deposit, so a scan matches a block's transactions against them in one
 * indexed query, whatever the number of open payments. `accounts_recorded` says a deposit's accounts were recorded
 * (possibly none); the partial index finds the few that were not, those created since the last scan.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deposit_accounts', (t) => {
    t.integer('chain_id').notNullable();
    t.text('account').notNullable();
    t.text('deposit_address').notNullable();
    t.text('token_address').notNullable();
    t.primary(['chain_id', 'account'], { constraintName: 'deposit_accounts_pkey' });
    t.foreign(['chain_id', 'deposit_address'], 'deposit_accounts_deposit_fk').references(['chain_id', 'address']).inTable('deposit_addresses');
  });
  await knex.schema.alterTable('deposit_addresses', (t) => {
    t.boolean('accounts_recorded').notNullable().defaultTo(false);
  });
  await knex.raw('create index deposit_addresses_accounts_unrecorded_idx on deposit_addresses (chain_id) where not accounts_recorded');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index deposit_addresses_accounts_unrecorded_idx');
  await knex.schema.alterTable('deposit_addresses', (t) => {
    t.dropColumn('accounts_recorded');
  });
  await knex.schema.dropTable('deposit_accounts');
}
