import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('developers', (t) => {
    t.uuid('id').primary({ constraintName: 'developers_pkey' });
    t.text('email').notNullable().unique({ indexName: 'developers_email_unique' });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('login_codes', (t) => {
    t.uuid('id').primary({ constraintName: 'login_codes_pkey' });
    t.text('email').notNullable();
    t.text('code_hash').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('consumed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['email', 'created_at'], 'login_codes_email_idx');
  });

  await knex.schema.alterTable('merchant_apps', (t) => {
    t.uuid('developer_id').references('id').inTable('developers').withKeyName('merchant_apps_developer_fk');
    /** AES-256-GCM ciphertext of the webhook secret (the raw value is needed to sign, so it is encrypted, not hashed). */
    t.text('webhook_secret_ciphertext');
    t.text('webhook_secret_fingerprint');
    t.timestamp('webhook_secret_rotated_at', { useTz: true });
    t.index(['developer_id'], 'merchant_apps_developer_idx');
  });

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('delivery_id').primary({ constraintName: 'webhook_deliveries_pkey' });
    t.text('app_id').notNullable().references('app_id').inTable('merchant_apps').withKeyName('webhook_deliveries_app_fk');
    t.uuid('payment_id').notNullable().references('id').inTable('payments').withKeyName('webhook_deliveries_payment_fk');
    t.text('event_type').notNullable();
    t.text('url').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('status_code');
    t.text('response_preview');
    t.integer('attempt_number').notNullable().defaultTo(1);
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // At most one delivery per event: the claim on this key is what makes delivery at-most-once.
    t.unique(['payment_id', 'event_type'], { indexName: 'webhook_deliveries_event_unique' });
    t.index(['app_id', 'created_at'], 'webhook_deliveries_app_idx');
    t.check(`event_type in ('payment_payin_completed', 'payment_payout_completed')`, [], 'webhook_deliveries_event_valid');
    t.check(`status in ('pending', 'delivered', 'exhausted')`, [], 'webhook_deliveries_status_valid');
  });

  /** Fixed-window counters shared by every API process. */
  await knex.schema.createTable('rate_limit_counters', (t) => {
    t.text('bucket').notNullable();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('count').notNullable().defaultTo(0);
    t.primary(['bucket', 'window_start'], { constraintName: 'rate_limit_counters_pkey' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('rate_limit_counters');
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.alterTable('merchant_apps', (t) => {
    t.dropIndex(['developer_id'], 'merchant_apps_developer_idx');
    t.dropColumn('webhook_secret_rotated_at');
    t.dropColumn('webhook_secret_fingerprint');
    t.dropColumn('webhook_secret_ciphertext');
    t.dropColumn('developer_id');
  });
  await knex.schema.dropTable('login_codes');
  await knex.schema.dropTable('developers');
}
