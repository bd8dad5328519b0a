import type { Knex } from 'knex';
import type { ChainRegistry } from '../chains/registry';
import { listAppLedgerEntries, type StatementEntryRow } from '../db/queries/ledger-statements';
import type { LedgerAccount, LedgerKind } from '../domain/ledger';
import { formatUnits } from '../domain/money';

/**
 * What one book (a chain and a token) of the app shows at a moment: the sums of its payins, payouts, fees, refunds
 * and held dust, and what the app's deposit addresses hold by the ledger, which `npm run reconcile -- --app` compares
 * with the chain.
 */
export interface StatementFigures {
  payins: string;
  payouts: string;
  fees: string;
  refunds: string;
  held: string;
  /** Kept back from the app's payouts for its refunds. */
  netted: string;
  atDeposits: string;
}

export interface StatementBook {
  chainId: string;
  tokenSymbol: string | null;
  tokenAddress: string;
  decimals: number;
  /** The figures of the entries made before the period. */
  opening: StatementFigures;
  /** The figures of the entries made before the period's end: the opening's and the period's together. */
  closing: StatementFigures;
}

export interface StatementMovement {
  at: string;
  kind: LedgerKind;
  paymentId: string;
  orderId: string | null;
  chainId: string;
  tokenSymbol: string | null;
  tokenAddress: string;
  amount: string;
  amountUnits: string;
  /** The ledger accounts the money left (`credit`) and reached (`debit`). */
  debit: LedgerAccount;
  credit: LedgerAccount;
  txHash: string | null;
  ref: string;
}

export interface Statement {
  appId: string;
  from: string;
  to: string;
  books: StatementBook[];
  movements: StatementMovement[];
}

const FIGURES = ['payins', 'payouts', 'fees', 'refunds', 'held', 'netted', 'atDeposits'] as const;

/** The physical accounts of a deposit address: what the app's deposits hold. */
const AT_DEPOSITS: readonly LedgerAccount[] = ['deposit', 'held', 'quarantine'];

/** A book's running sums: by kind, and each account's balance (received less given). */
interface Sums {
  chainId: number;
  tokenAddress: string;
  byKind: Partial<Record<LedgerKind, bigint>>;
  balances: Partial<Record<LedgerAccount, bigint>>;
}

function add(sums: Sums, e: { kind: LedgerKind; debit_account: LedgerAccount; credit_account: LedgerAccount; amount_units: string }): void {
  const units = BigInt(e.amount_units);
  sums.byKind[e.kind] = (sums.byKind[e.kind] ?? 0n) + units;
  sums.balances[e.debit_account] = (sums.balances[e.debit_account] ?? 0n) + units;
  sums.balances[e.credit_account] = (sums.balances[e.credit_account] ?? 0n) - units;
}

const copy = (s: Sums): Sums => ({ ...s, byKind: { ...s.byKind }, balances: { ...s.balances } });

/**
 * An app's statement of `[from, to)`: every ledger entry of its payments in the period (payins, sweeps, bridge
 * legs, payouts, fees, refunds, held payins) with its transaction, and per book its figures before the period and at
 * its end. A statement ending now closes with its deposit addresses holding what `npm run reconcile -- --app <appId>`
 * proves they hold on chain.
 */
