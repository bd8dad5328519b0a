import type { Knex } from 'knex';

/**
 * A refund past its app's refund credit is funded by the merchant: it pays the refund's amount into its payment's
 * deposit address, and the refund is sent from there. `funding_units` is what it must pay in (null: the treasury
 * fronts the refund and the app owes it); the payin that funded it is named by its identity, and is a payin of
 * disposition `funding`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refunds', (t) => {
    t.specificType('funding_units', 'numeric(78,0)');
    t.text('funding_tx_hash');
    t.integer('funding_log_index');
    t.timestamp('funded_at', { useTz: true });
    t.check('funding_units is null or funding_units > 0', [], 'refunds_funding_positive');
  });
  await knex.raw(`alter table payins drop constraint payins_disposition_valid`);
  await knex.raw(`alter table payins add constraint payins_disposition_valid check (disposition is null or disposition in ('payment', 'refund', 'held', 'funding'))`);
}

export async function down(knex: Knex): Promise<void> {
  // A funding payin becomes what it would have been without the refund it funded: one to refund.
  await knex('payins').where({ disposition: 'funding' }).update({ disposition: 'refund' });
  await knex.raw(`alter table payins drop constraint payins_disposition_valid`);
  await knex.raw(`alter table payins add constraint payins_disposition_valid check (disposition is null or disposition in ('payment', 'refund', 'held'))`);
  await knex.schema.alterTable('refunds', (t) => {
    t.dropChecks(['refunds_funding_positive']);
    t.dropColumns('funding_units', 'funding_tx_hash', 'funding_log_index', 'funded_at');
  });
}
