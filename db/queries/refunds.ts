import type { Knex } from 'knex';
import type { RefundStatus } from '../../domain/refunds';
import type { MerchantAppRow, PaymentRow, RefundRow } from '../tables';

/** The refund an app asked for under an idempotency key, if any. */
export async function findRefundByKey(options: { knex: Knex; appId: string; idempotencyKey: string }): Promise<RefundRow | undefined> {
  return options.knex<RefundRow>('refunds').where({ app_id: options.appId, idempotency_key: options.idempotencyKey }).first();
}

export async function findRefund(options: { knex: Knex; id: string }): Promise<RefundRow | undefined> {
  return options.knex<RefundRow>('refunds').where({ id: options.id }).first();
}

/** A payment's refunds, oldest first. */
export async function listPaymentRefunds(options: { knex: Knex; paymentId: string }): Promise<RefundRow[]> {
  return options.knex<RefundRow>('refunds').where({ payment_id: options.paymentId }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
}

/** The payment, locked until the transaction ends: refunds of one payment are decided one at a time. */
export async function lockPaymentForRefund(options: { trx: Knex.Transaction; paymentId: string }): Promise<PaymentRow | undefined> {
  return options.trx<PaymentRow>('payments').where({ id: options.paymentId }).forUpdate().first();
}

/** Inserts the refund; undefined when the app used its idempotency key already (another request took it). */
export async function insertRefund(options: { knex: Knex; row: Omit<RefundRow, 'created_at' | 'updated_at' | 'completed_at' | 'tx_hash' | 'claimed_at' | 'workflow_started_at' | 'funding_tx_hash' | 'funding_log_index' | 'funded_at'> }): Promise<RefundRow | undefined> {
  const [row] = await options.knex<RefundRow>('refunds').insert(options.row).onConflict(['app_id', 'idempotency_key']).ignore().returning('*');
  return row;
}

/** Records that the refund's run was started. */
export async function markRefundWorkflowStarted(options: { knex: Knex; id: string }): Promise<void> {
  await options.knex<RefundRow>('refunds').where({ id: options.id }).whereNull('workflow_started_at').update({ workflow_started_at: options.knex.fn.now() as unknown as Date });
}

/** Refunds with an address, given more than `olderThanMs` ago, whose run was never recorded as started: oldest first. */
export async function listRefundsWithoutWorkflow(options: { knex: Knex; olderThanMs: number; limit: number }): Promise<RefundRow[]> {
  return options
    .knex<RefundRow>('refunds')
    .whereNull('workflow_started_at')
    .whereNotNull('address')
    .where(options.knex.raw('coalesce(claimed_at, created_at)'), '<', options.knex.raw(`now() - make_interval(secs => ?)`, [options.olderThanMs / 1000]))
    .orderBy('created_at')
    .limit(options.limit);
}

/** Moves a refund on; a completed or failed refund stays as it is. */
export async function updateRefundStatus(options: { knex: Knex; id: string; status: RefundStatus; txHash?: string; completedAt?: Date }): Promise<void> {
  await options
    .knex<RefundRow>('refunds')
    .where({ id: options.id })
    .whereNotIn('status', ['completed', 'failed'])
    .update({
      status: options.status,
      ...(options.txHash ? { tx_hash: options.txHash } : {}),
      ...(options.completedAt ? { completed_at: options.completedAt } : {}),
      updated_at: options.knex.fn.now() as unknown as Date,
    });
}

/** The payment's refunds that wait for their merchant's funding, oldest first, locked until the transaction ends. */
export async function lockRefundsAwaitingFunding(options: { trx: Knex.Transaction; paymentId: string }): Promise<RefundRow[]> {
  return options
    .trx<RefundRow>('refunds')
    .where({ payment_id: options.paymentId })
    .whereNotNull('funding_units')
    .whereNull('funding_tx_hash')
    .whereIn('status', ['awaiting_address', 'pending'])
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .forUpdate();
}

/** The refund, locked until the transaction ends. */
export async function lockRefund(options: { trx: Knex.Transaction; id: string }): Promise<RefundRow | undefined> {
  return options.trx<RefundRow>('refunds').where({ id: options.id }).forUpdate().first();
}

/** Records the payin that funded the refund (once: a funded refund keeps its payin). */
export async function markRefundFunded(options: { knex: Knex; id: string; txHash: string; logIndex: number }): Promise<void> {
  await options
    .knex<RefundRow>('refunds')
    .where({ id: options.id })
    .whereNull('funding_tx_hash')
    .update({ funding_tx_hash: options.txHash, funding_log_index: options.logIndex, funded_at: options.knex.fn.now() as unknown as Date, updated_at: options.knex.fn.now() as unknown as Date });
}

/** The refund a payin funded, if it funded one. */
export async function findRefundFundedBy(options: { knex: Knex; paymentId: string; txHash: string; logIndex: number }): Promise<RefundRow | undefined> {
  return options.knex<RefundRow>('refunds').where({ payment_id: options.paymentId, funding_tx_hash: options.txHash, funding_log_index: options.logIndex }).first();
}

/** What an open refund (neither completed nor failed) of an app will owe: its amount, and its payment's terms. */
export type OpenRefundTerms = Pick<RefundRow, 'amount_units'> & Pick<PaymentRow, 'source_amount_units' | 'fee_units' | 'destination_amount_units' | 'destination_chain_id' | 'destination_token_address'>;

export async function listOpenAppRefunds(options: { knex: Knex; appId: string }): Promise<OpenRefundTerms[]> {
  return options
    .knex('refunds as r')
    .join('payments as p', 'p.id', 'r.payment_id')
    .where('r.app_id', options.appId)
    .whereNotIn('r.status', ['completed', 'failed'])
    // A refund its merchant funds owes nothing.
    .whereNull('r.funding_units')
    .select<OpenRefundTerms[]>('r.amount_units', 'p.source_amount_units', 'p.fee_units', 'p.destination_amount_units', 'p.destination_chain_id', 'p.destination_token_address');
}

/** Records once what a payment's payout keeps back for its app's refunds. */
export async function recordPaymentNetting(options: { knex: Knex; paymentId: string; nettedUnits: string }): Promise<boolean> {
  return (await options.knex<PaymentRow>('payments').where({ id: options.paymentId }).whereNull('netted_units').update({ netted_units: options.nettedUnits })) === 1;
}

/** The app's row, locked until the transaction ends: what it owes is changed one decision at a time. */
export async function lockAppForRefunds(options: { trx: Knex.Transaction; appId: string }): Promise<MerchantAppRow | undefined> {
  return options.trx<MerchantAppRow>('merchant_apps').where({ app_id: options.appId }).forUpdate().first();
}

/**
 * Gives a refund awaiting its address one (a customer's claim, or the merchant's send to the sender): it becomes
 * `pending`. Undefined when it no longer awaits one: an address is given once, whoever comes second is refused.
 */
export async function addressAwaitingRefund(options: { knex: Knex; id: string; address: string }): Promise<RefundRow | undefined> {
  const [row] = await options
    .knex<RefundRow>('refunds')
    .where({ id: options.id, status: 'awaiting_address' })
    .update({ address: options.address, status: 'pending', claimed_at: options.knex.fn.now() as unknown as Date, updated_at: options.knex.fn.now() as unknown as Date })
    .returning('*');
  return row;
}

/** What completed refunds gave back, per payment of `paymentIds` that has any (base units of its source token). */
export async function sumCompletedRefunds(options: { knex: Knex; paymentIds: string[] }): Promise<Map<string, bigint>> {
  if (options.paymentIds.length === 0) return new Map();
  const rows: Array<{ payment_id: string; units: string }> = await options
    .knex('refunds')
    .whereIn('payment_id', options.paymentIds)
    .where({ status: 'completed' })
    .groupBy('payment_id')
    .select('payment_id', options.knex.raw('sum(amount_units)::text as units'));
  return new Map(rows.map((r) => [r.payment_id, BigInt(r.units)]));
}
