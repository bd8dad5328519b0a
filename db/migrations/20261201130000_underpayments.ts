import type { Knex } from 'knex';

/**
 * Underpayments the merchant resolves: an app's tolerance (basis points of the amount a payment may fall short of and
 * still complete, at most 100), kept on each payment as it was when the payment was created; and when the merchant
 * accepted a short payment as paid.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchant_apps', (t) => {
    t.integer('underpayment_tolerance_bps').notNullable().defaultTo(0);
    t.check('underpayment_tolerance_bps between 0 and 100', [], 'merchant_apps_underpayment_tolerance_range');
  });
  await knex.schema.alterTable('payments', (t) => {
    t.integer('underpayment_tolerance_bps').notNullable().defaultTo(0);
    t.check('underpayment_tolerance_bps between 0 and 100', [], 'payments_underpayment_tolerance_range');
    t.timestamp('accepted_as_paid_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.dropChecks(['payments_underpayment_tolerance_range']);
    t.dropColumn('underpayment_tolerance_bps');
    t.dropColumn('accepted_as_paid_at');
  });
  await knex.schema.alterTable('merchant_apps', (t) => {
    t.dropChecks(['merchant_apps_underpayment_tolerance_range']);
    t.dropColumn('underpayment_tolerance_bps');
  });
}
