import type { Knex } from 'knex';
import { RELAXED_COMMIT } from '../connection';
import { replaceableStatuses, type PaymentTransition } from '../../domain/payment';
import type { DepositAddressRow, PaymentRow } from '../tables';

export type NewPayment = Omit<
  PaymentRow,
  | 'status'
  | 'status_sequence'
  | 'sender_address'
  | 'payin_tx_hash'
  | 'amount_received_units'
  | 'payin_confirmed_at'
  | 'payout_tx_hash'
  | 'payout_confirmed_at'
  | 'accepted_as_paid_at'
  | 'netted_units'
  | 'created_at'
  | 'updated_at'
  | 'workflow_started_at'
>;

/**
 * Inserts the payment and its deposit address in one statement (one round trip, atomic like a transaction). Returns
 * null when `(app_id, keyless, order_id)` already exists; concurrent inserts of the same order wait on the unique index, so
 * exactly one wins, and the loser inserts no deposit address.
 */
export async function insertPayment(options: {
  knex: Knex;
  payment: NewPayment;
  watchUntil: Date;
}): Promise<PaymentRow | null> {
  const { knex, payment, watchUntil } = options;
  const insert = knex<PaymentRow>('payments')
    .insert({ ...payment, display: JSON.stringify(payment.display) as never, metadata: toJsonb(payment.metadata) })
    .onConflict(['app_id', 'keyless', 'order_id'])
    .ignore()
    .returning('*')
    .toSQL();
  const { rows } = await knex.raw<{ rows: PaymentRow[] }>(
    `with inserted as (${insert.sql}),
     watched as (insert into deposit_addresses (chain_id, address, payment_id, watch_until)
                 select source_chain_id, lower(deposit_address), id, ? from inserted)
     select * from inserted`,
    [...insert.bindings, watchUntil],
  );
  return rows[0] ?? null;
}

const toJsonb = (value: Record<string, unknown> | null) => (value === null ? null : (JSON.stringify(value) as never));

export async function findPaymentById(options: { knex: Knex; id: string }): Promise<PaymentRow | undefined> {
  return options.knex<PaymentRow>('payments').where({ id: options.id }).first();
}

/** The payment of an order id in one namespace (keyed or keyless creates). */
export async function findPaymentByOrder(options: {
  knex: Knex;
  appId: string;
  orderId: string;
  keyless: boolean;
}): Promise<PaymentRow | undefined> {
  return options.knex<PaymentRow>('payments').where({ app_id: options.appId, order_id: options.orderId, keyless: options.keyless }).first();
}

/** The merchant's view of an order id: the keyed payment when there is one, else the keyless one. */
export async function findMerchantPaymentByOrder(options: { knex: Knex; appId: string; orderId: string }): Promise<PaymentRow | undefined> {
  return options
    .knex<PaymentRow>('payments')
    .where({ app_id: options.appId, order_id: options.orderId })
    .orderBy('keyless', 'asc')
    .first();
}

/**
 * Records that the payments' workflows run, in one statement for any number of them. A relaxed commit: lost in a
 * database crash, the reconciler finds the payment and ensures its workflow again.
 */
export async function markPaymentWorkflowsStarted(options: { knex: Knex; ids: string[] }): Promise<void> {
  await options.knex.raw(`update payments set workflow_started_at = now() from ${RELAXED_COMMIT} where id = any(?::uuid[]) and workflow_started_at is null`, [
    options.ids,
  ]);
}

export async function listPaymentsWithoutWorkflow(options: {
  knex: Knex;
  olderThanMs: number;
  limit: number;
}): Promise<PaymentRow[]> {
  return options
    .knex<PaymentRow>('payments')
    .whereNull('workflow_started_at')
    .where('created_at', '<', options.knex.raw(`now() - make_interval(secs => ?)`, [options.olderThanMs / 1000]))
    .orderBy('created_at')
    .limit(options.limit);
}

