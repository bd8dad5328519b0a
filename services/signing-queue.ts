/**
 * Signs and stores the outbox's transactions one signer at a time, in batches (services/batches.ts): a batch takes
 * the signer's nonce row once, signs and stores every transaction that waited for it at consecutive nonces, and
 * commits once.
 */
import type { Knex } from 'knex';
import type { PreparedChainTx } from '../chains/family';
import { insertChainTx, lockNextNonce, storeNextNonce } from '../db/queries/chain-txs';
import type { ChainTxRow } from '../db/tables';
import { KeyedBatches, perDatabase, type BatchJob } from './batches';

/** What the caller knows of the transaction before it is signed. */
export type ChainTxDraft = Pick<ChainTxRow, 'intent_key' | 'payment_id' | 'purpose' | 'chain_id' | 'to_address' | 'token_address' | 'amount_units' | 'queue_key' | 'action'>;

type Job = BatchJob<{ draft: ChainTxDraft; prepared: PreparedChainTx }, ChainTxRow>;

const signingBatches = perDatabase((knex: Knex) => new KeyedBatches((batch: Job[]) => signBatch(knex, batch)));

/**
 * Signs `prepared` at the signer's next nonce and stores it as the intent's transaction, in the signer's next batch.
 * Rejects with the insert's error when the intent was stored meanwhile (the caller reads that one); a transaction
 * that fails takes no nonce, so a batch never leaves a gap.
 */
export function signInTurn(knex: Knex, draft: ChainTxDraft, prepared: PreparedChainTx): Promise<ChainTxRow> {
  return signingBatches(knex).submit(`${draft.chain_id}:${prepared.signer}`, { draft, prepared });
}

/**
 * Signs `prepared` at `nonce` and stores it, inside the caller's transaction: the caller holds what makes the nonce
 * its own (the signer's nonce row, or the send queue of an account that takes one transaction at a time).
 */
export async function signAtNonce(trx: Knex.Transaction, draft: ChainTxDraft, prepared: PreparedChainTx, nonce: number): Promise<ChainTxRow> {
  const signed = await prepared.sign(nonce);
  const tx = {
    ...draft,
    signer: prepared.signer,
    nonce: String(nonce),
    raw_tx: signed.rawTx,
    tx_hash: signed.txHash,
    max_fee_per_gas: signed.fees?.maxFeePerGas.toString() ?? null,
    max_priority_fee_per_gas: signed.fees?.maxPriorityFeePerGas.toString() ?? null,
    valid_until: signed.validUntil ?? null,
  };
  await insertChainTx({ trx, tx });
  return { ...tx, status: 'signed' as const, block_number: null, sent_at_block: null, replaced_tx_hashes: [], created_at: new Date(), updated_at: new Date() };
}

/** Never rejects: every job is settled by its batch. */
async function signBatch(knex: Knex, batch: Job[]): Promise<void> {
  const [{ draft, prepared }] = batch.map((job) => job.item) as [Job['item']];
  const unsettled = new Set(batch);
  const stored: Array<[Job, ChainTxRow]> = [];
  try {
    await knex.transaction(async (trx) => {
      const identity = { trx, chainId: draft.chain_id, signer: prepared.signer };
      let nonce = await lockNextNonce({ ...identity, chainPendingNonce: Math.max(...batch.map((job) => job.item.prepared.chainPendingNonce)) });
      for (const job of batch) {
        try {
          // A savepoint each: one that fails (its intent stored meanwhile by another attempt) takes no nonce.
          const row = await trx.transaction((savepoint) => signAtNonce(savepoint, job.item.draft, job.item.prepared, nonce));
          stored.push([job, row]);
          nonce++;
        } catch (err) {
          unsettled.delete(job);
          job.reject(err);
        }
      }
      await storeNextNonce({ ...identity, nextNonce: nonce });
    });
  } catch (err) {
    // Nothing of the batch was committed.
    for (const job of unsettled) job.reject(err);
    return;
  }
  for (const [job, row] of stored) job.resolve(row);
}
