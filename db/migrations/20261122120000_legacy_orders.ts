import type { Knex } from 'knex';

/** Legacy order statuses (docs/legacy-orders.md). */
const ORDER_STATUSES = ['new', 'pending', 'confirming', 'paid', 'expired', 'canceled', 'invalid', 'refunded'];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('orders', (t) => {
    t.uuid('id').primary({ constraintName: 'orders_pkey' });
    t.text('app_id').notNullable().references('app_id').inTable('merchant_apps').withKeyName('orders_app_fk');
    t.text('merchant_order_id');
    t.text('status').notNullable().defaultTo('new');
    t.specificType('price_amount', 'numeric(24,6)').notNullable();
    t.text('price_currency').notNullable();
    /** The `pay_currency` the merchant fixed; null when the customer chooses. */
    t.text('pay_currency');
    /** What the customer may choose from (2.10 values available on this deployment when the order was created). */
    t.specificType('currency_options', 'text[]').notNullable();
    /** The currency the order's payment is in, once there is one. */
    t.text('selected_currency');
    t.uuid('payment_id').references('id').inTable('payments').withKeyName('orders_payment_fk');
    /** USD per whole unit of the selected currency, as priced when the payment was created, and where from. */
    t.text('rate');
    t.text('rate_source');
    t.text('title');
    t.text('description');
    t.text('email');
    t.text('callback_url');
    t.text('cancel_url');
    t.text('success_url');
    t.boolean('mobile').notNullable().defaultTo(false);
    t.boolean('fast').notNullable().defaultTo(false);
    t.text('merchant_token');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('paid_at', { useTz: true });
    t.timestamp('receipt_sent_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('workflow_started_at', { useTz: true });
    t.unique(['app_id', 'merchant_order_id'], { indexName: 'orders_app_merchant_order_unique' });
    t.unique(['payment_id'], { indexName: 'orders_payment_unique' });
    t.check(`status in (${ORDER_STATUSES.map((s) => `'${s}'`).join(', ')})`, [], 'orders_status_valid');
    t.check('price_amount > 0', [], 'orders_price_amount_positive');
    t.check('char_length(title) <= 200', [], 'orders_title_length');
    t.check('char_length(description) <= 800', [], 'orders_description_length');
  });
  await knex.raw('create index orders_workflow_unstarted_idx on orders (created_at) where workflow_started_at is null');

  /** Every POST of a callback to a merchant's `callback_url`, successful or not. */
  await knex.schema.createTable('order_callback_attempts', (t) => {
    t.bigIncrements('id', { primaryKey: false });
    t.primary(['id'], { constraintName: 'order_callback_attempts_pkey' });
    t.uuid('order_id').notNullable().references('id').inTable('orders').withKeyName('order_callback_attempts_order_fk');
    /** One callback (one order status to report); its attempts share it. Sent as `callback_id` in the body. */
    t.uuid('callback_id').notNullable();
    t.text('order_status').notNullable();
    t.integer('attempt').notNullable();
    t.text('url').notNullable();
    t.integer('status_code');
    t.text('error');
    t.text('response_preview');
    t.integer('duration_ms').notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['callback_id', 'attempt'], { indexName: 'order_callback_attempts_attempt_unique' });
    t.index(['order_id', 'attempted_at'], 'order_callback_attempts_order_idx');
    t.check('attempt >= 1', [], 'order_callback_attempts_attempt_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('order_callback_attempts');
  await knex.schema.dropTable('orders');
}