/**
 * Applies one lifecycle step, unless a write with the same or a newer sequence already landed (a zombie attempt
 * of an older step then changes nothing) or the step would take the payment back from where it stands
 * (`replaceableStatuses`). Absolute values only, so a retried write lands the same state. One
 * statement: it locks the row, reads the status it replaces, updates it and adds the timeline's event (a payment
 * makes five of these; as a transaction each was five round trips).
 */
export async function applyPaymentTransition(options: { knex: Knex; transition: PaymentTransition }): Promise<void> {
  const { knex, transition } = options;
  const patch: Partial<Record<keyof PaymentRow, unknown>> = { status: transition.status, status_sequence: transition.sequence };
  if (transition.payin) {
    patch.sender_address = transition.payin.senderAddress;
    patch.payin_tx_hash = transition.payin.txHash;
    patch.amount_received_units = transition.payin.amountReceivedUnits;
    patch.payin_confirmed_at = new Date(transition.payin.confirmedAt);
  }
  if (transition.payout) {
    patch.payout_tx_hash = transition.payout.txHash;
    patch.payout_confirmed_at = new Date(transition.payout.confirmedAt);
  }
  const sets = Object.entries(patch);
  const replaceable = replaceableStatuses(transition);
  // The timeline (the dashboard's): every status the payment entered, when it entered it.
  await knex.raw(
    `with applied as (
       update payments set ${sets.map(() => '?? = ?').join(', ')}, updated_at = now()
       from (select status from payments where id = ? for update) as replaced
       where payments.id = ? and payments.status_sequence < ? and payments.status in (${replaceable.map(() => '?').join(', ')})
       returning replaced.status as replaced_status
     )
     insert into payment_status_events (payment_id, status)
     select ?, ? from applied where replaced_status is distinct from ?`,
    [
      ...sets.flat(),
      transition.paymentId,
      transition.paymentId,
      transition.sequence,
      ...replaceable,
      transition.paymentId,
      transition.status,
      transition.status,
    ] as Knex.RawBinding[],
  );
}

/** Keeps the deposit address watched for `windowMs` from now (never shortens an existing watch). */
export async function extendDepositWatch(options: { knex: Knex; paymentId: string; windowMs: number }): Promise<void> {
  const { knex, paymentId, windowMs } = options;
  await knex('deposit_addresses')
    .where({ payment_id: paymentId })
    .update({ watch_until: knex.raw('greatest(watch_until, now() + make_interval(secs => ?))', [windowMs / 1000]) });
}

/** Of `addresses` (lower-case) on `chainId`, those still watched, with the payment each belongs to. One indexed query. */
export async function findWatchedDepositAddresses(options: {
  knex: Knex;
  chainId: number;
  addresses: string[];
}): Promise<Array<Pick<DepositAddressRow, 'address' | 'payment_id'>>> {
  if (options.addresses.length === 0) return [];
  return options
    .knex<DepositAddressRow>('deposit_addresses')
    .select('address', 'payment_id')
    .where({ chain_id: options.chainId })
    .whereRaw('address = any(?)', [options.addresses])
    .where('watch_until', '>', options.knex.fn.now());
}

export async function findPaymentsByIds(options: { knex: Knex; ids: string[] }): Promise<PaymentRow[]> {
  if (options.ids.length === 0) return [];
  return options.knex<PaymentRow>('payments').whereIn('id', options.ids);
}

/** A filter of one app's payments, as the dashboard's list asks for it. */
export interface PaymentListFilter {
  appId: string;
  status?: string;
  /** A payment id or the merchant's `orderId` (exact). */
  search?: { paymentId?: string; orderId: string };
  createdFrom?: Date;
  createdBefore?: Date;
}

/**
 * One page of an app's payments, newest first, after the payment `afterId` (keyset on `(created_at, id)`, served
 * by `payments_app_created_idx`: as fast on the 1,000th page as on the first).
 */
