import type { Knex } from 'knex';
import type { LedgerFlow } from '../../domain/conservation';
import type { LedgerAccount, LedgerEntry, LedgerKind } from '../../domain/ledger';
import { PHYSICAL_ACCOUNTS } from '../../domain/ledger';
import { SETTLED_STATUSES } from '../../domain/payment';
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
      debit_address: e.debitAddress,
      credit_address: e.creditAddress,
      amount_units: e.amountUnits,
      payment_id: e.paymentId,
    }));
  if (rows.length > 0) await options.knex('ledger_entries').insert(rows).onConflict('ref').ignore();
}

/** What the ledger says one physical account (kind and address) holds of one asset. */
export interface PhysicalBalanceRow {
  chainId: number;
  tokenAddress: string;
  account: LedgerAccount;
  address: string;
  units: bigint;
}

/**
 * Every physical account's balance per asset, computed in PostgreSQL (received less given); with `appId`, the deposit
 * accounts of that merchant app's payments only.
 */
export async function listPhysicalBalances(options: { knex: Knex; appId?: string }): Promise<PhysicalBalanceRow[]> {
  const { knex, appId } = options;
  const entries = () => {
    const q = knex('ledger_entries');
    return appId === undefined ? q : q.whereIn('payment_id', knex('payments').select('id').where({ app_id: appId }));
  };
  const flows = entries()
    .select('chain_id', 'token_address', { account: 'debit_account' }, { address: 'debit_address' }, { amount: 'amount_units' })
    .whereIn('debit_account', PHYSICAL_ACCOUNTS)
    .unionAll(
      entries()
        .select('chain_id', 'token_address', { account: 'credit_account' }, { address: 'credit_address' }, knex.raw('-amount_units as amount'))
        .whereIn('credit_account', PHYSICAL_ACCOUNTS),
    )
    .as('flows');
  const query = knex.from(flows).whereNotNull('address');
  // Treasuries are shared by every app: compared unscoped only.
  if (appId !== undefined) void query.whereNot({ account: 'treasury' });
  const rows: Array<{ chain_id: number; token_address: string; account: LedgerAccount; address: string; sum: string }> = await query
    .select('chain_id', 'token_address', 'account', 'address')
    .sum('amount as sum')
    .groupBy('chain_id', 'token_address', 'account', 'address');
  return rows.map((r) => ({ chainId: r.chain_id, tokenAddress: r.token_address, account: r.account, address: r.address, units: BigInt(r.sum) }));
}

/**
 * Where money of ours is on the move now: a chain with a transaction of ours signed and not yet booked (its
 * treasury: `address` null; and the payment's deposit address), and the deposit addresses of payments whose run is
 * still open (a payin there is booked when the run decides what it is for).
 */
export async function inFlightAccounts(options: { knex: Knex }): Promise<Array<{ chainId: number; address: string | null }>> {
  const { knex } = options;
  const signed = await knex('chain_txs as c')
    .leftJoin('payments as p', 'p.id', 'c.payment_id')
    .where('c.status', 'signed')
    .distinct<Array<{ chain_id: number; deposit_address: string | null }>>('c.chain_id', 'p.deposit_address');
  const open = await knex('payments').whereNotIn('status', SETTLED_STATUSES).distinct<Array<{ source_chain_id: number; deposit_address: string }>>('source_chain_id', 'deposit_address');
  return [
    ...signed.flatMap((r) => [{ chainId: r.chain_id, address: null }, ...(r.deposit_address ? [{ chainId: r.chain_id, address: r.deposit_address }] : [])]),
    ...open.map((r) => ({ chainId: r.source_chain_id, address: r.deposit_address })),
  ];
}

/** Bridge transfers burnt (or sent) from a source treasury whose arrival on the destination is not booked. */
export async function listBridgesInTransit(options: { knex: Knex }): Promise<
  Array<{ paymentId: string; chainId: number; tokenAddress: string; amountUnits: string; burnTxHash: string; purpose: string; burntAt: Date }>
> {
  const { knex } = options;
  const rows = await knex('ledger_entries as l')
    .join('chain_txs as c', 'c.intent_key', knex.raw(`substring(l.ref from 4)`))
    .where({ 'l.kind': 'bridge', 'l.debit_account': 'bridge' })
    // A payment's transfers: a rebalance's (no payment) are followed by its row (db/queries/rebalances.ts).
    .whereNotNull('l.payment_id')
    .whereNotExists(knex('ledger_entries as a').whereRaw('a.payment_id = l.payment_id').where({ 'a.kind': 'bridge', 'a.credit_account': 'bridge' }))
    .select<Array<{ payment_id: string; chain_id: number; token_address: string; amount_units: string; tx_hash: string; purpose: string; created_at: Date }>>(
      'l.payment_id', 'l.chain_id', 'l.token_address', 'l.amount_units', 'c.tx_hash', 'c.purpose', 'l.created_at',
    );
  return rows.map((r) => ({ paymentId: r.payment_id, chainId: r.chain_id, tokenAddress: r.token_address, amountUnits: r.amount_units, burnTxHash: r.tx_hash, purpose: r.purpose, burntAt: r.created_at }));
}

