import type { Knex } from 'knex';
import type { RefundStatus } from '../../domain/refunds';
import type { PaymentRow, RefundRow } from '../tables';

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
export async function insertRefund(options: { knex: Knex; row: Omit<RefundRow, 'created_at' | 'updated_at' | 'completed_at' | 'tx_hash'> }): Promise<RefundRow | undefined> {
  const [row] = await options.knex<RefundRow>('refunds').insert(options.row).onConflict(['app_id', 'idempotency_key']).ignore().returning('*');
  return row;
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
