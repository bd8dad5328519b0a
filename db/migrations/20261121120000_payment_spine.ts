import type { Knex } from 'knex';

const PAYMENT_STATUSES = [
  'payment_unpaid',
  'payment_started',
  'payment_payin_completed',
  'payment_bridging',
  'payment_payout_started',
  'payment_payout_completed',
  'payment_completed',
  'payment_expired',
  'payment_bounced',
  'payment_refunded',
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('merchant_apps', (t) => {
    t.text('app_id').primary({ constraintName: 'merchant_apps_pkey' });
    t.text('name').notNullable();
    t.integer('payout_chain_id').notNullable();
    t.text('payout_token_symbol').notNullable();
    t.text('payout_address').notNullable();
    t.text('webhook_url');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check(`app_id ~ '^(merchant|wallet)_[a-z0-9][a-z0-9-]*$'`, [], 'merchant_apps_app_id_format');
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary({ constraintName: 'api_keys_pkey' });
    t.text('app_id').notNullable().references('app_id').inTable('merchant_apps').withKeyName('api_keys_app_fk');
    t.text('scope').notNullable();
    t.text('key_hash').notNullable().unique({ indexName: 'api_keys_key_hash_unique' });
    t.text('key_hint').notNullable();
    t.text('name');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true });
    t.index(['app_id'], 'api_keys_app_idx');
    t.check(`scope in ('Orders', 'Admin')`, [], 'api_keys_scope_valid');
  });

  await knex.schema.createTable('payments', (t) => {
    t.uuid('id').primary({ constraintName: 'payments_pkey' });
    t.text('app_id').notNullable().references('app_id').inTable('merchant_apps').withKeyName('payments_app_fk');
    t.text('order_id');
    t.text('type').notNullable().defaultTo('exactIn');
    t.text('status').notNullable().defaultTo('payment_unpaid');
    t.jsonb('display').notNullable();
    t.jsonb('metadata');
    t.integer('source_chain_id').notNullable();
    t.text('source_token_symbol').notNullable();
    t.text('source_token_address').notNullable();
    t.integer('source_decimals').notNullable();
    t.specificType('source_amount_units', 'numeric(78,0)').notNullable();
    t.specificType('fee_units', 'numeric(78,0)').notNullable();
    t.text('deposit_address').notNullable();
    t.text('sender_address');
    t.text('payin_tx_hash');
    t.specificType('amount_received_units', 'numeric(78,0)');
    t.timestamp('payin_confirmed_at', { useTz: true });
    t.integer('destination_chain_id').notNullable();
    t.text('destination_token_symbol').notNullable();
    t.text('destination_token_address').notNullable();
    t.integer('destination_decimals').notNullable();
    t.text('destination_address').notNullable();
    t.specificType('destination_amount_units', 'numeric(78,0)').notNullable();
    t.text('payout_tx_hash');
    t.timestamp('payout_confirmed_at', { useTz: true });
    t.text('webhook_url');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('workflow_started_at', { useTz: true });
    t.unique(['app_id', 'order_id'], { indexName: 'payments_app_order_unique' });
    t.check(`status in (${PAYMENT_STATUSES.map((s) => `'${s}'`).join(', ')})`, [], 'payments_status_valid');
    t.check('source_amount_units > 0', [], 'payments_source_amount_positive');
  });
  await knex.raw(
    'create index payments_workflow_unstarted_idx on payments (created_at) where workflow_started_at is null',
  );

  await knex.schema.createTable('deposit_addresses', (t) => {
    t.integer('chain_id').notNullable();
    t.text('address').notNullable();
    t.uuid('payment_id').notNullable().references('id').inTable('payments').withKeyName('deposit_addresses_payment_fk');
    t.timestamp('watch_until', { useTz: true }).notNullable();
    t.primary(['chain_id', 'address'], { constraintName: 'deposit_addresses_pkey' });
    t.unique(['payment_id'], { indexName: 'deposit_addresses_payment_unique' });
    t.index(['chain_id', 'watch_until'], 'deposit_addresses_watch_idx');
  });

  await knex.schema.createTable('payins', (t) => {
    t.bigIncrements('id', { primaryKey: false });
    t.primary(['id'], { constraintName: 'payins_pkey' });
    t.uuid('payment_id').notNullable().references('id').inTable('payments').withKeyName('payins_payment_fk');
    t.integer('chain_id').notNullable();
    t.text('tx_hash').notNullable();
    t.integer('log_index').notNullable();
    t.text('token_address').notNullable();
    t.text('sender_address').notNullable();
    t.specificType('amount_units', 'numeric(78,0)').notNullable();
    t.bigInteger('block_number').notNullable();
    t.text('status').notNullable();
    t.text('disposition');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['chain_id', 'tx_hash', 'log_index'], { indexName: 'payins_chain_tx_log_unique' });
    t.index(['payment_id'], 'payins_payment_idx');
    t.check(`status in ('detected', 'confirmed', 'dropped')`, [], 'payins_status_valid');
    t.check(`disposition is null or disposition in ('payment', 'refund')`, [], 'payins_disposition_valid');
  });

  await knex.schema.createTable('signer_nonces', (t) => {
    t.integer('chain_id').notNullable();
    t.text('signer').notNullable();
    t.bigInteger('next_nonce').notNullable();
    t.primary(['chain_id', 'signer'], { constraintName: 'signer_nonces_pkey' });
  });

  await knex.schema.createTable('chain_txs', (t) => {
    t.text('intent_key').primary({ constraintName: 'chain_txs_pkey' });
    t.uuid('payment_id').references('id').inTable('payments').withKeyName('chain_txs_payment_fk');
    t.text('purpose').notNullable();
    t.integer('chain_id').notNullable();
    t.text('signer').notNullable();
    t.bigInteger('nonce').notNullable();
    t.text('to_address').notNullable();
    t.text('token_address');
    t.specificType('amount_units', 'numeric(78,0)');
    t.text('raw_tx').notNullable();
    t.text('tx_hash').notNullable();
    t.text('status').notNullable().defaultTo('signed');
    t.bigInteger('block_number');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['payment_id'], 'chain_txs_payment_idx');
    t.check(`status in ('signed', 'confirmed', 'reverted')`, [], 'chain_txs_status_valid');
  });
  // No two unmined transactions may share a signer's nonce; once mined, the chain itself enforces it (and a
  // devnet that restarts from block 0 legitimately reuses nonces of its previous run).
  await knex.raw(
    `create unique index chain_txs_unmined_nonce_unique on chain_txs (chain_id, signer, nonce) where status = 'signed'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chain_txs');
  await knex.schema.dropTable('signer_nonces');
  await knex.schema.dropTable('payins');
  await knex.schema.dropTable('deposit_addresses');
  await knex.schema.dropTable('payments');
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('merchant_apps');
}
