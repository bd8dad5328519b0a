import type { Knex } from 'knex';

/**
 * Rebalances (workflows/rebalance.ts): one row per bridge transfer that refills a short treasury from another
 * chain's treasury of the same token. Its transactions are outbox intents keyed by the rebalance
 * (`rebalance-approve:<id>`, `rebalance-burn:<id>`, `rebalance-mint:<id>`, with no payment), checked against this
 * row before they are signed. At most one rebalance per route (token, from, to) is bridging at a time.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rebalances', (t) => {
    t.uuid('id').primary({ constraintName: 'rebalances_pkey' });
    t.text('token_symbol').notNullable();
    t.integer('from_chain_id').notNullable();
    t.integer('to_chain_id').notNullable();
    /** Base units taken from the source treasury (same decimals on both sides of a bridge route). */
    t.specificType('amount_units', 'numeric(78, 0)').notNullable();
    t.text('status').notNullable().defaultTo('bridging');
    /** The bridge's quote as the run fixed it (kind, fees, expected time), once quoted. */
    t.jsonb('quote');
    /** What reached the destination treasury, as the chain showed it, once arrived. */
    t.specificType('received_units', 'numeric(78, 0)');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.check('amount_units > 0', [], 'rebalances_amount_positive');
    t.check('from_chain_id <> to_chain_id', [], 'rebalances_two_chains');
    t.check(`status in ('bridging', 'completed', 'failed')`, [], 'rebalances_status_valid');
  });
  await knex.raw(`create unique index rebalances_one_per_route on rebalances (token_symbol, from_chain_id, to_chain_id) where status = 'bridging'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rebalances');
}
