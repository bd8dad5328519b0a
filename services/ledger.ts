/**
 * Writes the conservation ledger (domain/ledger.ts) as money moves, and reconciles it with the chain. Payins are
 * entered when their run decides what they are for (paid, refunded, held); chain transactions when they are mined.
 */
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { conservation, type Conservation, type LedgerEntry } from '../domain/ledger';
import { intentKeys } from '../domain/chain-txs';
import { storedSettledUnits } from '../domain/payment';
import { payinId, type DetectedPayin } from '../domain/payins';
import { bookDepositAddresses, insertLedgerEntries, ledgerBooks, listPaymentLedgerEntries } from '../db/queries/ledger';
import { findChainTx } from '../db/queries/chain-txs';
import { insertHeldPayins } from '../db/queries/held-payins';
import { findPaymentById } from '../db/queries/payments';
import type { ChainTxRow } from '../db/tables';

/** A payin reached a deposit address and its run gave it a purpose: it is in the ledger from now on. */
export async function recordPayinEntry(deps: { knex: Knex }, paymentId: string, payin: DetectedPayin): Promise<void> {
  await insertLedgerEntries({
    knex: deps.knex,
    entries: [{ ref: `payin:${payinId(payin)}`, chainId: payin.chainId, tokenAddress: payin.tokenAddress, kind: 'payin', debit: 'deposit', credit: 'external', amountUnits: payin.amountUnits, paymentId }],
  });
}

/** Dust of a payin is held at its deposit address. */
export async function recordHeldEntry(deps: { knex: Knex }, paymentId: string, payin: DetectedPayin, heldUnits: string): Promise<void> {
  await recordPayinEntry(deps, paymentId, payin);
  await insertLedgerEntries({
    knex: deps.knex,
    entries: [{ ref: `held:${payinId(payin)}`, chainId: payin.chainId, tokenAddress: payin.tokenAddress, kind: 'held', debit: 'held', credit: 'deposit', amountUnits: heldUnits, paymentId }],
  });
}

/**
 * Transfers of tokens nobody configured into a payment's deposit address, recorded as seen (unconfirmed) for the
 * operator: never a payin, never refunded, never swept. Recorded once per transfer, whatever the rescans.
 */
export async function recordQuarantinedEntries(deps: { knex: Knex }, transfers: Array<{ paymentId: string; transfer: DetectedPayin }>): Promise<void> {
  await insertLedgerEntries({
    knex: deps.knex,
    entries: transfers.map(({ paymentId, transfer }) => ({
      ref: `${QUARANTINED_REF}${payinId(transfer)}`,
      chainId: transfer.chainId,
      tokenAddress: transfer.tokenAddress,
      kind: 'quarantined',
      debit: 'quarantine',
      credit: 'external',
      amountUnits: transfer.amountUnits,
      paymentId,
    })),
  });
}

const QUARANTINED_REF = 'quarantined:';

export interface QuarantinedTransfer {
  chainId: number;
  tokenAddress: string;
  amountUnits: string;
  txHash: string;
  logIndex: number;
  recordedAt: Date;
}

/** The quarantined transfers into one payment's deposit address, oldest first. */
export async function listQuarantinedTransfers(deps: { knex: Knex }, paymentId: string): Promise<QuarantinedTransfer[]> {
  const rows = await listPaymentLedgerEntries({ knex: deps.knex, paymentId, kind: 'quarantined' });
  return rows.map((row) => {
    // The ref carries the transfer's identity: `quarantined:<chainId>:<txHash>:<logIndex>`.
    const [, txHash = '', logIndex = ''] = row.ref.slice(QUARANTINED_REF.length).split(':');
    return { chainId: row.chain_id, tokenAddress: row.token_address, amountUnits: row.amount_units, txHash, logIndex: Number(logIndex), recordedAt: row.created_at };
  });
}

/**
 * Payins into an account every deposit shares (Stellar's receiving account) that name no payment (no memo, an
 * unknown one): listed in `held_payins` for the operator and entered in the ledger as quarantined, at once, so a
 * rescan records nothing twice and the books account for them until the operator returns or credits them.
 */
export async function quarantinePayins(deps: { knex: Knex }, payins: DetectedPayin[]): Promise<void> {
  if (payins.length === 0) return;
  await deps.knex.transaction(async (trx) => {
    await insertHeldPayins({ knex: trx, payins });
    await insertLedgerEntries({
      knex: trx,
      entries: payins.map((p) => ({ ref: `quarantined:${payinId(p)}`, chainId: p.chainId, tokenAddress: p.tokenAddress, kind: 'quarantined', debit: 'quarantine', credit: 'external', amountUnits: p.amountUnits, paymentId: null })),
    });
  });
}

