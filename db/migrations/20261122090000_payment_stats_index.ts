import type { Knex } from 'knex';

/** `GET /me/stats` reads one app's payouts of the last 30 days; without this it would scan all of the app's payments. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index payments_app_payout_idx on payments (app_id, payout_confirmed_at) where payout_confirmed_at is not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index payments_app_payout_idx');
}
