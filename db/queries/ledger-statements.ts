import type { Knex } from 'knex';
import type { LedgerAccount, LedgerKind } from '../../domain/ledger';

/** A ledger entry as a statement lists it: the movement, the payment's order id, and the transaction that made it. */
export interface StatementEntryRow {
  id: string;
  ref: string;
  kind: LedgerKind;
  chain_id: number;
  token_address: string;
  debit_account: LedgerAccount;
  credit_account: LedgerAccount;
  amount_units: string;
  payment_id: string;
  order_id: string | null;
  /** `tx:<intentKey>` entries: the hash of the intent's transaction; payin, held and quarantined entries: the payin's; else null. */
  tx_hash: string | null;
  created_at: Date;
}

/** What one book's entries of a kind between two accounts sum to. */
export interface StatementSumRow {
  chain_id: number;
  token_address: string;
  kind: LedgerKind;
  debit_account: LedgerAccount;
  credit_account: LedgerAccount;
  amount_units: string;
}

/**
 * The ledger as one merchant app's statement reads it: the entries of its payments made in `[from, to)`, oldest
 * first, and the sums of those made before `from` (the opening figures), both computed in PostgreSQL.
 */
export async function listAppLedgerEntries(options: {
  knex: Knex;
  appId: string;
  from: Date;
  to: Date;
}): Promise<{ before: StatementSumRow[]; entries: StatementEntryRow[] }> {
  const { knex, appId, from, to } = options;
  const ofApp = () => knex('ledger_entries as l').join('payments as p', 'p.id', 'l.payment_id').where('p.app_id', appId);
  const before = await ofApp()
    .where('l.created_at', '<', from)
    .select('l.chain_id', 'l.token_address', 'l.kind', 'l.debit_account', 'l.credit_account')
    .sum({ amount_units: 'l.amount_units' })
    .groupBy('l.chain_id', 'l.token_address', 'l.kind', 'l.debit_account', 'l.credit_account');
  const entries = await ofApp()
    .leftJoin('chain_txs as t', function () {
      this.on('t.intent_key', '=', knex.raw(`substring(l.ref from 4)`)).andOn(knex.raw(`l.ref like 'tx:%'`));
    })
    .where('l.created_at', '>=', from)
    .where('l.created_at', '<', to)
    .select(
      'l.id',
      'l.ref',
      'l.kind',
      'l.chain_id',
      'l.token_address',
      'l.debit_account',
      'l.credit_account',
      knex.raw('l.amount_units::text as amount_units'),
      'l.payment_id',
      'p.order_id',
      knex.raw(`case when l.ref like 'tx:%' then t.tx_hash when l.ref ~ '^(payin|held|quarantined):' then split_part(l.ref, ':', 3) end as tx_hash`),
      'l.created_at',
    )
    .orderBy([
      { column: 'l.created_at', order: 'asc' },
      { column: 'l.id', order: 'asc' },
    ]);
  return {
    before: (before as Array<StatementSumRow & { amount_units: string | number }>).map((r) => ({ ...r, amount_units: String(r.amount_units) })),
    entries: entries as StatementEntryRow[],
  };
}
