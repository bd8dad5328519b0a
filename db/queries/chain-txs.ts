import type { Knex } from 'knex';
import type { ChainTxQueueRow, ChainTxRow, ChainTxStatus } from '../tables';

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

/** A signed transaction as it is first stored. */
export type NewChainTx = Omit<ChainTxRow, 'status' | 'block_number' | 'sent_at_block' | 'replaced_tx_hashes' | 'created_at' | 'updated_at'>;

/** Stores signed transactions, in one statement. */
export async function insertChainTxs(options: { trx: Knex.Transaction; txs: NewChainTx[] }): Promise<void> {
  if (options.txs.length > 0) await options.trx<ChainTxRow>('chain_txs').insert(options.txs);
}

/** Which of these intents have a transaction stored. */
export async function findStoredIntents(options: { trx: Knex.Transaction; intentKeys: string[] }): Promise<Set<string>> {
  const rows = await options.trx<ChainTxRow>('chain_txs').whereIn('intent_key', options.intentKeys).select('intent_key');
  return new Set(rows.map((row) => row.intent_key));
}

/** The intent's row, locked until the transaction ends: one replacement at a time. */
export async function lockChainTx(options: { trx: Knex.Transaction; intentKey: string }): Promise<ChainTxRow | undefined> {
  return options.trx<ChainTxRow>('chain_txs').where({ intent_key: options.intentKey }).forUpdate().first();
}

/**
 * A new attempt of the intent (same nonce with higher fees, a new nonce, or signed again once the old one can no
 * longer land): the current one joins the replaced.
 */
export async function replaceChainTx(options: {
  trx: Knex.Transaction;
  intentKey: string;
  attempt: Pick<ChainTxRow, 'nonce' | 'raw_tx' | 'tx_hash' | 'max_fee_per_gas' | 'max_priority_fee_per_gas' | 'valid_until'>;
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

/**
 * Forgets the nonce counters and send queues of chains whose state was reset (the devnet starts from block 0 on every
 * run): a transaction in flight on the old chain never holds a queue of the new one.
 */
export async function resetSignerNonces(options: { knex: Knex; chainIds: number[] }): Promise<void> {
  await options.knex('signer_nonces').whereIn('chain_id', options.chainIds).delete();
  await options.knex('chain_tx_queue').whereIn('chain_id', options.chainIds).delete();
  await options.knex<ChainTxRow>('chain_txs').whereIn('chain_id', options.chainIds).where({ status: 'signed' }).update({ queue_key: null });
}

/** Queues an intent for its turn on its send queue; queuing it again changes nothing. */
export async function enqueueChainTx(options: { knex: Knex; row: Omit<ChainTxQueueRow, 'refused' | 'created_at'> }): Promise<void> {
  const { row } = options;
  await options
    .knex<ChainTxQueueRow>('chain_tx_queue')
    .insert({ ...row, request: JSON.stringify(row.request) as never, action: JSON.stringify(row.action) as never })
    .onConflict('intent_key')
    .ignore();
}

export async function findQueuedChainTx(options: { knex: Knex; intentKey: string }): Promise<ChainTxQueueRow | undefined> {
  return options.knex<ChainTxQueueRow>('chain_tx_queue').where({ intent_key: options.intentKey }).first();
}

/** Holds the send queue until the transaction ends: one worker at a time decides and signs its next transaction. */
export async function lockSendQueue(options: { trx: Knex.Transaction; chainId: number; queueKey: string }): Promise<void> {
  await options.trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`chain-tx-queue:${options.chainId}:${options.queueKey}`]);
}

/** The queue's transactions signed and not yet seen mined: the one in flight (a queue lets one out at a time). */
export async function listInFlight(options: { knex: Knex; chainId: number; queueKey: string }): Promise<ChainTxRow[]> {
  return options.knex<ChainTxRow>('chain_txs').where({ chain_id: options.chainId, queue_key: options.queueKey, status: 'signed' });
}

/**
 * The queue's next intents in turn (lowest priority value, then oldest), at most `limit`. An intent refused when its
 * turn came is skipped, except by its own wait (`own`), which tries it again.
 */
export async function listNextQueued(options: { knex: Knex; chainId: number; queueKey: string; own: string; limit: number }): Promise<ChainTxQueueRow[]> {
  return options
    .knex<ChainTxQueueRow>('chain_tx_queue')
    .where({ chain_id: options.chainId, queue_key: options.queueKey })
    .where((q) => {
      void q.whereNull('refused').orWhere({ intent_key: options.own });
    })
    .orderBy([{ column: 'priority' }, { column: 'created_at' }, { column: 'intent_key' }])
    .limit(options.limit);
}

export async function markQueuedRefused(options: { knex: Knex; intentKey: string; reason: string }): Promise<void> {
  await options.knex<ChainTxQueueRow>('chain_tx_queue').where({ intent_key: options.intentKey }).update({ refused: options.reason });
}

/** The intent left the queue: signed (its row is in chain_txs now). */
export async function dequeueChainTx(options: { knex: Knex; intentKey: string }): Promise<void> {
  await options.knex<ChainTxQueueRow>('chain_tx_queue').where({ intent_key: options.intentKey }).delete();
}
