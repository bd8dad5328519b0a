import type { Knex } from 'knex';
import type { LedgerAccount, LedgerEntry, LedgerKind } from '../../domain/ledger';
import type { LedgerEntryRow } from '../tables';

/** Records a movement once: an entry whose ref exists already changes nothing (retries converge). */
export async function insertLedgerEntries(options: { knex: Knex; entries: LedgerEntry[] }): Promise<void> {
  const rows = options.entries
    .filter((e) => BigInt(e.amountUnits) > 0n)
    .map((e) => ({
      ref: e.ref,
      chain_id: e.chainId,
      token_address: e.tokenAddress.toLowerCase(),
      kind: e.kind,
      debit_account: e.debit,
      credit_account: e.credit,
      amount_units: e.amountUnits,
      payment_id: e.paymentId,
    }));
  if (rows.length > 0) await options.knex('ledger_entries').insert(rows).onConflict('ref').ignore();
}

export interface LedgerBook {
  chainId: number;
  tokenAddress: string;
  byKind: Partial<Record<LedgerKind, bigint>>;
  balances: Partial<Record<LedgerAccount, bigint>>;
}

/** The entries of one merchant app's payments (`appId`), or every entry. */
function entriesOf(knex: Knex, appId: string | undefined) {
  const entries = knex('ledger_entries');
  return appId === undefined ? entries : entries.whereIn('payment_id', knex('payments').select('id').where({ app_id: appId }));
}

/** Every book's sums by kind and balances by account, computed in PostgreSQL; of one app's payments with `appId`. */
export async function ledgerBooks(options: { knex: Knex; appId?: string }): Promise<LedgerBook[]> {
  const { knex, appId } = options;
  const kinds = await entriesOf(knex, appId)
    .select('chain_id', 'token_address', 'kind')
    .sum<{ chain_id: number; token_address: string; kind: LedgerKind; sum: string }[]>('amount_units as sum')
    .groupBy('chain_id', 'token_address', 'kind');
  const flows = await knex
    .from(
      entriesOf(knex, appId)
        .select('chain_id', 'token_address', { account: 'debit_account' }, { amount: 'amount_units' })
        .unionAll(entriesOf(knex, appId).select('chain_id', 'token_address', { account: 'credit_account' }, knex.raw('-amount_units as amount')))
        .as('flows'),
    )
    .select('chain_id', 'token_address', 'account')
    .sum<{ chain_id: number; token_address: string; account: LedgerAccount; sum: string }[]>('amount as sum')
    .groupBy('chain_id', 'token_address', 'account');
  const books = new Map<string, LedgerBook>();
  const book = (chainId: number, tokenAddress: string) => {
    const key = `${chainId}:${tokenAddress}`;
    let found = books.get(key);
    if (!found) books.set(key, (found = { chainId, tokenAddress, byKind: {}, balances: {} }));
    return found;
  };
  for (const row of kinds as Array<{ chain_id: number; token_address: string; kind: LedgerKind; sum: string }>) {
    book(row.chain_id, row.token_address).byKind[row.kind] = BigInt(row.sum);
  }
  for (const row of flows as Array<{ chain_id: number; token_address: string; account: LedgerAccount; sum: string }>) {
    book(row.chain_id, row.token_address).balances[row.account] = BigInt(row.sum);
  }
  return [...books.values()].sort((a, b) => a.chainId - b.chainId || a.tokenAddress.localeCompare(b.tokenAddress));
}

/** Deposit addresses that hold (or held) funds of the book, by the ledger: where the chain is to be read; of one app's payments with `appId`. */
export async function bookDepositAddresses(options: { knex: Knex; chainId: number; tokenAddress: string; appId?: string }): Promise<string[]> {
  return options
    .knex('ledger_entries as l')
    .join('payments as p', 'p.id', 'l.payment_id')
    .where({ 'l.chain_id': options.chainId, 'l.token_address': options.tokenAddress.toLowerCase() })
    .where(options.appId === undefined ? {} : { 'p.app_id': options.appId })
    .whereIn('l.debit_account', ['deposit', 'held'])
    .distinct()
    .pluck<string[]>('p.deposit_address');
}

/** One payment's entries of a kind, oldest first. */
export async function listPaymentLedgerEntries(options: { knex: Knex; paymentId: string; kind: LedgerKind }): Promise<LedgerEntryRow[]> {
  return options.knex<LedgerEntryRow>('ledger_entries').where({ payment_id: options.paymentId, kind: options.kind }).orderBy('id');
}
