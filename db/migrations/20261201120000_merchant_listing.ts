import type { Knex } from 'knex';

/**
 * Listing by key (issue 41). `payments.updated_at` becomes a change stamp that pages cannot skip: every write of
 * what the merchant sees stamps it under a lock per app, later than every stamp of the app before it, so one app's
 * stamps are unique and follow the order its writes commit in. A client that has read up to a stamp never later
 * finds a change committed below it. The delivery log keeps each event's body as it was sent (the events listed by
 * key show it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function payments_stamp_updated_at() returns trigger language plpgsql as $$
    declare
      latest timestamptz;
    begin
      -- Held until the writing transaction ends: the app's next writer stamps after this one committed.
      perform pg_advisory_xact_lock(hashtext('payments.updated_at'), hashtext(new.app_id));
      select max(updated_at) into latest from payments where app_id = new.app_id;
      new.updated_at := greatest(clock_timestamp(), latest + interval '1 microsecond');
      return new;
    end
    $$`);
  await knex.raw(`
    create trigger payments_stamp_updated_at
    before insert or update of status, status_sequence, sender_address, payin_tx_hash, amount_received_units,
      payin_confirmed_at, payout_tx_hash, payout_confirmed_at, updated_at
    on payments for each row execute function payments_stamp_updated_at()`);
  // Keyset pages by (updated_at, id), and the trigger's latest stamp of an app.
  await knex.raw('drop index payments_app_updated_idx');
  await knex.raw('create index payments_app_updated_idx on payments (app_id, updated_at, id)');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.text('body');
  });
  await knex.raw('create index webhook_deliveries_app_created_idx on webhook_deliveries (app_id, created_at desc, delivery_id desc)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index webhook_deliveries_app_created_idx');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('body');
  });
  await knex.raw('drop index payments_app_updated_idx');
  await knex.raw('create index payments_app_updated_idx on payments (app_id, updated_at)');
  await knex.raw('drop trigger payments_stamp_updated_at on payments');
  await knex.raw('drop function payments_stamp_updated_at()');
}
