import type { Knex } from 'knex';

const KINDS_V1 = `('payin', 'sweep', 'bridge', 'payout', 'fee', 'refund', 'held', 'quarantined')`;
const KINDS_V2 = `('payin', 'sweep', 'bridge', 'payout', 'fee', 'refund', 'held', 'quarantined', 'funding', 'network', 'topup')`;
const ACCOUNTS_V1 = `('external', 'deposit', 'held', 'quarantine', 'treasury', 'bridge', 'merchant', 'fees')`;
const ACCOUNTS_V2 = `('external', 'deposit', 'held', 'quarantine', 'treasury', 'bridge', 'merchant', 'fees', 'operator', 'network')`;

/**
 * Ledger v2: accounts per address and asset. Each entry names the address of its physical accounts (deposit, held,
 * quarantine, treasury), so reconcile compares every address we control with the chain; operator funding, network
 * costs and top-ups get kinds and accounts of their own. Entries booked before name no address: a deposit's are
 * filled from its payment. `ledger_reconciliations` keeps the reconciler's readings: the metric and the operator
 * read the latest.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.text('debit_address');
    t.text('credit_address');
    t.dropChecks(['ledger_entries_kind_valid', 'ledger_entries_account_valid']);
  });
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.check(`kind in ${KINDS_V2}`, [], 'ledger_entries_kind_valid');
    t.check(`debit_account in ${ACCOUNTS_V2} and credit_account in ${ACCOUNTS_V2}`, [], 'ledger_entries_account_valid');
  });
  await knex.schema.createTable('ledger_reconciliations', (t) => {
    t.bigIncrements('id', { primaryKey: false });
    t.primary(['id'], { constraintName: 'ledger_reconciliations_pkey' });
    t.timestamp('reconciled_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.integer('accounts').notNullable();
    t.integer('differences').notNullable();
    t.integer('stuck_bridges').notNullable();
    t.integer('in_flight').notNullable();
    /** The failures as reconcile prints them, for the operator. */
    t.jsonb('findings').notNullable();
  });
  for (const side of ['debit', 'credit'] as const) {
    await knex.raw(
      `update ledger_entries l set ${side}_address = p.deposit_address from payments p where p.id = l.payment_id and l.${side}_account in ('deposit', 'held', 'quarantine')`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('ledger_reconciliations');
  await knex('ledger_entries').whereIn('kind', ['funding', 'network', 'topup']).del();
  await knex('ledger_entries').whereIn('debit_account', ['operator', 'network']).orWhereIn('credit_account', ['operator', 'network']).del();
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.dropChecks(['ledger_entries_kind_valid', 'ledger_entries_account_valid']);
    t.dropColumn('debit_address');
    t.dropColumn('credit_address');
  });
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.check(`kind in ${KINDS_V1}`, [], 'ledger_entries_kind_valid');
    t.check(`debit_account in ${ACCOUNTS_V1} and credit_account in ${ACCOUNTS_V1}`, [], 'ledger_entries_account_valid');
  });
}
