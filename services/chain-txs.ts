/**
 * The sign-once outbox of chain transactions. An intent's transaction is signed once and stored before it is
 * broadcast; every later attempt re-broadcasts those same bytes. A crash anywhere therefore yields at most one
 * transaction per intent on chain. Before an intent is signed, its terms are checked against the database
 * (`assertTransferOnTerms`); a call that would revert is refused visibly (`EstimateReverted`) rather than retried.
 *
 * A transaction can't stick: one not mined `replaceAfterBlocks` after it went out is signed again at its nonce with
 * higher fees; one whose nonce another transaction used (the chain's nonce passed it and none of the intent's
 * hashes has a receipt) is re-planned at a new nonce. Every attempt's hash is kept, so whichever is mined is found.
 */
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { TxWouldRevert, type ChainAction, type PreparedChainTx } from '../chains/family';
import type { TxRequest } from '../chains/bridges/tx';
import type { ChainDepth, ChainTxIntent, ChainTxResult } from '../domain/chain-txs';
import { allocateNonce, findChainTx, listUnminedBefore, lockChainTx, markChainTxMined, markChainTxSent, replaceChainTx } from '../db/queries/chain-txs';
import { releaseTreasuryReservation } from '../db/queries/treasury-reservations';
import type { ChainTxRow } from '../db/tables';
import type { Logger } from '../lib/logger';
import { recordMinedTxEntries } from './ledger';
import { signInTurn } from './signing-queue';
import { assertFuelOnTerms, assertTransferOnTerms, type BridgeStep, type TransferRequest } from './money-terms';

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

/** Not there yet: look again once the head is past `head`, passing `mined` back (`checkIntent`). */
export interface IntentPending {
  chainId: number;
  head: number;
  mined?: ChainTxRow;
}

/** A check's answer: the intent's result, or when to look again. */
export type IntentCheck = ChainTxResult | IntentPending;

export type SweepRecipient = { kind: 'treasury' } | { kind: 'address'; address: string };

