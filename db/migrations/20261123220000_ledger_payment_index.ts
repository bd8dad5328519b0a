import type { Knex } from 'knex';

/** A payment's ledger entries (its quarantined transfers, shown on its dashboard page) are read by payment. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.index(['payment_id', 'kind'], 'ledger_entries_payment_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.dropIndex(['payment_id', 'kind'], 'ledger_entries_payment_idx');
  });
}
