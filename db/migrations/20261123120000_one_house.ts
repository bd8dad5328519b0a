import type { Knex } from 'knex';

/**
 * Monotonic read models (each lifecycle write carries its run's sequence; an older one changes nothing) and the
 * chain watcher's cursor, kept per chain so a restarted or redeployed watcher resumes where it stopped.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.integer('status_sequence').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('orders', (t) => {
    t.integer('status_sequence').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('payins', (t) => {
    t.integer('sequence').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('chain_cursors', (t) => {
    t.integer('chain_id').primary({ constraintName: 'chain_cursors_pkey' });
    t.bigInteger('block_number').notNullable();
    t.text('block_hash').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check('block_number >= 0', [], 'chain_cursors_block_number_valid');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_cursors');
  await knex.schema.alterTable('payins', (t) => {
    t.dropColumn('sequence');
  });
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumn('status_sequence');
  });
  await knex.schema.alterTable('payments', (t) => {
    t.dropColumn('status_sequence');
  });
}
