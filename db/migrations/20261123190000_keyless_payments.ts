import type { Knex } from 'knex';

/**
 * Keyless creates (`POST {payment_api_url}/payments`, appId in the body) get their own idempotency namespace, so a
 * customer who knows an app id can never squat the merchant's order ids; an app allows them only when switched on.
 * Apps that existed before keep the behaviour they had (their checkouts may create payments that way).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchant_apps', (t) => {
    t.boolean('keyless_payments').notNullable().defaultTo(false);
  });
  await knex('merchant_apps').update({ keyless_payments: true });
  await knex.schema.alterTable('payments', (t) => {
    t.boolean('keyless').notNullable().defaultTo(false);
    t.dropUnique(['app_id', 'order_id'], 'payments_app_order_unique');
    t.unique(['app_id', 'keyless', 'order_id'], { indexName: 'payments_app_order_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  // One namespace again: refuse (changing nothing) when both namespaces hold the same order id.
  const collisions = await knex('payments')
    .select('app_id', 'order_id')
    .whereNotNull('order_id')
    .groupBy('app_id', 'order_id')
    .havingRaw('count(*) > 1')
    .limit(5);
  if (collisions.length > 0) {
    throw new Error(`cannot merge the keyless and keyed order namespaces: ${JSON.stringify(collisions)} exist in both`);
  }
  await knex.schema.alterTable('payments', (t) => {
    t.dropUnique(['app_id', 'keyless', 'order_id'], 'payments_app_order_unique');
    t.unique(['app_id', 'order_id'], { indexName: 'payments_app_order_unique' });
    t.dropColumn('keyless');
  });
  await knex.schema.alterTable('merchant_apps', (t) => {
    t.dropColumn('keyless_payments');
  });
}
