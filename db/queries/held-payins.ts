import type { Knex } from 'knex';
import type { DetectedPayin } from '../../domain/payins';

export interface HeldPayinRow {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  block_number: string;
  token_address: string;
  sender_address: string;
  receiver_address: string;
  amount_units: string;
  created_at: Date;
}

/** Records payins that matched no payment; a rescan records nothing twice. */
export async function insertHeldPayins(options: { knex: Knex; payins: DetectedPayin[] }): Promise<void> {
  if (options.payins.length === 0) return;
  await options
    .knex<HeldPayinRow>('held_payins')
    .insert(
      options.payins.map((p) => ({
        chain_id: p.chainId,
        tx_hash: p.txHash,
        log_index: p.logIndex,
        block_number: String(p.blockNumber),
        token_address: p.tokenAddress,
        sender_address: p.from,
        receiver_address: p.to,
        amount_units: p.amountUnits,
      })),
    )
    .onConflict(['chain_id', 'tx_hash', 'log_index'])
    .ignore();
}

export async function listHeldPayins(options: { knex: Knex; chainId?: number }): Promise<HeldPayinRow[]> {
  const query = options.knex<HeldPayinRow>('held_payins').orderBy('created_at');
  if (options.chainId !== undefined) void query.where({ chain_id: options.chainId });
  return query;
}
