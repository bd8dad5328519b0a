import type { Knex } from 'knex';
import type { DetectedPayin } from '../../workflows/types';
import type { PayinDisposition, PayinRow, PayinStatus } from '../tables';

/** Records what the payment made of one transfer into its deposit address; replays converge on the same row. */
export async function upsertPayin(options: {
  knex: Knex;
  paymentId: string;
  payin: DetectedPayin;
  status: PayinStatus;
  disposition?: PayinDisposition;
}): Promise<void> {
  const { knex, paymentId, payin, status, disposition } = options;
  const row = {
    payment_id: paymentId,
    chain_id: payin.chainId,
    tx_hash: payin.txHash,
    log_index: payin.logIndex,
    token_address: payin.tokenAddress.toLowerCase(),
    sender_address: payin.from.toLowerCase(),
    amount_units: payin.amountUnits,
    block_number: String(payin.blockNumber),
    status,
    disposition: disposition ?? null,
  };
  await knex<PayinRow>('payins')
    .insert(row)
    .onConflict(['chain_id', 'tx_hash', 'log_index'])
    .merge({
      block_number: row.block_number,
      status,
      ...(disposition ? { disposition } : {}),
      updated_at: knex.fn.now() as unknown as Date,
    });
}

export async function listPayins(options: { knex: Knex; paymentId: string }): Promise<PayinRow[]> {
  return options.knex<PayinRow>('payins').where({ payment_id: options.paymentId }).orderBy('id');
}
