/**
 * The sign-once outbox of chain transactions. An intent's transaction is signed once and stored before it is
 * broadcast; every later attempt re-broadcasts those same bytes. A crash anywhere therefore yields at most one
 * transaction per intent on chain. Before an intent is signed, its terms are checked against the database
 * (`assertTransferOnTerms`); a call that would revert is refused visibly (`EstimateReverted`) rather than retried.
 *
 * One transfer at a time per sending account: an intent whose account takes one transaction at a time (TON seqno,
 * Stellar sequence), and every transfer out of one deposit address (refunds and sweeps, so a burst of them can
 * neither pile up nonces ahead of payouts nor top a deposit up twice), waits unsigned on its send queue until the
 * queue's transaction in flight is mined; then it is prepared against the chain as it is now and signed. Payouts
 * go first on a queue they share, sweeps next, refunds last. Whoever waits on a queue moves it along.
 *
 * A transaction can't stick: one not mined `replaceAfterBlocks` after it went out is signed again at its nonce with
 * higher fees; one whose nonce another transaction used (the chain's nonce passed it and none of the intent's
 * hashes has a receipt) is re-planned at a new nonce; one that can no longer land (a Solana blockhash or Tron
 * expiration past, a sequence number taken) is prepared and signed again, only once none of its hashes is on chain.
 * Every attempt's hash is kept, so whichever is mined is found.
 */
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { TxRefused, TxWouldRevert, type ChainAction, type PreparedChainTx } from '../chains/family';
import type { TxRequest } from '../chains/bridges/tx';
import { intentKeys, type ChainDepth, type ChainTxIntent, type ChainTxResult, type TxRefusal } from '../domain/chain-txs';
import { NATIVE_TOKEN_ADDRESS } from '../domain/payment';
import {
  allocateNonce,
  dequeueChainTx,
  enqueueChainTx,
  findChainTx,
  findQueuedChainTx,
  listInFlight,
  listNextQueued,
  listUnminedBefore,
  lockChainTx,
  lockSendQueue,
  markChainTxMined,
  markChainTxSent,
  markQueuedRefused,
  replaceChainTx,
} from '../db/queries/chain-txs';
import { releaseTreasuryReservation } from '../db/queries/treasury-reservations';
import type { ChainTxRow } from '../db/tables';
import type { Logger } from '../lib/logger';
import { recordFailedTxEntries, recordMinedTxEntries } from './ledger';
import { signAtNonce, signInTurn, type ChainTxDraft } from './signing-queue';
import { reserveInTurn, reservesTreasury, type Reservation, type ReservationRequest } from './treasury-reservations';
import { assertFuelOnTerms, assertTransferOnTerms, TransferRefused, type BridgeStep, type TransferRequest } from './money-terms';

export interface ChainTxServiceDeps {
  knex: Knex;
  /** Each chain's adapter signs with its family's treasury key. */
  chains: ChainAdapters;
  log: Logger;
  /** Fault injection for crash tests: called right after a transaction was broadcast, before the step returns. */
  afterBroadcast?: (purpose: string) => void;
}

/** The node refused to estimate the call because it would revert: no retry of the same call can succeed. */
export class EstimateReverted extends Error {
  constructor(intentKey: string, cause: unknown) {
    super(`the call of ${intentKey} would revert: ${(cause as Error).message}`);
    this.name = 'EstimateReverted';
  }
}

/** Earlier transactions the node lacks that one broadcast re-sends at most; later broadcasts and polls send the rest. */
const REBROADCAST_PER_CALL = 4;

/** Intents in turn one queue move considers: one that cannot be prepared (refused) lets the next go. */
const TURN_CANDIDATES = 3;

/** An intent's place on a send queue it shares: payouts first (never behind refunds), then sweeps, then refunds. */
function priorityOf(intentKey: string): number {
  const kind = intentKey.split(':')[0];
  if (kind === 'payout') return 0;
  if (kind === 'refund' || kind === 'funded-refund') return 2;
  return 1;
}

/**
 * How long a transaction this process sent counts as held by the node although its pending nonce does not show it
 * yet. A hundred transactions signed in one batch are broadcast at once: each found the node lacking the ones
 * before it (in flight beside it) and re-sent them, about five sends per transaction.
 */
