import type { Knex } from 'knex';

/**
 * The merchant dashboard: server-side sessions (the cookie holds a random id, only its hash is stored, so logout
 * and expiry end a session for good), each payment's status history (the timeline), when an API key was last used,
 * webhook test events in the delivery log, and the indexes the dashboard's lists page through.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dashboard_sessions', (t) => {
    t.text('id_hash').primary({ constraintName: 'dashboard_sessions_pkey' });
    t.uuid('developer_id').notNullable().references('id').inTable('developers').withKeyName('dashboard_sessions_developer_fk');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['expires_at'], 'dashboard_sessions_expires_idx');
  });
  await knex.schema.createTable('payment_status_events', (t) => {
    // Postgres names the primary key payment_status_events_pkey.
    t.bigIncrements('id');
    t.uuid('payment_id').notNullable().references('id').inTable('payments').withKeyName('payment_status_events_payment_fk');
    t.text('status').notNullable();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['payment_id', 'id'], 'payment_status_events_payment_idx');
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.timestamp('last_used_at', { useTz: true });
  });
  // Newest-first keyset pages of one app's payments, and the live view's "changed since" poll.
  await knex.raw('create index payments_app_created_idx on payments (app_id, created_at desc, id desc)');
  await knex.raw('create index payments_app_updated_idx on payments (app_id, updated_at)');
  await knex.raw('create index orders_app_created_idx on orders (app_id, created_at desc, id desc)');
  // The dashboard's "send a test event": logged like any delivery, but of no payment.
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.setNullable('payment_id');
  });
  await knex.raw('alter table webhook_deliveries drop constraint webhook_deliveries_event_valid');
  await knex.raw(
    `alter table webhook_deliveries add constraint webhook_deliveries_event_valid check (event_type in ('payment_payin_completed', 'payment_payout_completed', 'webhook_test'))`,
  );
  await knex.raw(`alter table webhook_deliveries add constraint webhook_deliveries_payment_present check ((payment_id is null) = (event_type = 'webhook_test'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex('webhook_deliveries').where({ event_type: 'webhook_test' }).delete();
  await knex.raw('alter table webhook_deliveries drop constraint webhook_deliveries_payment_present');
  await knex.raw('alter table webhook_deliveries drop constraint webhook_deliveries_event_valid');
  await knex.raw(`alter table webhook_deliveries add constraint webhook_deliveries_event_valid check (event_type in ('payment_payin_completed', 'payment_payout_completed'))`);
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropNullable('payment_id');
  });
  await knex.raw('drop index orders_app_created_idx');
  await knex.raw('drop index payments_app_updated_idx');
  await knex.raw('drop index payments_app_created_idx');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('last_used_at');
  });
  await knex.schema.dropTable('payment_status_events');
  await knex.schema.dropTable('dashboard_sessions');
}