export function createChainTxService(deps: ChainTxServiceDeps) {
  const { knex, chains, log } = deps;
  const sends = recentSends(chains);

  async function submit(request: TransferRequest & { purpose: string }, prepare: () => Promise<PreparedChainTx>): Promise<{ intentKey: string; txHash: string }> {
    let row = await findChainTx({ knex, intentKey: request.intentKey });
    if (!row) {
      await assertTransferOnTerms({ knex, chains }, request);
      row = await signAndStore(request, prepare);
    }
    await broadcast(row);
    deps.afterBroadcast?.(request.purpose);
    return { intentKey: row.intent_key, txHash: row.tx_hash };
  }

  async function signAndStore(request: TransferRequest & { purpose: string }, prepare: () => Promise<PreparedChainTx>): Promise<ChainTxRow> {
    const prepared = await prepare().catch((err: unknown) => {
      throw err instanceof TxWouldRevert ? new EstimateReverted(request.intentKey, err.cause ?? err) : err;
    });
    if (prepared.fuel) await assertFuelOnTerms({ knex, chains }, request, prepared.fuel);
    try {
      return await signInTurn(knex, {
        intent_key: request.intentKey,
        payment_id: request.paymentId,
        purpose: request.purpose,
        chain_id: request.chainId,
        to_address: prepared.to,
        token_address: request.tokenAddress,
        amount_units: request.amountUnits,
      }, prepared);
    } catch (err) {
      // A concurrent attempt of the same intent won the insert: use its transaction.
      const existing = await findChainTx({ knex, intentKey: request.intentKey });
      if (existing) return existing;
      throw err;
    }
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
    if (adapter.orderedNonces) {
      const nodeNonce = adapter.replacement ? await adapter.replacement.pendingNonce(row.signer) : 0;
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
   * `mined`: the row a check before this one read and answered back, its transaction mined short of depth. Nothing
   * replaces a mined transaction, so the row still says what to look for while the transaction stays mined; once
   * it is not (a reorg), the row is read again before anything is re-sent.
   */
  async function checkIntent(intentKey: string, depth: ChainDepth, mined?: ChainTxRow): Promise<IntentCheck> {
    const row = mined ?? (await findChainTx({ knex, intentKey }));
    if (!row) throw new Error(`no chain transaction stored for intent ${intentKey}`);
    const chain = chains.registry.chain(row.chain_id);
    const adapter = chains.adapter(row.chain_id);
    // Read first: a block that appears during the check is looked at again.
    const headBefore = await chains.sharedHead(row.chain_id);
    // Sent at this head (the wait that follows a send): no block can hold it yet, and a re-broadcast is moments old.
    if (row.status === 'signed' && row.sent_at_block !== null && headBefore <= Number(row.sent_at_block)) return { chainId: row.chain_id, head: headBefore };
    const blocks = depth === 'finality' ? chain.finalityDepth : chain.confirmations;
    // The nonce is read before the receipts: a receipt that appears in between is still seen as ours.
    const minedNonce = adapter.replacement ? await adapter.replacement.minedNonce(row.signer) : null;
    const check = await adapter.checkTx([row.tx_hash, ...row.replaced_tx_hashes], blocks);
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
      const current = unstuck ? (await findChainTx({ knex, intentKey }))! : row;
      if (!sends.sentMomentsAgo(current)) await broadcast(current);
    }
    // Mined, only short of depth: nothing to look at before the head can make it deep enough (a reorg meanwhile is seen then).
    if (check.state === 'pending' && check.blockNumber !== undefined) return { chainId: row.chain_id, head: Math.max(headBefore, check.blockNumber + blocks - 2), mined: row };
    if (check.state !== 'mined') return { chainId: row.chain_id, head: headBefore };
    const status = check.succeeded ? 'confirmed' : 'reverted';
    // A check before this one recorded it mined in this very block (the wait for finality after the one for
    // confirmations): the writes below are done already. The row is marked last, so a crash between them leaves
    // it unmarked and the next check does them all again (each is idempotent).
    if (row.status !== status || row.tx_hash !== check.txHash || Number(row.block_number) !== check.blockNumber) {
      if (intentKey.startsWith('payout:') && row.payment_id) await releaseTreasuryReservation({ knex, paymentId: row.payment_id });
      if (check.succeeded) await recordMinedTxEntries({ knex }, row);
      else log.error({ intentKey, txHash: check.txHash }, 'chain transaction reverted');
      await markChainTxMined({ knex, intentKey, txHash: check.txHash, status, blockNumber: check.blockNumber });
    }
    return { intentKey, txHash: check.txHash, blockNumber: check.blockNumber, succeeded: check.succeeded, confirmedAt: check.confirmedAt };
  }

  return {
    /** Moves funds out of a deposit address (deploying its forwarder if needed). Idempotent per intent key. */
    sweepDeposit(input: ChainTxIntent & { paymentId: string; tokenAddress: string; recipient: SweepRecipient; amountUnits: string; purpose: string }) {
      const to = input.recipient.kind === 'treasury' ? chains.adapter(input.chainId).treasuryAddress() : input.recipient.address;
      const action: ChainAction = { kind: 'sweep', paymentId: input.paymentId, tokenAddress: input.tokenAddress, to, amountUnits: input.amountUnits };
      return submit({ ...input, from: 'deposit', recipient: input.recipient.kind === 'treasury' ? null : input.recipient.address }, () => chains.adapter(input.chainId).prepare(action));
    },

    /** A transfer from the treasury (payouts, refunds from the treasury). Idempotent per intent key. */
    transferFromTreasury(input: ChainTxIntent & { tokenAddress: string; to: string; amountUnits: string; purpose: string }) {
      const action: ChainAction = { kind: 'transfer', tokenAddress: input.tokenAddress, to: input.to, amountUnits: input.amountUnits };
      return submit({ ...input, from: 'treasury', recipient: input.to }, () => chains.adapter(input.chainId).prepare(action));
    },

    /**
     * A bridge step from the treasury (approval, burn or send, mint), on database terms, through the chain's bridge
     * endpoint. Idempotent per intent key; the bridge refuses a second mint of one burn by its own message nonce.
     */
    submitBridgeStep(input: ChainTxIntent & { step: BridgeStep; call: TxRequest; purpose: string; tokenAddress: string | null; amountUnits: string | null }) {
      const endpoint = chains.bridgeEndpoint(input.chainId);
      if (!endpoint) throw new Error(`no bridge reaches chain ${input.chainId}`);
      return submit({ ...input, from: input.step, recipient: input.call.to }, () => endpoint.prepareCall(input.call));
    },

    checkIntent,

    /** What the treasury holds of `tokenAddress` on `chainId` now (base units). */
    treasuryBalance(chainId: number, tokenAddress: string): Promise<bigint> {
      const adapter = chains.adapter(chainId);
      return adapter.balanceOf(adapter.treasuryAddress(), tokenAddress);
    },
  };
}

export type ChainTxService = ReturnType<typeof createChainTxService>;
