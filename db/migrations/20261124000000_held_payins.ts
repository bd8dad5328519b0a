import type { Knex } from 'knex';

/**
 * Payins into an account every deposit shares (Stellar's receiving account) that match no payment: no memo, or a
 * memo no watched payment has. They are held here for the operator to return or credit by hand, never dropped.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('held_payins', (t) => {
    t.integer('chain_id').notNullable();
    t.text('tx_hash').notNullable();
    t.integer('log_index').notNullable();
    t.bigInteger('block_number').notNullable();
    t.text('token_address').notNullable();
    t.text('sender_address').notNullable();
    t.text('receiver_address').notNullable();
    t.specificType('amount_units', 'numeric(78,0)').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['chain_id', 'tx_hash', 'log_index'], { constraintName: 'held_payins_pkey' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('held_payins');
}
