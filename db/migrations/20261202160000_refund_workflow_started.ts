import type { Knex } from 'knex';

/**
 * When a refund's run was started (`workflow_started_at`), as for payments and orders: the API records the refund,
 * then starts its run; the reconciler starts the run of a refund that has an address and none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('refunds', (t) => {
    t.timestamp('workflow_started_at', { useTz: true });
  });
  // Refunds that moved on from `pending` had their run.
  await knex('refunds').whereNotIn('status', ['awaiting_address', 'pending']).update({ workflow_started_at: knex.ref('updated_at') });
  await knex.schema.raw(`create index refunds_without_workflow on refunds (created_at) where workflow_started_at is null and address is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.raw('drop index refunds_without_workflow');
  await knex.schema.alterTable('refunds', (t) => {
    t.dropColumn('workflow_started_at');
  });
}