/**
 * A chain transaction of ours succeeded: its movement, by what its intent is for. A payout is entered in the book
 * of the payment's payin (source chain and token), with the fee the treasury kept: the book then says where every
 * unit paid in went, whatever chain or token the merchant was paid in.
 */
export async function recordMinedTxEntries(deps: { knex: Knex }, tx: ChainTxRow): Promise<void> {
  const kind = tx.intent_key.split(':')[0];
  const ref = `tx:${tx.intent_key}`;
  const moved = { ref, chainId: tx.chain_id, tokenAddress: tx.token_address ?? '', amountUnits: tx.amount_units ?? '0', paymentId: tx.payment_id };
  const entries: LedgerEntry[] = [];
  if (kind === 'sweep') entries.push({ ...moved, kind: 'sweep', debit: 'treasury', credit: 'deposit' });
  if (kind === 'refund') entries.push({ ...moved, kind: 'refund', debit: 'external', credit: 'deposit' });
  if (kind === 'bridge-burn') entries.push({ ...moved, kind: 'bridge', debit: 'bridge', credit: 'treasury' });
  if (kind === 'payout' && tx.payment_id) {
    const payment = await findPaymentById({ knex: deps.knex, id: tx.payment_id });
    if (!payment) throw new Error(`payment ${tx.payment_id} of ${tx.intent_key} does not exist`);
    const book = { chainId: payment.source_chain_id, tokenAddress: payment.source_token_address, paymentId: payment.id };
    const paid = (storedSettledUnits(payment) - BigInt(payment.fee_units)).toString();
    // Paid from the destination treasury's float, unless the payment bridged its own funds (a short float).
    const bridged = await findChainTx({ knex: deps.knex, intentKey: intentKeys.bridgeBurn(payment.id) });
    const from = bridged ? 'bridge' : 'treasury';
    entries.push({ ...book, ref, kind: 'payout', debit: 'merchant', credit: from, amountUnits: paid });
    entries.push({ ...book, ref: `fee:${payment.id}`, kind: 'fee', debit: 'fees', credit: 'treasury', amountUnits: payment.fee_units });
  }
  await insertLedgerEntries({ knex: deps.knex, entries });
}

/**
 * A merchant refund landed: the source chain's treasury paid the customer. The book's treasury is short of it until
 * the app's payouts make it good: the app owes it (docs/interface-decisions.md).
 */
export async function recordMerchantRefundEntry(
  deps: { knex: Knex },
  refund: { refundId: string; paymentId: string; chainId: number; tokenAddress: string; amountUnits: string },
): Promise<void> {
  await insertLedgerEntries({
    knex: deps.knex,
    entries: [{ ref: `tx:merchant-refund:${refund.refundId}`, chainId: refund.chainId, tokenAddress: refund.tokenAddress, kind: 'refund', debit: 'external', credit: 'treasury', amountUnits: refund.amountUnits, paymentId: refund.paymentId }],
  });
}

export interface BookReport extends Conservation {
  chainId: number;
  tokenAddress: string;
  /** What the deposit addresses hold on chain now, and what the ledger says they hold (deposit + held). */
  depositsOnChain: bigint;
  depositsInLedger: bigint;
}

/**
 * Every book's conservation figures, and its deposit addresses' balances read from the chain; with `appId`, of that
 * merchant app's payments only (each payment's entries balance on their own).
 */
export async function reconcileLedger(deps: { knex: Knex; chains: ChainAdapters }, scope: { appId?: string } = {}): Promise<BookReport[]> {
  const reports: BookReport[] = [];
  for (const book of await ledgerBooks({ knex: deps.knex, appId: scope.appId })) {
    const adapter = deps.chains.adapter(book.chainId);
    const addresses = await bookDepositAddresses({ knex: deps.knex, chainId: book.chainId, tokenAddress: book.tokenAddress, appId: scope.appId });
    // The ledger keys books by the lowercased address; base58 mints are case-sensitive, so read with the configured spelling.
    const tokenAddress = deps.chains.registry.tokenByAddress(book.chainId, book.tokenAddress)?.address ?? book.tokenAddress;
    const balances = await Promise.all(addresses.map((a) => adapter.balanceOf(a, tokenAddress)));
    reports.push({
      chainId: book.chainId,
      tokenAddress: book.tokenAddress,
      ...conservation(book.byKind, book.balances),
      depositsOnChain: balances.reduce((sum, b) => sum + b, 0n),
      depositsInLedger: (book.balances.deposit ?? 0n) + (book.balances.held ?? 0n),
    });
  }
  return reports;
}
