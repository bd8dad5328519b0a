import type { Knex } from 'knex';
import type { ChainTxRow, ChainTxStatus } from '../tables';

export async function findChainTx(options: { knex: Knex; intentKey: string }): Promise<ChainTxRow | undefined> {
  return options.knex<ChainTxRow>('chain_txs').where({ intent_key: options.intentKey }).first();
}

/**
 * Takes the signer's next nonce under a row lock, so concurrent workers never sign two transactions with one
 * nonce. `chainPendingNonce` lifts the counter past transactions the key sent outside Payrail.
 */
export async function allocateNonce(options: {
  trx: Knex.Transaction;
  chainId: number;
  signer: string;
  chainPendingNonce: number;
}): Promise<number> {
  const { trx, chainId, signer, chainPendingNonce } = options;
  await trx('signer_nonces')
    .insert({ chain_id: chainId, signer, next_nonce: String(chainPendingNonce) })
    .onConflict(['chain_id', 'signer'])
    .ignore();
  const row = await trx<{ chain_id: number; signer: string; next_nonce: string }>('signer_nonces')
    .where({ chain_id: chainId, signer })
    .forUpdate()
    .first();
  const nonce = Math.max(Number(row?.next_nonce ?? 0), chainPendingNonce);
  await trx('signer_nonces').where({ chain_id: chainId, signer }).update({ next_nonce: String(nonce + 1) });
  return nonce;
}

export async function insertChainTx(options: {
  trx: Knex.Transaction;
  tx: Omit<ChainTxRow, 'status' | 'block_number' | 'created_at' | 'updated_at'>;
}): Promise<void> {
  await options.trx<ChainTxRow>('chain_txs').insert(options.tx);
}

export async function markChainTxMined(options: {
  knex: Knex;
  intentKey: string;
  status: Exclude<ChainTxStatus, 'signed'>;
  blockNumber: number;
}): Promise<void> {
  await options
    .knex<ChainTxRow>('chain_txs')
    .where({ intent_key: options.intentKey })
    .update({ status: options.status, block_number: String(options.blockNumber), updated_at: options.knex.fn.now() as unknown as Date });
}

/** Signed transactions of the signer with lower nonces that are not yet seen mined: re-broadcast them first. */
export async function listUnminedBefore(options: {
  knex: Knex;
  chainId: number;
  signer: string;
  nonce: string;
}): Promise<ChainTxRow[]> {
  return options
    .knex<ChainTxRow>('chain_txs')
    .where({ chain_id: options.chainId, signer: options.signer, status: 'signed' })
    .where('nonce', '<', options.nonce)
    .orderBy('nonce');
}

/** Forgets the nonce counters of chains whose state was reset (the devnet starts from block 0 on every run). */
export async function resetSignerNonces(options: { knex: Knex; chainIds: number[] }): Promise<void> {
  await options.knex('signer_nonces').whereIn('chain_id', options.chainIds).delete();
}