const RECENT_SEND_MS = 3_000;

/** Per process (its chain adapters): when this process sent each transaction (by chain and hash), oldest first. */
const sentAtByProcess = new WeakMap<ChainAdapters, Map<string, number>>();

function recentSends(chains: ChainAdapters) {
  let sentAt = sentAtByProcess.get(chains);
  if (!sentAt) sentAtByProcess.set(chains, (sentAt = new Map<string, number>()));
  const key = (row: ChainTxRow) => `${row.chain_id}:${row.tx_hash}`;
  const forgetOld = (now: number) => {
    for (const [k, at] of sentAt) {
      if (now - at < RECENT_SEND_MS) return;
      sentAt.delete(k);
    }
  };
  return {
    /** Sending now: counts as sent until `failed`. */
    sending(row: ChainTxRow) {
      const now = Date.now();
      forgetOld(now);
      sentAt.delete(key(row));
      sentAt.set(key(row), now);
    },
    failed(row: ChainTxRow) {
      sentAt.delete(key(row));
    },
    sentMomentsAgo(row: ChainTxRow): boolean {
      const at = sentAt.get(key(row));
      return at !== undefined && Date.now() - at < RECENT_SEND_MS;
    },
  };
}

/** Not there yet: look again once the head is past `head`, passing `mined` and `queued` back (`checkIntent`). */
export interface IntentPending {
  chainId: number;
  head: number;
  mined?: ChainTxRow;
  /** Waiting on its send queue behind the transaction in flight of intent `ahead`. */
  queued?: QueuedBehind;
  /** The node refused the transaction when this check sent it again. */
  refused?: TxRefusal;
}

/**
 * Where a queued intent waits on the chain of the answer that carries this: its send queue, and the intent whose
 * transaction is in flight ahead of it.
 */
export interface QueuedBehind {
  queueKey: string;
  ahead: string;
}

/** A check's answer: the intent's result, or when to look again. */
export type IntentCheck = ChainTxResult | IntentPending;

export type SweepRecipient = { kind: 'treasury' } | { kind: 'address'; address: string };

/** What an adapter's check is told of a stored transaction. */
const sentOf = (row: ChainTxRow) => ({ action: row.action, rawTx: row.raw_tx, nonce: Number(row.nonce) });

