import { Context, heartbeat, sleep } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { intentKeys, lastingRefusals, type ChainDepth, type ChainTxIntent, type ChainTxResult } from '../domain/chain-txs';
import { payinId, type DetectedPayin, type PayinConfirmation } from '../domain/payins';
import type { BridgeArrival, BridgeOwner, BridgeQuote } from '../domain/bridges';
import { findPaymentById } from '../db/queries/payments';
import { CctpMessageMismatch } from '../chains/bridges/cctp';
import { createBridgeService } from '../services/bridges';
import { createChainTxService, EstimateReverted, type IntentPending, type SweepRecipient } from '../services/chain-txs';
import { TransferRefused } from '../services/money-terms';
import { checkPayinConfirmation } from '../services/payins';
import { payoutAfterNetting } from '../services/refund-netting';
import { TreasuryShort } from '../services/treasury-reservations';
import type { ActivityDeps } from './deps';

/**
 * How often a wait heartbeats: well inside chainWaitOptions' heartbeat timeout (20 s). The first beat comes only
 * after this long too: most waits end within a few blocks, and each beat is a call Temporal writes (five per
 * payment when every wait beat at once); a wait cancelled meanwhile learns it at its first beat.
 */
const HEARTBEAT_EVERY_MS = 5_000;

/**
 * A wait's heartbeat: beats when `ms` have passed since the wait began or last beat. A wait run as a local activity
 * (a payment's, workflows/chain-steps.ts) has no heartbeat: its workflow task is what Temporal keeps alive.
 */
export function heartbeatEvery(ms: number): () => void {
  if (Context.current().info.isLocal) return () => undefined;
  let last = Date.now();
  return () => {
    if (Date.now() - last < ms) return;
    heartbeat();
    last = Date.now();
  };
}

/** Checks (each at a newer head) after which a transaction the node no longer knows at all is taken as dropped by a reorg. */
const MISSING_CHECKS_BEFORE_DROPPED = 3;

/**
 * Checks (each at a newer head) in a row at which the node refused the intent's transaction before the wait hands it
 * to an operator: one refusal may be a node behind the chain, ten in a row are not. A transaction that expires is
 * first signed again once it can no longer land (`lastingRefusals`).
 */
const REFUSALS_BEFORE_OPERATOR = 10;

/**
 * A transfer the database's terms refuse, a call that would revert, or a merchant refund the treasury cannot cover
 * fails for good with the error's name as its type (`TransferRefused`, `EstimateReverted`, `TreasuryShort`): the
 * workflow stops for an operator instead of retrying forever. So do the waits, which prepare queued transfers and sign
 * again those that can no longer land.
 */
export async function signing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof TransferRefused || err instanceof EstimateReverted || err instanceof TreasuryShort) throw ApplicationFailure.nonRetryable(err.message, err.name);
    throw err;
  }
}

/** A payout's transfer out of the treasury. */
type TreasuryTransfer = ChainTxIntent & { tokenAddress: string; to: string; amountUnits: string; purpose: string };