export async function appStatement(deps: { knex: Knex; registry: ChainRegistry }, input: { appId: string; from: Date; to: Date }): Promise<Statement> {
  const { before, entries } = await listAppLedgerEntries({ knex: deps.knex, ...input });
  const books = new Map<string, { opening: Sums; closing: Sums }>();
  const book = (chainId: number, tokenAddress: string) => {
    const key = `${chainId}:${tokenAddress}`;
    let found = books.get(key);
    if (!found) {
      const empty: Sums = { chainId, tokenAddress, byKind: {}, balances: {} };
      books.set(key, (found = { opening: empty, closing: copy(empty) }));
    }
    return found;
  };
  for (const sum of before) {
    const b = book(sum.chain_id, sum.token_address);
    add(b.opening, sum);
    add(b.closing, sum);
  }
  for (const entry of entries) add(book(entry.chain_id, entry.token_address).closing, entry);

  const token = (chainId: number, tokenAddress: string) => deps.registry.payableByAddress(chainId, tokenAddress);
  const decimalsOf = (chainId: number, tokenAddress: string) => token(chainId, tokenAddress)?.decimals ?? 0;
  const figures = (sums: Sums): StatementFigures => {
    const decimals = decimalsOf(sums.chainId, sums.tokenAddress);
    const kind = (k: LedgerKind) => formatUnits(sums.byKind[k] ?? 0n, decimals);
    const atDeposits = AT_DEPOSITS.reduce((sum, account) => sum + (sums.balances[account] ?? 0n), 0n);
    return { payins: kind('payin'), payouts: kind('payout'), fees: kind('fee'), refunds: kind('refund'), held: kind('held'), netted: kind('netting'), atDeposits: formatUnits(atDeposits, decimals) };
  };
  const movement = (e: StatementEntryRow): StatementMovement => ({
    at: e.created_at.toISOString(),
    kind: e.kind,
    paymentId: e.payment_id,
    orderId: e.order_id,
    chainId: String(e.chain_id),
    tokenSymbol: token(e.chain_id, e.token_address)?.symbol ?? null,
    tokenAddress: e.token_address,
    amount: formatUnits(BigInt(e.amount_units), decimalsOf(e.chain_id, e.token_address)),
    amountUnits: e.amount_units,
    debit: e.debit_account,
    credit: e.credit_account,
    txHash: e.tx_hash,
    ref: e.ref,
  });
  return {
    appId: input.appId,
    from: input.from.toISOString(),
    to: input.to.toISOString(),
    books: [...books.values()]
      .sort((a, b) => a.opening.chainId - b.opening.chainId || a.opening.tokenAddress.localeCompare(b.opening.tokenAddress))
      .map(({ opening, closing }) => ({
        chainId: String(opening.chainId),
        tokenSymbol: token(opening.chainId, opening.tokenAddress)?.symbol ?? null,
        tokenAddress: opening.tokenAddress,
        decimals: decimalsOf(opening.chainId, opening.tokenAddress),
        opening: figures(opening),
        closing: figures(closing),
      })),
    movements: entries.map(movement),
  };
}

export const STATEMENT_CSV_COLUMNS = [
  'section',
  'at',
  'kind',
  'payment_id',
  'order_id',
  'chain_id',
  'token_symbol',
  'token_address',
  'amount',
  'amount_units',
  'debit',
  'credit',
  'tx_hash',
  'ref',
] as const;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled; a leading formula character is defused. */
function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The statement as one CSV table: a row per book and figure at the period's start (`opening`), a row per movement
 * (`movement`), and a row per book and figure at its end (`closing`; `kind` names the figure: payins, payouts,
 * fees, refunds, held, at_deposits).
 */
export function statementCsv(statement: Statement): string {
  const rows: Array<Array<string | null>> = [[...STATEMENT_CSV_COLUMNS]];
  const figureRows = (section: 'opening' | 'closing', at: string) =>
    statement.books.flatMap((b) =>
      FIGURES.map((f) => [section, at, f === 'atDeposits' ? 'at_deposits' : f, null, null, b.chainId, b.tokenSymbol, b.tokenAddress, b[section][f], null, null, null, null, null]),
    );
  rows.push(...figureRows('opening', statement.from));
  for (const m of statement.movements) {
    rows.push(['movement', m.at, m.kind, m.paymentId, m.orderId, m.chainId, m.tokenSymbol, m.tokenAddress, m.amount, m.amountUnits, m.debit, m.credit, m.txHash, m.ref]);
  }
  rows.push(...figureRows('closing', statement.to));
  return rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