export async function listAppPayments(options: { knex: Knex; filter: PaymentListFilter; afterId?: string; limit: number }): Promise<PaymentRow[]> {
  const { knex, filter, afterId, limit } = options;
  const query = knex<PaymentRow>('payments').where('app_id', filter.appId);
  if (filter.status) query.where('status', filter.status);
  if (filter.search) {
    const { paymentId, orderId } = filter.search;
    query.where((q) => {
      void q.where('order_id', orderId);
      if (paymentId) void q.orWhere('id', paymentId);
    });
  }
  if (filter.createdFrom) query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) query.where('created_at', '<', filter.createdBefore);
  if (afterId) {
    query.whereRaw('(created_at, id) < (select created_at, id from payments where id = ? and app_id = ?)', [afterId, filter.appId]);
  }
  return query.orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'desc' },
  ]).limit(limit);
}

/** An app's payments changed at or after `since`, oldest change first (the live view's poll). */
export async function listAppPaymentsChangedSince(options: { knex: Knex; appId: string; since: Date; limit: number }): Promise<PaymentRow[]> {
  return options
    .knex<PaymentRow>('payments')
    .where('app_id', options.appId)
    .where('updated_at', '>=', options.since)
    .orderBy('updated_at')
    .limit(options.limit);
}

/** Every status the payment entered after its creation, in order. */
export async function listPaymentStatusEvents(options: { knex: Knex; paymentId: string }): Promise<Array<{ status: PaymentRow['status']; at: Date }>> {
  return options.knex('payment_status_events').select('status', 'at').where({ payment_id: options.paymentId }).orderBy('id');
}

/** A filter of one app's payments, as a merchant's server lists them by key. */
export interface PaymentChangeFilter {
  appId: string;
  status?: string;
  orderId?: string;
  createdFrom?: Date;
  createdBefore?: Date;
  updatedSince?: Date;
}

/** A position in an app's changes: a payment's change stamp (`updated_at` in microseconds since the epoch) and id. */
export interface PaymentChangePosition {
  updatedUs: string;
  id: string;
}

/**
 * One page of an app's payments in the order of their last change, oldest first, after `after` (keyset on
 * `(updated_at, id)`, served by `payments_app_updated_idx`). One app's stamps are unique and follow the order its
 * writes commit in (the trigger of migration 20261201120000), so paging by position never skips a change: a payment
 * changed while a client pages moves past the client's position and shows once more, as it now is.
 */
export async function listAppPaymentChanges(options: {
  knex: Knex;
  filter: PaymentChangeFilter;
  after?: PaymentChangePosition;
  limit: number;
}): Promise<Array<PaymentRow & { updated_us: string }>> {
  const { knex, filter, after, limit } = options;
  const query = knex<PaymentRow>('payments')
    .select('*', knex.raw(`(extract(epoch from updated_at) * 1000000)::bigint::text as updated_us`))
    .where('app_id', filter.appId);
  if (filter.status) query.where('status', filter.status);
  if (filter.orderId) query.where('order_id', filter.orderId);
  if (filter.createdFrom) query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) query.where('created_at', '<', filter.createdBefore);
  if (filter.updatedSince) query.where('updated_at', '>=', filter.updatedSince);
  if (after) query.whereRaw(`(updated_at, id) > (timestamptz 'epoch' + ?::bigint * interval '1 microsecond', ?::uuid)`, [after.updatedUs, after.id]);
  return query.orderBy([
    { column: 'updated_at', order: 'asc' },
    { column: 'id', order: 'asc' },
  ]).limit(limit) as Promise<Array<PaymentRow & { updated_us: string }>>;
}

/** The merchant accepted the payment as paid with what arrived; the first acceptance's time stays. */
export async function markAcceptedAsPaid(options: { knex: Knex; paymentId: string }): Promise<void> {
  await options.knex('payments').where({ id: options.paymentId }).whereNull('accepted_as_paid_at').update({ accepted_as_paid_at: options.knex.fn.now(), updated_at: options.knex.fn.now() });
}
