import type { Knex } from 'knex';
import type { DetectedPayin } from '../../domain/payins';
import type { PayinDisposition, PayinRow, PayinStatus } from '../tables';

function payinRow(paymentId: string, payin: DetectedPayin) {
  return {
    payment_id: paymentId,
    chain_id: payin.chainId,
    tx_hash: payin.txHash,
    log_index: payin.logIndex,
    token_address: payin.tokenAddress.toLowerCase(),
    sender_address: payin.from.toLowerCase(),
    amount_units: payin.amountUnits,
    block_number: String(payin.blockNumber),
  };
}

/**
 * Records what a run made of one transfer into a deposit address; retries converge on the same row. A write not
 * newer than the stored sequence changes nothing. A disposition, once set, is never taken back, nor is its payin
 * then recorded as dropped; a confirmed payin is never recorded as only detected again (a run sees a payin again
 * only after it dropped; a lost workflow task's retry repeats the detection); and a run never writes over another
 * payment's payin (a forged signal naming it).
 */
export async function upsertPayin(options: {
  knex: Knex;
  paymentId: string;
  payin: DetectedPayin;
  status: PayinStatus;
  disposition?: PayinDisposition;
  sequence: number;
}): Promise<void> {
  const { knex, paymentId, payin, status, disposition, sequence } = options;
  const row = { ...payinRow(paymentId, payin), status, disposition: disposition ?? null, sequence };
  const merge = knex<PayinRow>('payins')
    .insert(row)
    .onConflict(['chain_id', 'tx_hash', 'log_index'])
    .merge({
      block_number: row.block_number,
      status,
      ...(disposition ? { disposition: knex.raw('coalesce(payins.disposition, ?)', [disposition]) as unknown as PayinDisposition } : {}),
      sequence,
      updated_at: knex.fn.now() as unknown as Date,
    });
  const guarded = merge.where('payins.sequence', '<', sequence).where('payins.payment_id', paymentId);
  if (status === 'dropped') await guarded.whereNull('payins.disposition');
  else if (status === 'detected') await guarded.whereNot('payins.status', 'confirmed');
  else await guarded;
}

/**
 * Claims a payin that reached a closed payment's deposit address, for a refund to its sender or as the funding of a
 * merchant's refund: its disposition becomes `claim` unless it has one already. True when it is (now or already)
 * `claim`; false when it is something else (its payment counted it: it must never be refunded).
 */
export async function claimLatePayin(options: { knex: Knex; paymentId: string; payin: DetectedPayin; sequence: number; claim: 'refund' | 'funding' }): Promise<boolean> {
  const { knex, paymentId, payin, sequence, claim } = options;
  const [row] = await knex<PayinRow>('payins')
    .insert({ ...payinRow(paymentId, payin), status: 'confirmed', disposition: claim, sequence })
    .onConflict(['chain_id', 'tx_hash', 'log_index'])
    .merge({
      disposition: knex.raw('coalesce(payins.disposition, ?)', [claim]) as unknown as PayinDisposition,
      status: 'confirmed',
      updated_at: knex.fn.now() as unknown as Date,
    })
    .returning('disposition');
  return row?.disposition === claim;
}

export async function listPayins(options: { knex: Knex; paymentId: string }): Promise<PayinRow[]> {
  return options.knex<PayinRow>('payins').where({ payment_id: options.paymentId }).orderBy('id');
}

export async function findPayin(options: { knex: Knex; chainId: number; txHash: string; logIndex: number }): Promise<PayinRow | undefined> {
  const { knex, chainId, txHash, logIndex } = options;
  return knex<PayinRow>('payins').where({ chain_id: chainId, tx_hash: txHash, log_index: logIndex }).first();
}

/**
 * Keeps `heldUnits` of a confirmed payin at the deposit address as dust: a payin not yet given to the payment or a
 * refund becomes `held`. Idempotent (absolute value).
 */
export async function holdPayinDust(options: { knex: Knex; paymentId: string; payin: DetectedPayin; heldUnits: string }): Promise<void> {
  const { knex, paymentId, payin, heldUnits } = options;
  await knex<PayinRow>('payins')
    .insert({ ...payinRow(paymentId, payin), status: 'confirmed', disposition: 'held', held_units: heldUnits })
    .onConflict(['chain_id', 'tx_hash', 'log_index'])
    .merge({
      held_units: heldUnits,
      disposition: knex.raw(`case when payins.disposition = 'payment' then 'payment' else 'held' end`) as unknown as PayinDisposition,
      updated_at: knex.fn.now() as unknown as Date,
    });
}

/** The first confirmed payin that paid the payment (by its place on chain): whose sender a refund may go back to. */
export async function findFirstPayingPayin(options: { knex: Knex; paymentId: string }): Promise<PayinRow | undefined> {
  return options
    .knex<PayinRow>('payins')
    .where({ payment_id: options.paymentId, status: 'confirmed', disposition: 'payment' })
    .orderByRaw('block_number, log_index')
    .first();
}
