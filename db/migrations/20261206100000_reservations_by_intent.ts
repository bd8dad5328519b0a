import type { Knex } from 'knex';

/**
 * A treasury reservation belongs to the transfer it sets tokens aside for (its intent key): a payout
 * (`payout:<paymentId>`) or a merchant refund from the treasury (`merchant-refund:<refundId>`), several of which a
 * payment can have. The payment stays named, for the books and the operator.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('treasury_reservations', (t) => {
    t.text('intent_key');
  });
  await knex.raw(`update treasury_reservations set intent_key = 'payout:' || payment_id::text`);
  await knex.schema.alterTable('treasury_reservations', (t) => {
    t.dropPrimary('treasury_reservations_pkey');
  });
  await knex.schema.alterTable('treasury_reservations', (t) => {
    t.text('intent_key').notNullable().alter();
    t.primary(['intent_key'], { constraintName: 'treasury_reservations_pkey' });
    t.index(['payment_id'], 'treasury_reservations_payment_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  // Only payouts were reserved before: a refund's reservation goes (the refund's transfer stays in the outbox).
  await knex('treasury_reservations').whereNot('intent_key', 'like', 'payout:%').delete();
  await knex.schema.alterTable('treasury_reservations', (t) => {
    t.dropIndex(['payment_id'], 'treasury_reservations_payment_idx');
    t.dropPrimary('treasury_reservations_pkey');
  });
  await knex.schema.alterTable('treasury_reservations', (t) => {
    t.primary(['payment_id'], { constraintName: 'treasury_reservations_pkey' });
    t.dropColumn('intent_key');
  });
}
