import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createKnex } from '../../db/connection';
import { SecretBox } from '../../lib/secrets';
import { getStack } from '../support/stack';

const TABLES = ['merchant_apps', 'api_keys', 'payments', 'deposit_addresses', 'payins', 'signer_nonces', 'chain_txs', 'developers', 'login_codes', 'webhook_deliveries', 'rate_limit_counters', 'orders', 'order_callback_attempts', 'chain_cursors', 'treasury_reservations', 'ledger_entries', 'dashboard_sessions', 'payment_status_events', 'held_payins', 'deposit_accounts', 'deposit_address_pool', 'chain_tx_queue', 'refunds', 'ledger_reconciliations', 'rebalances'];

/** Constraints the code relies on by name: idempotency, status spelling, the one payin identity, the watcher cursor. */
const CONSTRAINTS = ['payments_app_order_unique', 'payments_status_valid', 'payins_chain_tx_log_unique', 'chain_cursors_block_number_valid', 'payins_disposition_valid', 'payins_held_units_valid', 'treasury_reservations_amount_positive', 'ledger_entries_ref_unique', 'ledger_entries_kind_valid', 'refunds_app_idempotency_unique', 'refunds_status_valid', 'payments_underpayment_tolerance_range', 'refunds_claim_token_hash_unique', 'refunds_awaiting_address_valid'];

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

  it('seal existing legacy merchant tokens on the way up and open them on the way down', async () => {
    const stack = await getStack();
    const admin = createKnex(stack.env.DATABASE_URL!, { max: 1 });
    const database = `payrail_migrations_seal_${Date.now()}`;
    await admin.raw('create database ??', [database]);
    const url = new URL(stack.env.DATABASE_URL!);
    url.pathname = `/${database}`;
    const box = new SecretBox(stack.env.PAYRAIL_SECRETS_KEY!);
    const knex = createKnex(url.toString(), { max: 1 }, { secrets: box });
    const SEALING = '20261123201000_sealed_merchant_tokens.ts';
    try {
      while (true) {
        const [, pending] = (await knex.migrate.list()) as [unknown, Array<{ file: string }>];
        if (pending[0]?.file === SEALING) break;
        await knex.migrate.up();
      }
      await knex('merchant_apps').insert({ app_id: 'merchant_seal', name: 'Seal', payout_chain_id: 8453, payout_token_symbol: 'USDC', payout_address: '0x000000000000000000000000000000000000dEaD' });
      const order = { id: randomUUID(), app_id: 'merchant_seal', price_amount: '5', price_currency: 'USD', currency_options: ['USDC_BASE'], expires_at: new Date() };
      await knex('orders').insert({ ...order, merchant_token: 'mt-at-rest' });
      await knex.migrate.up();
      const sealed = await knex('orders').where({ id: order.id }).first<{ merchant_token_sealed: string }>();
      assert.notEqual(sealed.merchant_token_sealed, 'mt-at-rest');
      assert.equal(box.open(sealed.merchant_token_sealed), 'mt-at-rest');
      await knex.migrate.down();
      assert.equal((await knex('orders').where({ id: order.id }).first<{ merchant_token: string }>()).merchant_token, 'mt-at-rest');
    } finally {
      await knex.destroy();
      await admin.raw('drop database ?? with (force)', [database]);
      await admin.destroy();
    }
  });
});