export function createChainTxService(deps: ChainTxServiceDeps) {
  const { knex, chains, log } = deps;
  const sends = recentSends(chains);

  /**
   * Signs the intent's transaction, or queues it for its turn, once; then sends it. `txHash` is null while the intent
   * waits on its send queue (its wait signs it in its turn).
   */
  async function submit(
    request: TransferRequest & { purpose: string },
    action: ChainAction,
    prepare: () => Promise<PreparedChainTx>,
  ): Promise<{ intentKey: string; txHash: string | null }> {
    const queueKey = sendQueueOf(request.chainId, action);
    if (!queueKey) return submitNow(request, action, prepare);
    let row: ChainTxRow | null | undefined = await findChainTx({ knex, intentKey: request.intentKey });
    if (!row) {
      if (!(await findQueuedChainTx({ knex, intentKey: request.intentKey }))) {
        await assertTransferOnTerms({ knex, chains }, request);
        const { intentKey, chainId, paymentId, purpose } = request;
        await enqueueChainTx({ knex, row: { intent_key: intentKey, chain_id: chainId, queue_key: queueKey, payment_id: paymentId, purpose, priority: priorityOf(intentKey), request: termsOf(request), action } });
      }
      const turn = await takeTurn(request.chainId, queueKey, request.intentKey, await chains.sharedHead(request.chainId));
      if ('ahead' in turn) return { intentKey: request.intentKey, txHash: null };
      row = turn;
    }
    return send(row, request.purpose);
  }

  /** Signs the intent's transaction once, at once (no send queue), and sends it. */
  async function submitNow(request: TransferRequest & { purpose: string }, action: ChainAction | null, prepare: () => Promise<PreparedChainTx>): Promise<{ intentKey: string; txHash: string }> {
    let row = await findChainTx({ knex, intentKey: request.intentKey });
    if (!row) {
      await assertTransferOnTerms({ knex, chains }, request);
      row = await signAndStore(request, action, prepare);
    }
    return send(row, request.purpose);
  }

  /**
   * Sends the stored transaction (signed again first when it can no longer land). A node's refusal is not the step's
   * failure: the transaction is stored, and its wait sends it again and says so when the refusal lasts.
   */
  async function send(stored: ChainTxRow, purpose: string): Promise<{ intentKey: string; txHash: string }> {
    const row = await renewIfDead(stored);
    await broadcast(row).catch((err: unknown) => {
      if (!(err instanceof TxRefused)) throw err;
      log.warn({ intentKey: row.intent_key, txHash: row.tx_hash, error: err.message }, 'the node refused the transaction; its wait sends it again');
    });
    deps.afterBroadcast?.(purpose);
    return { intentKey: row.intent_key, txHash: row.tx_hash };
  }

  /**
   * The send queue an action waits its turn on: its account's, when the chain takes one transaction of an account at
   * a time; its deposit's, for a transfer out of a deposit address; none (signed at once) for others.
   */
  function sendQueueOf(chainId: number, action: ChainAction): string | null {
    const adapter = chains.adapter(chainId);
    if (adapter.sequencing === 'sequence') {
      if (!adapter.sequenceAccount) throw new Error(`chain ${chainId} takes one transaction per account at a time but names no account`);
      return `account:${adapter.sequenceAccount(action)}`;
    }
    return action.kind === 'sweep' ? `deposit:${action.paymentId}` : null;
  }

  /** The database's view of what the request moves, stored with a queued intent and checked again when its turn comes. */
  const termsOf = (request: TransferRequest): TransferRequest => ({
    intentKey: request.intentKey,
    paymentId: request.paymentId,
    chainId: request.chainId,
    tokenAddress: request.tokenAddress,
    recipient: request.recipient,
    amountUnits: request.amountUnits,
    from: request.from,
  });

  const draftOf = (request: TransferRequest & { purpose: string }, action: ChainAction | null, queueKey: string | null, prepared: PreparedChainTx): ChainTxDraft => ({
    intent_key: request.intentKey,
    payment_id: request.paymentId,
    purpose: request.purpose,
    chain_id: request.chainId,
    to_address: prepared.to,
    token_address: request.tokenAddress,
    amount_units: request.amountUnits,
    queue_key: queueKey,
    action,
  });

  /** Prepares the intent's transaction (reading the database through `db`); a call that would revert is refused visibly. */
  async function prepareChecked(request: TransferRequest, prepare: () => Promise<PreparedChainTx>, db: Knex = knex): Promise<PreparedChainTx> {
    const prepared = await prepare().catch((err: unknown) => {
      throw err instanceof TxWouldRevert ? new EstimateReverted(request.intentKey, err.cause ?? err) : err;
    });
    if (prepared.fuel) await assertFuelOnTerms({ knex: db, chains }, request, prepared.fuel);
    return prepared;
  }

  async function signAndStore(request: TransferRequest & { purpose: string }, action: ChainAction | null, prepare: () => Promise<PreparedChainTx>): Promise<ChainTxRow> {
    const prepared = await prepareChecked(request, prepare);
    try {
      return await signInTurn(knex, draftOf(request, action, null, prepared), prepared);
    } catch (err) {
      // A concurrent attempt of the same intent won the insert: use its transaction.
      const existing = await findChainTx({ knex, intentKey: request.intentKey });
      if (existing) return existing;
      throw err;
    }
  }

  /**
   * Moves the send queue along: once its transaction in flight is mined (`checkIntent` re-sends it meanwhile, and
   * signs it again when it can no longer land), the next intent in turn is prepared against the chain as it is now,
   * its terms checked again, and signed. Returns `own`'s transaction once it is signed, else null (it waits).
   * The intent whose turn it is may be another's: whoever waits on the queue signs it, so a queue never waits for
   * one particular worker. One that cannot be prepared is marked refused and skipped; its own wait tries it again and
   * reports why (`EstimateReverted`, `TransferRefused`).
   */
  async function takeTurn(chainId: number, queueKey: string, own: string, head: number): Promise<ChainTxRow | { ahead: string | null }> {
    const inFlight = await inFlightOf(chainId, queueKey, own, head);
    if (inFlight) return inFlight;
    const adapter = chains.adapter(chainId);
    // Marked once the turn's transaction has ended (committed, or rolled back by the caller's own refusal).
    const refused: Array<{ intentKey: string; reason: string }> = [];
    const signed = await knex
      .transaction(async (trx) => {
        await lockSendQueue({ trx, chainId, queueKey });
        if ((await listInFlight({ knex: trx, chainId, queueKey })).length > 0) return null;
        for (const next of await listNextQueued({ knex: trx, chainId, queueKey, own, limit: TURN_CANDIDATES })) {
          if (await findChainTx({ knex: trx, intentKey: next.intent_key })) {
            // Signed by an earlier turn whose dequeue did not commit: nothing to sign.
            await dequeueChainTx({ knex: trx, intentKey: next.intent_key });
            continue;
          }
          const request = { ...next.request, purpose: next.purpose };
          try {
            // The turn may come long after the intent was queued: its terms are read again now.
            await assertTransferOnTerms({ knex: trx, chains }, request);
            const prepared = await prepareChecked(request, () => adapter.prepare(next.action), trx);
            const draft = draftOf(request, next.action, queueKey, prepared);
            const nonce = adapter.sequencing === 'sequence' ? prepared.chainPendingNonce : await allocateNonce({ trx, chainId, signer: prepared.signer, chainPendingNonce: prepared.chainPendingNonce });
            const row = await signAtNonce(trx, draft, prepared, nonce);
            await dequeueChainTx({ knex: trx, intentKey: next.intent_key });
            return row;
          } catch (err: unknown) {
            if (!(err instanceof EstimateReverted || err instanceof TransferRefused)) throw err;
            refused.push({ intentKey: next.intent_key, reason: err.message });
            if (next.intent_key === own) throw err;
            log.error({ intentKey: next.intent_key, error: err.message }, 'a queued transfer could not be signed in its turn; the next one goes');
          }
        }
        return null;
      })
      .finally(async () => {
        for (const { intentKey, reason } of refused) await markQueuedRefused({ knex, intentKey, reason });
      });
    if (!signed) return { ahead: null };
    if (signed.intent_key === own) return signed;
    // Another's turn came: it goes out now, its own wait follows it.
    await broadcast(signed).catch((err: unknown) => log.warn({ intentKey: signed.intent_key, error: String(err) }, 'a transfer signed in its turn could not be sent yet'));
    return { ahead: signed.intent_key };
  }

  /**
   * The queue's transaction in flight as the waits of this process behind it share it at `head` (twenty sweeps
   * queued on one TON or Stellar account each read and checked the same transaction at every block): `own`'s row
   * when it is the one, `ahead` naming it while it is not mined deep enough, null when nothing is in flight.
   */
  async function inFlightOf(chainId: number, queueKey: string, own: string, head: number): Promise<ChainTxRow | { ahead: string } | null> {
    for (const inFlight of await chains.sharedRead(chainId, `in-flight-of:${queueKey}@${head}`, () => listInFlight({ knex, chainId, queueKey }))) {
      if (inFlight.intent_key === own) return inFlight;
      const check = await chains.sharedRead(chainId, `in-flight:${inFlight.intent_key}@${head}`, () => checkIntent(inFlight.intent_key, 'confirmations'));
      if (!('txHash' in check)) return { ahead: inFlight.intent_key };
    }
    return null;
  }

  /**
   * The stored transaction can no longer land (its blockhash or expiration past, its sequence number taken) and none
   * of the intent's hashes is on chain: it is prepared against the chain as it is now and signed again under the same
   * intent, under the row's lock, so concurrent checks sign it once. Never two alive at once: the old one is dead.
   */
  async function renewIfDead(row: ChainTxRow): Promise<ChainTxRow> {
    const adapter = chains.adapter(row.chain_id);
    if (!adapter.expiry || !row.action || row.status !== 'signed') return row;
    const stored = { rawTx: row.raw_tx, txHash: row.tx_hash, signer: row.signer, nonce: Number(row.nonce), validUntil: row.valid_until };
    if (await adapter.expiry.canLand(stored)) return row;
    // Read after the expiry: a transaction that landed before it is seen now, and nothing can land after it.
    if ((await adapter.checkTx([row.tx_hash, ...row.replaced_tx_hashes], 1, sentOf(row))).state !== 'unmined') return row;
    const action = row.action;
    return knex.transaction(async (trx) => {
      const locked = await lockChainTx({ trx, intentKey: row.intent_key });
      if (!locked || locked.status !== 'signed' || locked.tx_hash !== row.tx_hash) return locked ?? row;
      const request: TransferRequest = {
        intentKey: row.intent_key,
        paymentId: row.payment_id,
        chainId: row.chain_id,
        tokenAddress: row.token_address,
        recipient: action.kind === 'sweep' && action.to === adapter.treasuryAddress() ? null : action.to,
        amountUnits: row.amount_units,
        from: action.kind === 'sweep' ? 'deposit' : 'treasury',
      };
      const prepared = await prepareChecked(request, () => adapter.prepare(action, { rawTx: locked.raw_tx }), trx);
      const nonce = adapter.sequencing === 'sequence' ? prepared.chainPendingNonce : Number(locked.nonce);
      const signed = await prepared.sign(nonce);
      const attempt = { nonce: String(nonce), raw_tx: signed.rawTx, tx_hash: signed.txHash, max_fee_per_gas: null, max_priority_fee_per_gas: null, valid_until: signed.validUntil ?? null };
      await replaceChainTx({ trx, intentKey: row.intent_key, attempt });
      log.warn({ intentKey: row.intent_key, replaced: locked.tx_hash, txHash: signed.txHash }, 'transaction can no longer land: signed again');
      return { ...locked, ...attempt, sent_at_block: null, replaced_tx_hashes: [...locked.replaced_tx_hashes, locked.tx_hash] };
    });
  }

  /**
   * Re-broadcasts the signer's unmined transactions with lower nonces first, so this one can be mined: only those the
   * node lacks (at or past its pending nonce for the key, which counts the key's transactions it holds without a gap:
   * a send that failed or one the node dropped), the lowest `REBROADCAST_PER_CALL` of them. Re-sending every earlier
   * one on every call made n transactions in flight cost O(n²) node calls; one this process sent moments ago is not
   * missing, only not counted yet. Those are best effort: one that the node refuses never keeps this one from going
   * out (its own wait replaces or re-plans it).
   */
  async function broadcast(row: ChainTxRow): Promise<void> {
    const adapter = chains.adapter(row.chain_id);
    sends.sending(row);
    if (adapter.sequencing === 'nonce' && adapter.replacement) {
      const nodeNonce = await adapter.replacement.pendingNonce(row.signer);
      const unmined = nodeNonce < Number(row.nonce)
        ? await listUnminedBefore({ knex, chainId: row.chain_id, signer: row.signer, nonce: row.nonce, fromNonce: nodeNonce, limit: REBROADCAST_PER_CALL })
        : [];
      const missing = unmined.filter((earlier) => !sends.sentMomentsAgo(earlier));
      for (const earlier of missing) {
        sends.sending(earlier);
        await adapter.broadcast({ rawTx: earlier.raw_tx, txHash: earlier.tx_hash }).catch((err: unknown) =>
          log.warn({ intentKey: earlier.intent_key, txHash: earlier.tx_hash, error: String(err) }, 'an earlier transaction could not be re-broadcast'),
        );
      }
    }
    const sent = await adapter.broadcast({ rawTx: row.raw_tx, txHash: row.tx_hash }).catch((err: unknown) => {
      sends.failed(row);
      throw err;
    });
    if (sent !== 'nonce-used' && row.sent_at_block === null) {
      await markChainTxSent({ knex, intentKey: row.intent_key, txHash: row.tx_hash, blockNumber: await chains.sharedHead(row.chain_id) });
    }
  }

  /**
   * The intent's transaction is not mined: signs it again, at the same nonce with higher fees when it waited
   * `replaceAfterBlocks`, or at a new nonce when another transaction used its nonce. Under the row's lock, so
   * concurrent checks replace it once. Only adapters with a `replacement` (EVM) replace.
   */
  async function unstick(intentKey: string, nonceUsed: boolean, head: number): Promise<void> {
    await knex.transaction(async (trx) => {
      const row = await lockChainTx({ trx, intentKey });
      if (!row || row.status !== 'signed') return;
      const replacement = chains.adapter(row.chain_id).replacement;
      if (!replacement) return;
      if (!nonceUsed && (row.sent_at_block === null || head - Number(row.sent_at_block) < replacement.afterBlocks)) return;
      const newNonce = nonceUsed ? await allocateNonce({ trx, chainId: row.chain_id, signer: row.signer, chainPendingNonce: await replacement.pendingNonce(row.signer) }) : null;
      const signed = await replacement.resign(row.raw_tx, { nonce: newNonce });
      await replaceChainTx({
        trx,
        intentKey,
        attempt: {
          nonce: String(signed.nonce),
          raw_tx: signed.rawTx,
          tx_hash: signed.txHash,
          max_fee_per_gas: signed.fees.maxFeePerGas.toString(),
          max_priority_fee_per_gas: signed.fees.maxPriorityFeePerGas.toString(),
          valid_until: null,
        },
      });
      log.warn(
        { intentKey, replaced: row.tx_hash, txHash: signed.txHash, nonce: signed.nonce, maxFeePerGas: signed.fees.maxFeePerGas.toString() },
        nonceUsed ? 'another transaction used the nonce of ours: re-planned at a new nonce' : 'transaction not mined in time: replaced with higher fees',
      );
    });
  }

  /**
   * One look at the intent's transaction: its result once mined `depth` deep on the canonical chain, else when to
   * look again (once the head is past `head`: the next block, or the block that can make it deep enough). Not
   * mined: re-broadcast, replaced with higher fees after `replaceAfterBlocks`, or re-planned at a new nonce when
   * another transaction used its nonce (never taken for ours without our hash's receipt).
   *
   * What the check before this one answered back (`last`):
   * - `mined`: the row it read, its transaction mined short of depth. Nothing replaces a mined transaction, so the row
   *   still says what to look for while the transaction stays mined; once it is not (a reorg), the row is read again
   *   before anything is re-sent.
   * - `queued`: the intent waited on its send queue behind another's transaction in flight. While that same
   *   transaction is in flight, no turn is taken on the queue, so nothing of this intent changed: nothing of it is read.
   */
  async function checkIntent(intentKey: string, depth: ChainDepth, last?: Pick<IntentPending, 'chainId' | 'mined' | 'queued'>): Promise<IntentCheck> {
    const { mined, queued: behind } = last ?? {};
    if (last && behind) {
      const head = await chains.sharedHead(last.chainId);
      const inFlight = await inFlightOf(last.chainId, behind.queueKey, intentKey, head);
      if (inFlight && 'ahead' in inFlight && inFlight.ahead === behind.ahead) return { chainId: last.chainId, head, queued: behind };
    }
    let row: ChainTxRow | null | undefined = mined ?? (await findChainTx({ knex, intentKey }));
    if (!row) {
      // Waiting on its send queue: this wait moves the queue along.
      const queued = await findQueuedChainTx({ knex, intentKey });
      if (queued) {
        const head = await chains.sharedHead(queued.chain_id);
        const turn = await takeTurn(queued.chain_id, queued.queue_key, intentKey, head);
        if ('ahead' in turn) {
          const { ahead } = turn;
          return { chainId: queued.chain_id, head, ...(ahead ? { queued: { queueKey: queued.queue_key, ahead } } : {}) };
        }
        row = turn;
      } else {
        // Another wait on its queue signed it (and took it off the queue) between the two reads.
        row = await findChainTx({ knex, intentKey });
        if (!row) throw new Error(`no chain transaction stored for intent ${intentKey}`);
      }
    }
    const chain = chains.registry.chain(row.chain_id);
    const adapter = chains.adapter(row.chain_id);
    // Read first: a block that appears during the check is looked at again.
    const headBefore = await chains.sharedHead(row.chain_id);
    // Sent at this head (the wait that follows a send): no block can hold it yet, and a re-broadcast is moments old.
    if (row.status === 'signed' && row.sent_at_block !== null && headBefore <= Number(row.sent_at_block)) return { chainId: row.chain_id, head: headBefore };
    const blocks = depth === 'finality' ? chain.finalityDepth : chain.confirmations;
    // The nonce is read before the receipts: a receipt that appears in between is still seen as ours.
    const minedNonce = adapter.replacement ? await adapter.replacement.minedNonce(row.signer) : null;
    const check = await adapter.checkTx([row.tx_hash, ...row.replaced_tx_hashes], blocks, sentOf(row));
    if (check.state === 'unmined') {
      if (mined) return checkIntent(intentKey, depth);
      // Whether this check may have replaced the intent's transaction (then its row is read again).
      let unstuck = false;
      if (minedNonce !== null) {
        if (minedNonce >= Number(row.nonce)) {
          unstuck = true;
          await unstick(intentKey, minedNonce > Number(row.nonce), headBefore);
        } else {
          // An earlier transaction of ours holds this one back: it is the one to replace when it waited too long.
          const [lowest] = await listUnminedBefore({ knex, chainId: row.chain_id, signer: row.signer, nonce: row.nonce, fromNonce: minedNonce, limit: 1 });
          const blocker = lowest && Number(lowest.nonce) === minedNonce ? lowest : undefined;
          if (blocker) await unstick(blocker.intent_key, false, headBefore);
          else log.warn({ intentKey, nonce: row.nonce, minedNonce }, 'a nonce below ours is not a stored transaction of ours; waiting for it');
        }
      }
      // Sent by this process moments ago (and not replaced since): the node has it, only not in a block yet.
      const current = await renewIfDead(unstuck ? (await findChainTx({ knex, intentKey }))! : row);
      if (!sends.sentMomentsAgo(current)) {
        const refused = await broadcast(current).then(
          () => undefined,
          (err: unknown) => {
            if (err instanceof TxRefused) return err.message;
            throw err;
          },
        );
        if (refused) return { chainId: row.chain_id, head: headBefore, refused: { reason: refused, txHash: current.tx_hash, expires: Boolean(adapter.expiry) && current.valid_until !== null } };
      }
    }
    // Mined, only short of depth: nothing to look at before the head can make it deep enough (a reorg meanwhile is seen then).
    if (check.state === 'pending' && check.blockNumber !== undefined) return { chainId: row.chain_id, head: Math.max(headBefore, check.blockNumber + blocks - 2), mined: row };
    if (check.state !== 'mined') return { chainId: row.chain_id, head: headBefore };
    const status = check.succeeded ? 'confirmed' : 'reverted';
    // A check before this one recorded it mined in this very block (the wait for finality after the one for
    // confirmations): the writes below are done already. The row is marked last, so a crash between them leaves
    // it unmarked and the next check does them all again (each is idempotent).
    if (row.status !== status || row.tx_hash !== check.txHash || Number(row.block_number) !== check.blockNumber) {
      if (reservesTreasury(intentKey)) await releaseTreasuryReservation({ knex, intentKey });
      if (check.succeeded) await recordMinedTxEntries({ knex, chains }, row, check.txHash);
      else {
        log.error({ intentKey, txHash: check.txHash }, 'chain transaction reverted');
        await recordFailedTxEntries({ knex, chains }, row, check.txHash);
      }
      await markChainTxMined({ knex, intentKey, txHash: check.txHash, status, blockNumber: check.blockNumber });
    }
    if (check.succeeded && !(await recovered(row, check.txHash, depth))) return { chainId: row.chain_id, head: headBefore };
    return { intentKey, txHash: check.txHash, blockNumber: check.blockNumber, succeeded: check.succeeded, confirmedAt: check.confirmedAt };
  }

  /**
   * What a transfer out of a deposit left there of the native coin the treasury sent along (Tron: its top-up's TRX
   * not burnt) goes back to the treasury as an intent of its own (`recover:<intent>`) on the deposit's queue; the
   * transfer's wait ends once it is mined. True when there is nothing (more) to wait for. A recovery that cannot be
   * made is logged and left: the transfer itself landed.
   */
  async function recovered(row: ChainTxRow, txHash: string, depth: ChainDepth): Promise<boolean> {
    const adapter = chains.adapter(row.chain_id);
    if (!adapter.recovery || row.action?.kind !== 'sweep' || row.intent_key.startsWith(intentKeys.recover(''))) return true;
    const intentKey = intentKeys.recover(row.intent_key);
    try {
      if (!(await findChainTx({ knex, intentKey })) && !(await findQueuedChainTx({ knex, intentKey }))) {
        const action = await adapter.recovery(row.action, { rawTx: row.raw_tx, txHash });
        if (!action) return true;
        const request = { intentKey, paymentId: row.payment_id, chainId: row.chain_id, tokenAddress: NATIVE_TOKEN_ADDRESS, recipient: null, amountUnits: action.amountUnits, from: 'deposit' as const, purpose: 'fees sent along, back to treasury' };
        await submit(request, action, () => adapter.prepare(action));
      }
      const check = await checkIntent(intentKey, depth);
      if ('txHash' in check && !check.succeeded) log.error({ intentKey, txHash: check.txHash }, 'the recovery of fees sent along reverted');
      return 'txHash' in check;
    } catch (err) {
      log.error({ intentKey, error: String(err) }, 'fees sent along to a deposit could not be recovered; they stay there');
      return true;
    }
  }

  return {
    /** Moves funds out of a deposit address (deploying its forwarder if needed). Idempotent per intent key. */
    sweepDeposit(input: ChainTxIntent & { paymentId: string; tokenAddress: string; recipient: SweepRecipient; amountUnits: string; purpose: string }) {
      const to = input.recipient.kind === 'treasury' ? chains.adapter(input.chainId).treasuryAddress() : input.recipient.address;
      const action: ChainAction = { kind: 'sweep', paymentId: input.paymentId, tokenAddress: input.tokenAddress, to, amountUnits: input.amountUnits };
      return submit({ ...input, from: 'deposit', recipient: input.recipient.kind === 'treasury' ? null : input.recipient.address }, action, () => chains.adapter(input.chainId).prepare(action));
    },

    /** A transfer from the treasury (payouts, refunds from the treasury). Idempotent per intent key. */
    transferFromTreasury(input: ChainTxIntent & { tokenAddress: string; to: string; amountUnits: string; purpose: string }) {
      const action: ChainAction = { kind: 'transfer', tokenAddress: input.tokenAddress, to: input.to, amountUnits: input.amountUnits };
      return submit({ ...input, from: 'treasury', recipient: input.to }, action, () => chains.adapter(input.chainId).prepare(action));
    },

    /**
     * A bridge step from the treasury (approval, burn or send, mint), on database terms, through the chain's bridge
     * endpoint. Idempotent per intent key; the bridge refuses a second mint of one burn by its own message nonce.
     */
    submitBridgeStep(input: ChainTxIntent & { step: BridgeStep; call: TxRequest; purpose: string; tokenAddress: string | null; amountUnits: string | null }) {
      const endpoint = chains.bridgeEndpoint(input.chainId);
      if (!endpoint) throw new Error(`no bridge reaches chain ${input.chainId}`);
      return submitNow({ ...input, from: input.step, recipient: input.call.to }, null, () => endpoint.prepareCall(input.call));
    },

    checkIntent,

    /**
     * Sets the transfer's amount aside in the treasury's next batch of reservations (services/treasury-reservations.ts),
     * against what the treasury holds of the token on its chain when the batch reads it.
     */
    reserveFromTreasury(request: Omit<ReservationRequest, 'readBalance'>): Promise<Reservation> {
      return reserveInTurn(knex, { ...request, readBalance: () => chains.treasuryBalance(request.chainId, request.tokenAddress) });
    },
  };
}

export type ChainTxService = ReturnType<typeof createChainTxService>;