/** Chain writes: each keyed by an intent, so every retry re-broadcasts the one signed transaction. */
export function createChainWriteActivities(deps: ActivityDeps) {
  const txs = createChainTxService(deps);
  const bridges = createBridgeService(deps);

  /**
   * One reservation per payment: sets the payout aside in the treasury ledger (PostgreSQL) when the treasury's
   * balance, less what other unmined payouts reserved, covers it. Not reserved: the run waits for funds.
   */
  async function reservePayoutFunds(input: { paymentId: string }): Promise<{ reserved: boolean; availableUnits: string }> {
    const payment = await findPaymentById({ knex: deps.knex, id: input.paymentId });
    if (!payment) throw new Error(`payment ${input.paymentId} does not exist`);
    const { reserved, balanceUnits } = await txs.reserveFromTreasury({
      intentKey: intentKeys.payout(payment.id),
      paymentId: payment.id,
      chainId: payment.destination_chain_id,
      tokenAddress: payment.destination_token_address,
      amountUnits: payment.destination_amount_units,
    });
    if (!reserved) deps.log.warn({ paymentId: payment.id, chainId: payment.destination_chain_id, availableUnits: balanceUnits.toString() }, 'treasury short of a payout');
    return { reserved, availableUnits: balanceUnits.toString() };
  }

  return {
    /** Idempotent per intent key: moves funds out of a deposit address (deploying its forwarder if needed), on database terms. */
    sweepDeposit: (input: ChainTxIntent & { paymentId: string; tokenAddress: string; recipient: SweepRecipient; amountUnits: string; purpose: string }) =>
      signing(() => txs.sweepDeposit(input)),

    /** Idempotent (read-only): fees and expected time of bridging the amount to the destination treasury. */
    quoteBridge: (input: BridgeOwner & { sourceChainId: number; destinationChainId: number; tokenSymbol: string; amountUnits: string }) =>
      bridges.quote(input),

    /** Idempotent per intent key: the bridge's allowance to pull the token, or null when it needs none. */
    approveBridge: (input: BridgeOwner & { quote: BridgeQuote }) => signing(() => bridges.approve(input)),

    /** Idempotent per intent key: the CCTP burn or OFT send; the bridge's own nonce makes its message unique. */
    startBridge: (input: BridgeOwner & { quote: BridgeQuote }) => signing(() => bridges.start(input)),

    /** Idempotent per intent key: the CCTP mint (refused on chain for a used nonce), or null for a delivered OFT. */
    finishBridge: (input: BridgeOwner & { quote: BridgeQuote; arrival: Exclude<BridgeArrival, { state: 'pending' }> }) => signing(() => bridges.finish(input)),

    /**
     * Idempotent (one reservation per payment, one netting decision per payment, one transaction per intent key):
     * reserves the payout in the treasury ledger and, when the treasury covers it, signs the transfer to the merchant
     * on database terms: the payout less what it keeps back for the app's refunds. `payout` is null while the
     * treasury is short.
     */
    async payOutFromTreasury(input: Omit<TreasuryTransfer, 'amountUnits'> & { paymentId: string }) {
      const funds = await reservePayoutFunds({ paymentId: input.paymentId });
      if (!funds.reserved) return { ...funds, payout: null };
      const amountUnits = (await payoutAfterNetting(deps, input.paymentId)).toString();
      return { ...funds, payout: await signing(() => txs.transferFromTreasury({ ...input, amountUnits })) };
    },
  };
}

/**
 * Long waits on the chain (the chain-waits task queue): they heartbeat, and re-read the chain at every new block.
 * Hundreds of waits share one head watch per chain (`headAfter`); only a wait whose block moved reads more.
 */
