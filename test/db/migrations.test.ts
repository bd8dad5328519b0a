import assert from 'node:assert/strict';
import { createKnex } from '../../db/connection';
import { getStack } from '../support/stack';

const TABLES = ['merchant_apps', 'api_keys', 'payments', 'deposit_addresses', 'payins', 'signer_nonces', 'chain_txs', 'developers', 'login_codes', 'webhook_deliveries', 'rate_limit_counters', 'orders', 'order_callback_attempts', 'chain_cursors', 'held_payins'];

/** Constraints the code relies on by name: idempotency, status spelling, the one payin identity, the watcher cursor. */
const CONSTRAINTS = ['payments_app_order_unique', 'payments_status_valid', 'payins_chain_tx_log_unique', 'chain_cursors_block_number_valid'];

describe('migrations', function () {
  this.timeout(120_000);

  it('apply to an empty database, roll all the way down, and apply again', async () => {
    const stack = await getStack();
    const admin = createKnex(stack.env.DATABASE_URL!, { max: 1 });
    const database = `payrail_migrations_${Date.now()}`;
    await admin.raw('create database ??', [database]);
    const url = new URL(stack.env.DATABASE_URL!);
    url.pathname = `/${database}`;
    const knex = createKnex(url.toString(), { max: 1 });
    const tables = async () =>
      (await knex('pg_tables').where({ schemaname: 'public' }).pluck<string[]>('tablename')).filter((t) => !t.startsWith('knex_'));
    try {
      await knex.migrate.latest();
      assert.deepEqual((await tables()).sort(), [...TABLES].sort());
      const constraints = await knex('pg_constraint').whereIn('conname', CONSTRAINTS).pluck<string[]>('conname');
      assert.deepEqual(constraints.sort(), [...CONSTRAINTS].sort(), 'named constraints exist');

      while ((await knex.migrate.currentVersion()) !== 'none') await knex.migrate.rollback();
      assert.deepEqual(await tables(), []);

      await knex.migrate.latest();
      assert.equal((await tables()).length, TABLES.length);
    } finally {
      await knex.destroy();
      await admin.raw('drop database ?? with (force)', [database]);
      await admin.destroy();
    }
  });
});
