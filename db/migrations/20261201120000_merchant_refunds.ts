import type { Knex } from 'knex';

/**
 * Merchant refunds (`POST {payment_api_url}/{id}/refunds`): one row per refund a merchant asked for, keyed for
 * idempotency by the app and its `Idempotency-Key` (with a fingerprint of the request, so the same key with another
 * body is refused). Its transaction is the outbox intent `merchant-refund:<id>`, from the source chain's treasury.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('refunds', (t) => {
    t.uuid('id').primary({ constraintName: 'refunds_pkey' });
    t.uuid('payment_id').notNullable();
    t.foreign('payment_id', 'refunds_payment_fk').references('id').inTable('payments');
    t.text('app_id').notNullable();
    t.text('idempotency_key').notNullable();
    t.text('request_fingerprint').notNullable();
    t.unique(['app_id', 'idempotency_key'], { indexName: 'refunds_app_idempotency_unique' });
    t.specificType('amount_units', 'numeric(78, 0)').notNullable();
    t.text('reason');
    t.text('address');
    t.text('status').notNullable();
    t.text('tx_hash');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['payment_id'], 'refunds_payment_idx');
    t.check('amount_units > 0', [], 'refunds_amount_positive');
    t.check(`status in ('awaiting_address', 'pending', 'sent', 'completed', 'failed')`, [], 'refunds_status_valid');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('refunds');
}
