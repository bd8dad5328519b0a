import type { Knex } from 'knex';
import type { OrderStatus } from '../../domain/orders';
import type { OrderCallbackAttemptRow, OrderRow } from '../tables';

export type NewOrder = Omit<
  OrderRow,
  | 'status'
  | 'status_sequence'
  | 'selected_currency'
  | 'payment_id'
  | 'rate'
  | 'rate_source'
  | 'paid_at'
  | 'receipt_sent_at'
  | 'created_at'
  | 'updated_at'
  | 'workflow_started_at'
>;

/**
 * Inserts the order. Returns null when `(app_id, merchant_order_id)` already exists; concurrent inserts of the
 * same merchant order wait on the unique index, so exactly one wins.
 */
export async function insertOrder(options: { knex: Knex; order: NewOrder }): Promise<OrderRow | null> {
  const [row] = await options
    .knex<OrderRow>('orders')
    .insert(options.order)
    .onConflict(['app_id', 'merchant_order_id'])
    .ignore()
    .returning('*');
  return row ?? null;
}

export async function findOrderById(options: { knex: Knex; id: string }): Promise<OrderRow | undefined> {
  return options.knex<OrderRow>('orders').where({ id: options.id }).first();
}

export async function findOrderByMerchantOrderId(options: { knex: Knex; appId: string; merchantOrderId: string }): Promise<OrderRow | undefined> {
  return options.knex<OrderRow>('orders').where({ app_id: options.appId, merchant_order_id: options.merchantOrderId }).first();
}

/** The order row, locked until the transaction ends: serialises creating its payment. */
export async function lockOrder(options: { trx: Knex.Transaction; id: string }): Promise<OrderRow | undefined> {
  return options.trx<OrderRow>('orders').where({ id: options.id }).forUpdate().first();
}

export async function attachOrderPayment(options: {
  trx: Knex.Transaction;
  orderId: string;
  paymentId: string;
  selectedCurrency: string;
  rate: string;
  rateSource: string;
}): Promise<void> {
  const { trx } = options;
  await trx<OrderRow>('orders').where({ id: options.orderId }).update({
    payment_id: options.paymentId,
    selected_currency: options.selectedCurrency,
    rate: options.rate,
    rate_source: options.rateSource,
    // An order with a payment waits for it; the workflow records the same status right after.
    status: trx.raw(`case when status = 'new' then 'pending' else status end`) as unknown as OrderStatus,
    updated_at: trx.fn.now() as unknown as Date,
  });
}

export async function markOrderWorkflowStarted(options: { knex: Knex; id: string }): Promise<void> {
  await options
    .knex<OrderRow>('orders')
    .where({ id: options.id })
    .whereNull('workflow_started_at')
    .update({ workflow_started_at: options.knex.fn.now() as unknown as Date });
}

export async function listOrdersWithoutWorkflow(options: { knex: Knex; olderThanMs: number; limit: number }): Promise<OrderRow[]> {
  return options
    .knex<OrderRow>('orders')
    .whereNull('workflow_started_at')
    .where('created_at', '<', options.knex.raw(`now() - make_interval(secs => ?)`, [options.olderThanMs / 1000]))
    .orderBy('created_at')
    .limit(options.limit);
}

/**
 * One lifecycle step of the order, unless a write with the same or a newer sequence already landed. Absolute
 * values only, so a retried write lands the same state.
 */
export async function applyOrderTransition(options: { knex: Knex; orderId: string; status: OrderStatus; sequence?: number }): Promise<void> {
  const { knex, orderId, status, sequence } = options;
  const query = knex('orders').where({ id: orderId });
  if (sequence !== undefined) query.where('status_sequence', '<', sequence);
  await query.update({
    status,
    updated_at: knex.fn.now(),
    ...(sequence !== undefined ? { status_sequence: sequence } : {}),
    ...(status === 'paid' ? { paid_at: knex.raw('coalesce(paid_at, now())') } : {}),
  });
}

/** Claims the receipt of a paid order; false when it was already sent (a retried activity must not mail twice). */
export async function claimReceipt(options: { knex: Knex; orderId: string }): Promise<boolean> {
  const updated = await options
    .knex('orders')
    .where({ id: options.orderId })
    .whereNull('receipt_sent_at')
    .update({ receipt_sent_at: options.knex.fn.now() });
  return updated > 0;
}

export async function releaseReceipt(options: { knex: Knex; orderId: string }): Promise<void> {
  await options.knex('orders').where({ id: options.orderId }).update({ receipt_sent_at: null });
}

export async function insertCallbackAttempt(options: {
  knex: Knex;
  attempt: Omit<OrderCallbackAttemptRow, 'id' | 'attempted_at'> & { attempted_at: Date };
}): Promise<void> {
  await options.knex<OrderCallbackAttemptRow>('order_callback_attempts').insert(options.attempt).onConflict(['callback_id', 'attempt']).ignore();
}

export async function listCallbackAttempts(options: { knex: Knex; orderId: string }): Promise<OrderCallbackAttemptRow[]> {
  return options.knex<OrderCallbackAttemptRow>('order_callback_attempts').where({ order_id: options.orderId }).orderBy('id');
}

/** One page of an app's legacy orders, newest first, after the order `afterId` (keyset). */
export async function listAppOrders(options: { knex: Knex; appId: string; afterId?: string; limit: number }): Promise<OrderRow[]> {
  const { knex, appId, afterId, limit } = options;
  const query = knex<OrderRow>('orders').where('app_id', appId);
  if (afterId) query.whereRaw('(created_at, id) < (select created_at, id from orders where id = ? and app_id = ?)', [afterId, appId]);
  return query.orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'desc' },
  ]).limit(limit);
}

/** The legacy order a payment was made for, if any (its customer's e-mail lives there). */
export async function findOrderByPaymentId(options: { knex: Knex; paymentId: string }): Promise<OrderRow | undefined> {
  return options.knex<OrderRow>('orders').where({ payment_id: options.paymentId }).first();
}
