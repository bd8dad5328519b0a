import type { Knex } from 'knex';
import type { SecretSealer } from '../connection';

/**
 * Legacy `merchant_token`s are the merchant's own credential for our callbacks: kept sealed at rest (AES-256-GCM
 * under PAYRAIL_SECRETS_KEY, like webhook secrets), so a database dump alone reveals none. Existing rows are sealed
 * here, which needs the key (`createKnex(…, { secrets })`); down opens them again.
 */
const sealer = (knex: Knex, direction: string): SecretSealer => {
  const secrets = (knex.userParams as { secrets?: SecretSealer }).secrets;
  if (!secrets) throw new Error(`${direction} legacy merchant tokens needs PAYRAIL_SECRETS_KEY (pass it to the migration's knex)`);
  return secrets;
};

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('orders', (t) => {
    t.text('merchant_token_sealed');
  });
  const rows = await knex('orders').select<Array<{ id: string; merchant_token: string }>>('id', 'merchant_token').whereNotNull('merchant_token');
  if (rows.length > 0) {
    const secrets = sealer(knex, 'sealing');
    for (const row of rows) await knex('orders').where({ id: row.id }).update({ merchant_token_sealed: secrets.seal(row.merchant_token) });
  }
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumn('merchant_token');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('orders', (t) => {
    t.text('merchant_token');
  });
  const rows = await knex('orders').select<Array<{ id: string; merchant_token_sealed: string }>>('id', 'merchant_token_sealed').whereNotNull('merchant_token_sealed');
  if (rows.length > 0) {
    const secrets = sealer(knex, 'opening');
    for (const row of rows) await knex('orders').where({ id: row.id }).update({ merchant_token: secrets.open(row.merchant_token_sealed) });
  }
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumn('merchant_token_sealed');
  });
}
