import type { Knex } from 'knex';
import type { PaymentTransition } from '../../domain/payment';
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
  | 'created_at'
  | 'updated_at'
  | 'workflow_started_at'
>;

/**
 * Inserts the payment and its deposit address in one transaction. Returns null when `(app_id, order_id)` already
 * exists; concurrent inserts of the same order wait on the unique index, so exactly one wins.
 */
export async function insertPayment(options: {
  knex: Knex;
  payment: NewPayment;
  watchUntil: Date;
}): Promise<PaymentRow | null> {
  const { knex, payment, watchUntil } = options;
  return knex.transaction(async (trx) => {
    const [row] = await trx<PaymentRow>('payments')
      .insert({ ...payment, display: JSON.stringify(payment.display) as never, metadata: toJsonb(payment.metadata) })
      .onConflict(['app_id', 'order_id'])
      .ignore()
      .returning('*');
    if (!row) return null;
    await trx<DepositAddressRow>('deposit_addresses').insert({
      chain_id: payment.source_chain_id,
      address: payment.deposit_address.toLowerCase(),
      payment_id: payment.id,
      watch_until: watchUntil,
    });
    return row;
  });
}

const toJsonb = (value: Record<string, unknown> | null) => (value === null ? null : (JSON.stringify(value) as never));

export async function findPaymentById(options: { knex: Knex; id: string }): Promise<PaymentRow | undefined> {
  return options.knex<PaymentRow>('payments').where({ id: options.id }).first();
}

export async function findPaymentByOrder(options: {
  knex: Knex;
  appId: string;
  orderId: string;
}): Promise<PaymentRow | undefined> {
  return options.knex<PaymentRow>('payments').where({ app_id: options.appId, order_id: options.orderId }).first();
}

export async function markPaymentWorkflowStarted(options: { knex: Knex; id: string }): Promise<void> {
  await options
    .knex<PaymentRow>('payments')
    .where({ id: options.id })
    .whereNull('workflow_started_at')
    .update({ workflow_started_at: options.knex.fn.now() as unknown as Date });
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
 * of an older step then changes nothing). Absolute values only, so a retried write lands the same state.
 */
export async function applyPaymentTransition(options: { knex: Knex; transition: PaymentTransition }): Promise<void> {
  const { knex, transition } = options;
  const patch: Partial<Record<keyof PaymentRow, unknown>> = { status: transition.status, updated_at: knex.fn.now() };
  if (transition.sequence !== undefined) patch.status_sequence = transition.sequence;
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
  const query = knex('payments').where({ id: transition.paymentId });
  if (transition.sequence !== undefined) query.where('status_sequence', '<', transition.sequence);
  await query.update(patch);
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

/** Every watched deposit address on the chain, as the payment spells it, with the token its payment takes. */
export async function listWatchedDeposits(options: {
  knex: Knex;
  chainId: number;
}): Promise<Array<{ address: string; paymentId: string; tokenAddress: string }>> {
  return options
    .knex<DepositAddressRow>('deposit_addresses as d')
    .join('payments as p', 'p.id', 'd.payment_id')
    .select({ address: 'p.deposit_address', paymentId: 'p.id', tokenAddress: 'p.source_token_address' })
    .where('d.chain_id', options.chainId)
    .where('d.watch_until', '>', options.knex.fn.now());
}

export async function findPaymentsByIds(options: { knex: Knex; ids: string[] }): Promise<PaymentRow[]> {
  if (options.ids.length === 0) return [];
  return options.knex<PaymentRow>('payments').whereIn('id', options.ids);
}
