/**
 * Signs and stores the outbox's transactions one signer at a time, in batches (services/batches.ts): a batch takes
 * the signer's nonce row once, signs every transaction that waited for it at consecutive nonces, stores them in one
 * statement, and commits once. A batch costs the same few round trips to the database whatever its size, and holds
 * the signer's lock (and a pooled connection) only that long: a hundred payouts settling together wait for one
 * treasury's batches.
 */
import type { Knex } from 'knex';
import type { PreparedChainTx } from '../chains/family';
import { findStoredIntents, insertChainTxs, lockNextNonce, storeNextNonce, type NewChainTx } from '../db/queries/chain-txs';
import type { ChainTxRow } from '../db/tables';
import { KeyedBatches, perDatabase, type BatchJob } from './batches';

/** What the caller knows of the transaction before it is signed. */
export type ChainTxDraft = Pick<ChainTxRow, 'intent_key' | 'payment_id' | 'purpose' | 'chain_id' | 'to_address' | 'token_address' | 'amount_units' | 'queue_key' | 'action'>;

type Job = BatchJob<{ draft: ChainTxDraft; prepared: PreparedChainTx }, ChainTxRow>;

const signingBatches = perDatabase((knex: Knex) => new KeyedBatches((batch: Job[]) => signBatch(knex, batch)));

/** The intent's transaction was stored meanwhile (by another attempt): it takes no nonce, and its caller reads that one. */
class StoredMeanwhile extends Error {
  constructor(intentKey: string) {
    super(`the transaction of ${intentKey} was stored meanwhile`);
    this.name = 'StoredMeanwhile';
  }
}

/**
 * Signs `prepared` at the signer's next nonce and stores it as the intent's transaction, in the signer's next batch.
 * Rejects with `StoredMeanwhile` when the intent was stored meanwhile (the caller reads that one); a transaction
 * that is not stored takes no nonce, so a batch never leaves a gap.
 */
export function signInTurn(knex: Knex, draft: ChainTxDraft, prepared: PreparedChainTx): Promise<ChainTxRow> {
  return signingBatches(knex).submit(`${draft.chain_id}:${prepared.signer}`, { draft, prepared });
}

/**
 * Signs `prepared` at `nonce` and stores it, inside the caller's transaction: the caller holds what makes the nonce
 * its own (the signer's nonce row, or the send queue of an account that takes one transaction at a time).
 */
export async function signAtNonce(trx: Knex.Transaction, draft: ChainTxDraft, prepared: PreparedChainTx, nonce: number): Promise<ChainTxRow> {
  const tx = await signedTx(draft, prepared, nonce);
  await insertChainTxs({ trx, txs: [tx] });
  return storedRow(tx);
}

async function signedTx(draft: ChainTxDraft, prepared: PreparedChainTx, nonce: number): Promise<NewChainTx> {
  const signed = await prepared.sign(nonce);
  return {
    ...draft,
    signer: prepared.signer,
    nonce: String(nonce),
    raw_tx: signed.rawTx,
    tx_hash: signed.txHash,
    max_fee_per_gas: signed.fees?.maxFeePerGas.toString() ?? null,
    max_priority_fee_per_gas: signed.fees?.maxPriorityFeePerGas.toString() ?? null,
    valid_until: signed.validUntil ?? null,
  };
}

const storedRow = (tx: NewChainTx): ChainTxRow => ({ ...tx, status: 'signed', block_number: null, sent_at_block: null, replaced_tx_hashes: [], created_at: new Date(), updated_at: new Date() });

/**
 * Never rejects: every job is settled by its batch, once its transaction ended. A signer that signs here stores
 * every transaction under its nonce row's lock (here, or a queued intent's turn through `allocateNonce`), so an
 * intent stored by another attempt is seen once the batch holds the lock.
 */
async function signBatch(knex: Knex, batch: Job[]): Promise<void> {
  const [{ draft, prepared }] = batch.map((job) => job.item) as [Job['item']];
  const refused: Array<[Job, unknown]> = [];
  const stored: Array<[Job, ChainTxRow]> = [];
  try {
    await knex.transaction(async (trx) => {
      const identity = { trx, chainId: draft.chain_id, signer: prepared.signer };
      let nonce = await lockNextNonce({ ...identity, chainPendingNonce: Math.max(...batch.map((job) => job.item.prepared.chainPendingNonce)) });
      const taken = await findStoredIntents({ trx, intentKeys: batch.map((job) => job.item.draft.intent_key) });
      const txs: NewChainTx[] = [];
      for (const job of batch) {
        const { intent_key: intentKey } = job.item.draft;
        if (taken.has(intentKey)) {
          refused.push([job, new StoredMeanwhile(intentKey)]);
          continue;
        }
        try {
          const tx = await signedTx(job.item.draft, job.item.prepared, nonce);
          taken.add(intentKey);
          txs.push(tx);
          stored.push([job, storedRow(tx)]);
          nonce++;
        } catch (err) {
          // Not signed: it takes no nonce.
          refused.push([job, err]);
        }
      }
      await insertChainTxs({ trx, txs });
      await storeNextNonce({ ...identity, nextNonce: nonce });
    });
  } catch (err) {
    // Nothing of the batch was committed.
    for (const job of batch) job.reject(err);
    return;
  }
  for (const [job, err] of refused) job.reject(err);
  for (const [job, row] of stored) job.resolve(row);
}
