import type { Knex } from 'knex';

/**
 * The money path against attackers and a stuck chain: dust payins held (recorded, not refunded at a loss), chain
 * transactions replaced at the same nonce with higher fees (or re-planned at a new nonce when another transaction
 * took theirs), and payouts reserving treasury balance before they are signed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table payins drop constraint payins_disposition_valid`);
  await knex.raw(`alter table payins add constraint payins_disposition_valid check (disposition is null or disposition in ('payment', 'refund', 'held'))`);
  await knex.schema.alterTable('payins', (t) => {
    // Base units of the payin kept at the deposit address as dust (all of a held payin, or an overpayment's excess).
    t.specificType('held_units', 'numeric(78,0)').notNullable().defaultTo(0);
    t.check('held_units >= 0 and held_units <= amount_units', [], 'payins_held_units_valid');
  });

  await knex.schema.alterTable('chain_txs', (t) => {
    // The block the current attempt was broadcast at: not mined some blocks later, it is replaced.
    t.bigInteger('sent_at_block');
    t.text('max_fee_per_gas');
    t.text('max_priority_fee_per_gas');
    // Hashes of the intent's earlier attempts: any of them may still be the one mined.
    t.specificType('replaced_tx_hashes', 'text[]').notNullable().defaultTo('{}');
  });

  await knex.schema.createTable('treasury_reservations', (t) => {
    t.uuid('payment_id').primary({ constraintName: 'treasury_reservations_pkey' });
    t.foreign('payment_id', 'treasury_reservations_payment_fk').references('id').inTable('payments');
    t.integer('chain_id').notNullable();
    t.text('token_address').notNullable();
    t.specificType('amount_units', 'numeric(78,0)').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Set once the payout is mined: the chain's balance reflects it from then on.
    t.timestamp('released_at', { useTz: true });
    t.check('amount_units > 0', [], 'treasury_reservations_amount_positive');
    t.index(['chain_id', 'token_address'], 'treasury_reservations_open_idx', { predicate: knex.whereNull('released_at') });
  });

  // The conservation ledger: every movement of a token, once, as a transfer between two accounts of one book
  // (chain and token). `npm run reconcile` sums it and compares it with the chain.
  await knex.schema.createTable('ledger_entries', (t) => {
    t.bigIncrements('id', { primaryKey: false });
    t.primary(['id'], { constraintName: 'ledger_entries_pkey' });
    // What the movement is (`payin:<payinId>`, `tx:<intentKey>`, `fee:<paymentId>`, …): recorded once.
    t.text('ref').notNullable();
    t.unique(['ref'], { indexName: 'ledger_entries_ref_unique' });
    t.integer('chain_id').notNullable();
    t.text('token_address').notNullable();
    t.text('kind').notNullable();
    t.text('debit_account').notNullable();
    t.text('credit_account').notNullable();
    t.specificType('amount_units', 'numeric(78,0)').notNullable();
    t.uuid('payment_id');
    t.foreign('payment_id', 'ledger_entries_payment_fk').references('id').inTable('payments');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['chain_id', 'token_address'], 'ledger_entries_book_idx');
    t.check('amount_units > 0', [], 'ledger_entries_amount_positive');
    t.check('debit_account <> credit_account', [], 'ledger_entries_two_accounts');
    t.check(`kind in ('payin', 'sweep', 'bridge', 'payout', 'fee', 'refund', 'held', 'quarantined')`, [], 'ledger_entries_kind_valid');
    const accounts = `('external', 'deposit', 'held', 'quarantine', 'treasury', 'bridge', 'merchant', 'fees')`;
    t.check(`debit_account in ${accounts} and credit_account in ${accounts}`, [], 'ledger_entries_account_valid');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ledger_entries');
  await knex.schema.dropTable('treasury_reservations');
  await knex.schema.alterTable('chain_txs', (t) => {
    t.dropColumn('replaced_tx_hashes');
    t.dropColumn('max_priority_fee_per_gas');
    t.dropColumn('max_fee_per_gas');
    t.dropColumn('sent_at_block');
  });
  await knex.schema.alterTable('payins', (t) => {
    t.dropChecks(['payins_held_units_valid']);
    t.dropColumn('held_units');
  });
  await knex.raw(`update payins set disposition = null where disposition = 'held'`);
  await knex.raw(`alter table payins drop constraint payins_disposition_valid`);
  await knex.raw(`alter table payins add constraint payins_disposition_valid check (disposition is null or disposition in ('payment', 'refund'))`);
}