export function createChainWaitActivities(deps: ActivityDeps) {
  const txs = createChainTxService(deps);
  const bridges = createBridgeService(deps);

  /**
   * Waits, heartbeating when due, until the chain's head is past `seen`; returns it. The process's head watch wakes
   * it at the new block; a cancelled activity stops waiting at once.
   */
  async function nextHead(chainId: number, seen: number, heartbeatWhenDue: () => void): Promise<number> {
    const { cancelled } = Context.current();
    for (;;) {
      heartbeatWhenDue();
      const head = await Promise.race([deps.chains.headAfter(chainId, seen, HEARTBEAT_EVERY_MS), cancelled]);
      if (head !== null) return head;
    }
  }
  return {
    /**
     * Idempotent (read-only): waits until the payin's transaction has the chain's confirmations (or finality
     * depth), checking it at every new block, so a reorg that moves or removes it is seen (the receipt is read
     * again once the block it named is replaced: `MinedReceipts`). Heartbeats.
     */
    async awaitPayinConfirmation(input: { paymentId: string; payin: DetectedPayin; depth: ChainDepth }): Promise<PayinConfirmation> {
      const chain = deps.chains.registry.chain(input.payin.chainId);
      const { depth } = input;
      // The payin's block is not `blocks` deep before the head reaches the last of them: until then only the head is
      // read. A block past the head (a forged signal's) waits no longer than the next block: the chain's answer decides.
      const blocks = depth === 'finality' ? chain.finalityDepth : chain.confirmations;
      let seen = Math.min(input.payin.blockNumber + blocks - 2, await deps.chains.sharedHead(chain.chainId));
      let missingChecks = 0;
      const heartbeatWhenDue = heartbeatEvery(HEARTBEAT_EVERY_MS);
      for (;;) {
        seen = await nextHead(chain.chainId, seen, heartbeatWhenDue);
        const check = await checkPayinConfirmation(deps, input.payin, depth);
        if (check.state === 'confirmed') return { outcome: 'confirmed', payin: check.payin };
        if (check.state === 'dropped') {
          // A transfer the chain does not show as claimed: a forged signal or late-payin start, or a stale record.
          if (check.reason) deps.log.warn({ paymentId: input.paymentId, payin: payinId(input.payin), reason: check.reason }, 'payin dropped: the chain shows another transfer at its identity');
          return { outcome: 'dropped' };
        }
        missingChecks = check.state === 'missing' ? missingChecks + 1 : 0;
        if (missingChecks >= MISSING_CHECKS_BEFORE_DROPPED) return { outcome: 'dropped' };
      }
    },

    /**
     * Idempotent (re-broadcasts, then reads): waits until the intent's transaction is mined with the chain's
     * confirmations (or finality depth), re-broadcasting it while the node does not have it. Looks again only when
     * the chain has a new block (nothing it reads can change before), and once mined, only when it can be deep
     * enough, without reading its row again while it stays mined. Heartbeats.
     */
    async awaitChainTx(input: { intentKey: string; depth: ChainDepth }): Promise<ChainTxResult> {
      const heartbeatWhenDue = heartbeatEvery(HEARTBEAT_EVERY_MS);
      let last: IntentPending | undefined;
      const refusalsLast = lastingRefusals(REFUSALS_BEFORE_OPERATOR);
      for (;;) {
        heartbeatWhenDue();
        // A queued transfer is prepared here, and one that can no longer land signed again: refused as a write is.
        const check = await signing(() => txs.checkIntent(input.intentKey, input.depth, last));
        if ('txHash' in check) return check;
        if (refusalsLast(check.refused)) throw ApplicationFailure.nonRetryable(`the node keeps refusing ${input.intentKey}: ${check.refused!.reason}`, 'ChainTxRefused');
        last = check;
        await nextHead(check.chainId, check.head, heartbeatWhenDue);
      }
    },

    /**
     * Idempotent (read-only): waits, heartbeating, until the transfer started by `startTxHash` is attested (its
     * message checked against the burn) or delivered; looks again at the chain's poll interval while it is not.
     */
    async awaitBridgeArrival(input: BridgeOwner & { quote: BridgeQuote; startTxHash: string }): Promise<Exclude<BridgeArrival, { state: 'pending' }>> {
      const pollMs = deps.chains.registry.chain(input.quote.sourceChainId).pollIntervalMs;
      let detail: string | undefined;
      let failing: string | undefined;
      for (;;) {
        heartbeat(detail);
        const arrival = await bridges.check(input).then(
          (found) => {
            failing = undefined;
            return found;
          },
          (err: unknown) => {
            // Logged when the failure starts or changes, not on every poll while Iris or a node is away. An attestation
            // of another message than our burn's is never taken: the wait goes on (and turns late) for an operator.
            if (String(err) !== failing) {
              const owner = 'paymentId' in input ? { paymentId: input.paymentId } : { rebalanceId: input.rebalanceId };
              if (err instanceof CctpMessageMismatch) deps.log.error({ ...owner, err: err.message }, 'Iris attested another message than our burn; refused');
              else deps.log.warn({ ...owner, err: String(err) }, 'bridge status unavailable; looking again');
            }
            failing = String(err);
            return undefined;
          },
        );
        if (arrival && arrival.state !== 'pending') return arrival;
        detail = arrival?.detail ?? failing;
        await sleep(pollMs);
      }
    },
  };
}
