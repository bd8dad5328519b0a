import type { Knex } from 'knex';
import type { ChainTxRow, ChainTxStatus } from '../tables';

export async function findChainTx(options: { knex: Knex; intentKey: string }): Promise<ChainTxRow | undefined> {
  return options.knex<ChainTxRow>('chain_txs').where({ intent_key: options.intentKey }).first();
}

/**
 * The signer's next nonce, its row locked until the transaction ends, so concurrent workers never sign two
 * transactions with one nonce. `chainPendingNonce` lifts the counter past transactions the key sent outside Payrail.
 * The caller stores the nonce after the last one it used (`storeNextNonce`) before it commits.
 */
export async function lockNextNonce(options: { trx: Knex.Transaction; chainId: number; signer: string; chainPendingNonce: number }): Promise<number> {
  const { trx, chainId, signer, chainPendingNonce } = options;
  await trx('signer_nonces')
    .insert({ chain_id: chainId, signer, next_nonce: String(chainPendingNonce) })
    .onConflict(['chain_id', 'signer'])
    .ignore();
  const row = await trx<{ chain_id: number; signer: string; next_nonce: string }>('signer_nonces')
    .where({ chain_id: chainId, signer })
    .forUpdate()
    .first();
  return Math.max(Number(row?.next_nonce ?? 0), chainPendingNonce);
}

export async function storeNextNonce(options: { trx: Knex.Transaction; chainId: number; signer: string; nextNonce: number }): Promise<void> {
  await options.trx('signer_nonces').where({ chain_id: options.chainId, signer: options.signer }).update({ next_nonce: String(options.nextNonce) });
}

/** One nonce of the signer, taken under its row lock (`lockNextNonce`). */
export async function allocateNonce(options: { trx: Knex.Transaction; chainId: number; signer: string; chainPendingNonce: number }): Promise<number> {
  const nonce = await lockNextNonce(options);
  await storeNextNonce({ ...options, nextNonce: nonce + 1 });
  return nonce;
}

export async function insertChainTx(options: {
  trx: Knex.Transaction;
  tx: Omit<ChainTxRow, 'status' | 'block_number' | 'sent_at_block' | 'replaced_tx_hashes' | 'created_at' | 'updated_at'>;
}): Promise<void> {
  await options.trx<ChainTxRow>('chain_txs').insert(options.tx);
}

/** The intent's row, locked until the transaction ends: one replacement at a time. */
export async function lockChainTx(options: { trx: Knex.Transaction; intentKey: string }): Promise<ChainTxRow | undefined> {
  return options.trx<ChainTxRow>('chain_txs').where({ intent_key: options.intentKey }).forUpdate().first();
}

/** A new attempt of the intent (same nonce with higher fees, or a new nonce): the current one joins the replaced. */
export async function replaceChainTx(options: {
  trx: Knex.Transaction;
  intentKey: string;
  attempt: Pick<ChainTxRow, 'nonce' | 'raw_tx' | 'tx_hash' | 'max_fee_per_gas' | 'max_priority_fee_per_gas'>;
}): Promise<void> {
  const { trx, intentKey, attempt } = options;
  await trx<ChainTxRow>('chain_txs')
    .where({ intent_key: intentKey })
    .update({
      ...attempt,
      sent_at_block: null,
      replaced_tx_hashes: trx.raw('array_append(replaced_tx_hashes, tx_hash)') as unknown as string[],
      updated_at: trx.fn.now() as unknown as Date,
    });
}

/** The block the current attempt went out at, set once per attempt. */
export async function markChainTxSent(options: { knex: Knex; intentKey: string; txHash: string; blockNumber: number }): Promise<void> {
  await options
    .knex<ChainTxRow>('chain_txs')
    .where({ intent_key: options.intentKey, tx_hash: options.txHash })
    .whereNull('sent_at_block')
    .update({ sent_at_block: String(options.blockNumber) });
}

/** The intent's transaction is mined as `txHash` (the current attempt or an earlier one). */
export async function markChainTxMined(options: {
  knex: Knex;
  intentKey: string;
  txHash: string;
  status: Exclude<ChainTxStatus, 'signed'>;
  blockNumber: number;
}): Promise<void> {
  const { knex, intentKey, txHash } = options;
  await knex<ChainTxRow>('chain_txs')
    .where({ intent_key: intentKey })
    .update({
      status: options.status,
      block_number: String(options.blockNumber),
      // The mined attempt becomes the intent's hash; the others stay listed as replaced.
      tx_hash: txHash,
      replaced_tx_hashes: knex.raw(`array_remove(array_append(replaced_tx_hashes, tx_hash), ?)`, [txHash]) as unknown as string[],
      updated_at: knex.fn.now() as unknown as Date,
    });
}

/**
 * Signed transactions of the signer with nonces from `fromNonce` up to below `nonce` that are not yet seen mined,
 * lowest first, at most `limit`: the ones that may hold `nonce` back.
 */
export async function listUnminedBefore(options: {
  knex: Knex;
  chainId: number;
  signer: string;
  nonce: string;
  fromNonce: number;
  limit: number;
}): Promise<ChainTxRow[]> {
  return options
    .knex<ChainTxRow>('chain_txs')
    .where({ chain_id: options.chainId, signer: options.signer, status: 'signed' })
    .where('nonce', '<', options.nonce)
    .where('nonce', '>=', String(options.fromNonce))
    .orderBy('nonce')
    .limit(options.limit);
}

/** Forgets the nonce counters of chains whose state was reset (the devnet starts from block 0 on every run). */
export async function resetSignerNonces(options: { knex: Knex; chainIds: number[] }): Promise<void> {
  await options.knex('signer_nonces').whereIn('chain_id', options.chainIds).delete();
}