/** One payment's entries of a kind, oldest first. */
export async function listPaymentLedgerEntries(options: { knex: Knex; paymentId: string; kind: LedgerKind }): Promise<LedgerEntryRow[]> {
  return options.knex<LedgerEntryRow>('ledger_entries').where({ payment_id: options.paymentId, kind: options.kind }).orderBy('id');
}

export interface LedgerReconciliationReading {
  accounts: number;
  differences: number;
  stuckBridges: number;
  inFlight: number;
  findings: string[];
}

/** Records one reading of the reconciler. */
export async function insertLedgerReconciliation(options: { knex: Knex; reading: LedgerReconciliationReading }): Promise<void> {
  const { reading } = options;
  await options.knex('ledger_reconciliations').insert({
    accounts: reading.accounts, differences: reading.differences, stuck_bridges: reading.stuckBridges, in_flight: reading.inFlight, findings: JSON.stringify(reading.findings),
  });
}

/** The reconciler's latest reading, if it made one. */
export async function findLatestLedgerReconciliation(options: { knex: Knex }): Promise<(LedgerReconciliationReading & { reconciledAt: Date }) | undefined> {
  const row = await options.knex('ledger_reconciliations').orderBy('id', 'desc').first<
    { reconciled_at: Date; accounts: number; differences: number; stuck_bridges: number; in_flight: number; findings: string[] } | undefined
  >();
  return row && { reconciledAt: row.reconciled_at, accounts: row.accounts, differences: row.differences, stuckBridges: row.stuck_bridges, inFlight: row.in_flight, findings: row.findings };
}

/** What an app owes for its refunds in one payout asset, by the ledger: its `receivable` balance (owed less kept back). */
export async function sumAppReceivable(options: { knex: Knex; appId: string; chainId: number; tokenAddress: string }): Promise<bigint> {
  const { knex, appId, chainId, tokenAddress } = options;
  const [row] = await knex('ledger_entries')
    .whereIn('payment_id', knex('payments').select('id').where({ app_id: appId }))
    .where({ chain_id: chainId, token_address: tokenAddress.toLowerCase() })
    .where((q) => {
      void q.where('debit_account', 'receivable').orWhere('credit_account', 'receivable');
    })
    .select<Array<{ owed: string | null }>>(knex.raw(`sum(case when debit_account = 'receivable' then amount_units else -amount_units end) as owed`));
  return BigInt(row?.owed ?? 0);
}

/** Every asset's entries summed by kind and accounts (the conservation identity's flows). */
export async function sumLedgerFlows(options: { knex: Knex }): Promise<LedgerFlow[]> {
  const rows = await options
    .knex('ledger_entries')
    .groupBy('chain_id', 'token_address', 'kind', 'debit_account', 'credit_account')
    .select<Array<{ chain_id: number; token_address: string; kind: LedgerKind; debit_account: LedgerAccount; credit_account: LedgerAccount; units: string }>>(
      'chain_id',
      'token_address',
      'kind',
      'debit_account',
      'credit_account',
      options.knex.raw('sum(amount_units) as units'),
    );
  return rows.map((r) => ({ chainId: r.chain_id, tokenAddress: r.token_address, kind: r.kind, debit: r.debit_account, credit: r.credit_account, units: BigInt(r.units) }));
}

/** The sum of the entries with these refs (a rebalance's receipt), in base units; 0 when none is booked. */
export async function sumLedgerEntriesByRef(options: { knex: Knex; refs: string[] }): Promise<bigint> {
  const row = await options.knex('ledger_entries').whereIn('ref', options.refs).sum<{ sum: string | null }[]>('amount_units as sum');
  return BigInt(row[0]?.sum ?? '0');
}

/**
 * Operators' manual float transfers per chain and token (lowercased address): what left treasuries to the operator
 * (`out`) and what the operator put back into them (`in`), booked by `npm run float:record-transfer`.
 */
export async function sumFloatTransfers(options: { knex: Knex }): Promise<Array<{ chainId: number; tokenAddress: string; outUnits: bigint; inUnits: bigint }>> {
  const rows = await options
    .knex('ledger_entries')
    .where('ref', 'like', 'float-transfer:%')
    .groupBy('chain_id', 'token_address')
    .select<Array<{ chain_id: number; token_address: string; out_units: string; in_units: string }>>(
      'chain_id',
      'token_address',
      options.knex.raw(`coalesce(sum(amount_units) filter (where credit_account = 'treasury'), 0) as out_units`),
      options.knex.raw(`coalesce(sum(amount_units) filter (where debit_account = 'treasury'), 0) as in_units`),
    );
  return rows.map((r) => ({ chainId: r.chain_id, tokenAddress: r.token_address, outUnits: BigInt(r.out_units), inUnits: BigInt(r.in_units) }));
}
