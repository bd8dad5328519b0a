import type { Knex } from 'knex';

const KINDS_BEFORE = `('payin', 'sweep', 'bridge', 'payout', 'fee', 'refund', 'held', 'quarantined', 'funding', 'network', 'topup')`;
const KINDS = `('payin', 'sweep', 'bridge', 'payout', 'fee', 'refund', 'held', 'quarantined', 'funding', 'network', 'topup', 'netting')`;
const ACCOUNTS_BEFORE = `('external', 'deposit', 'held', 'quarantine', 'treasury', 'bridge', 'merchant', 'fees', 'operator', 'network')`;
const ACCOUNTS = `('external', 'deposit', 'held', 'quarantine', 'treasury', 'bridge', 'merchant', 'fees', 'operator', 'network', 'receivable')`;

/**
 * Refunds are the merchant's money: what an app owes for its refunds is the ledger's `receivable` account, settled
 * (`netting`) by deductions from the app's next payouts. An app's refund credit (whole payout tokens, set by the
 * operator) bounds what it may owe; each payment keeps the deduction its payout carried (null until decided).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchant_apps', (t) => {
    t.text('refund_credit').notNullable().defaultTo('1000');
  });
  await knex.schema.alterTable('payments', (t) => {
    t.text('netted_units');
  });
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.dropChecks(['ledger_entries_kind_valid', 'ledger_entries_account_valid']);
  });
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.check(`kind in ${KINDS}`, [], 'ledger_entries_kind_valid');
    t.check(`debit_account in ${ACCOUNTS} and credit_account in ${ACCOUNTS}`, [], 'ledger_entries_account_valid');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex('ledger_entries').where('kind', 'netting').orWhere('debit_account', 'receivable').orWhere('credit_account', 'receivable').del();
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.dropChecks(['ledger_entries_kind_valid', 'ledger_entries_account_valid']);
  });
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.check(`kind in ${KINDS_BEFORE}`, [], 'ledger_entries_kind_valid');
    t.check(`debit_account in ${ACCOUNTS_BEFORE} and credit_account in ${ACCOUNTS_BEFORE}`, [], 'ledger_entries_account_valid');
  });
  await knex.schema.alterTable('payments', (t) => t.dropColumn('netted_units'));
  await knex.schema.alterTable('merchant_apps', (t) => t.dropColumn('refund_credit'));
}
