import { heartbeat, sleep } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ChainDepth, ChainTxIntent, ChainTxResult } from '../domain/chain-txs';
import type { DetectedPayin, PayinConfirmation } from '../domain/payins';
import type { BridgeArrival, BridgeQuote } from '../domain/bridges';
import { findPaymentById } from '../db/queries/payments';
import { reserveTreasury } from '../db/queries/treasury-reservations';
import { createBridgeService } from '../services/bridges';
import { createChainTxService, EstimateReverted, type SweepRecipient } from '../services/chain-txs';
import { TransferRefused } from '../services/money-terms';
import { checkPayinConfirmation } from '../services/payins';
import type { ActivityDeps } from './deps';

/** Polls after which a transaction the node no longer knows at all is taken as dropped by a reorg. */
const MISSING_POLLS_BEFORE_DROPPED = 3;

/**
 * A transfer the database's terms refuse, or a call that would revert, fails for good with the error's name as its
 * type (`TransferRefused`, `EstimateReverted`): the workflow stops for an operator instead of retrying forever.
 */
async function signing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof TransferRefused || err instanceof EstimateReverted) throw ApplicationFailure.nonRetryable(err.message, err.name);
    throw err;
  }
}

/** Chain writes: each keyed by an intent, so every retry re-broadcasts the one signed transaction. */
export function createChainWriteActivities(deps: ActivityDeps) {
  const txs = createChainTxService(deps);
  const bridges = createBridgeService(deps);
  return {
    /** Idempotent per intent key: moves funds out of a deposit address (deploying its forwarder if needed), on database terms. */
    sweepDeposit: (input: ChainTxIntent & { paymentId: string; tokenAddress: string; recipient: SweepRecipient; amountUnits: string; purpose: string }) =>
      signing(() => txs.sweepDeposit(input)),

    /** Idempotent per intent key: a transfer from the treasury (payouts), on database terms. */
    transferFromTreasury: (input: ChainTxIntent & { tokenAddress: string; to: string; amountUnits: string; purpose: string }) =>
      signing(() => txs.transferFromTreasury(input)),

    /** Idempotent (read-only): fees and expected time of bridging the amount to the destination treasury. */
    quoteBridge: (input: { paymentId: string; sourceChainId: number; destinationChainId: number; tokenSymbol: string; amountUnits: string }) =>
      bridges.quote(input),

    /** Idempotent per intent key: the bridge's allowance to pull the token, or null when it needs none. */
    approveBridge: (input: { paymentId: string; quote: BridgeQuote }) => signing(() => bridges.approve(input)),

    /** Idempotent per intent key: the CCTP burn or OFT send; the bridge's own nonce makes its message unique. */
    startBridge: (input: { paymentId: string; quote: BridgeQuote }) => signing(() => bridges.start(input)),

    /** Idempotent per intent key: the CCTP mint (refused on chain for a used nonce), or null for a delivered OFT. */
    finishBridge: (input: { paymentId: string; quote: BridgeQuote; arrival: Exclude<BridgeArrival, { state: 'pending' }> }) => signing(() => bridges.finish(input)),

    /**
     * Idempotent (one reservation per payment): sets the payout aside in the treasury ledger (PostgreSQL) when the
     * treasury's balance, less what other unmined payouts reserved, covers it. Not reserved: the run waits for funds.
     */
    async reservePayoutFunds(input: { paymentId: string }): Promise<{ reserved: boolean; availableUnits: string }> {
      const payment = await findPaymentById({ knex: deps.knex, id: input.paymentId });
      if (!payment) throw new Error(`payment ${input.paymentId} does not exist`);
      const available = await txs.treasuryBalance(payment.destination_chain_id, payment.destination_token_address);
      const reserved = await reserveTreasury({
        knex: deps.knex,
        paymentId: payment.id,
        chainId: payment.destination_chain_id,
        tokenAddress: payment.destination_token_address,
        amountUnits: payment.destination_amount_units,
        balanceUnits: available,
      });
      if (!reserved) deps.log.warn({ paymentId: payment.id, chainId: payment.destination_chain_id, availableUnits: available.toString() }, 'treasury short of a payout');
      return { reserved, availableUnits: available.toString() };
    },
  };
}

/** Long waits on the chain (the chain-waits task queue): they heartbeat, and re-read the chain on every poll. */
export function createChainWaitActivities(deps: ActivityDeps) {
  const txs = createChainTxService(deps);
  const bridges = createBridgeService(deps);
  return {
    /**
     * Idempotent (read-only): waits until the payin's transaction has the chain's confirmations (or finality
     * depth), re-reading its receipt on every poll, so a reorg that moves or removes it is seen. Heartbeats.
     */
    async awaitPayinConfirmation(input: { paymentId: string; payin: DetectedPayin; depth?: ChainDepth }): Promise<PayinConfirmation> {
      const pollMs = deps.chains.registry.chain(input.payin.chainId).pollIntervalMs;
      let missingPolls = 0;
      for (;;) {
        heartbeat();
        const check = await checkPayinConfirmation(deps, input.payin, input.depth ?? 'confirmations');
        if (check.state === 'confirmed') return { outcome: 'confirmed', payin: check.payin };
        if (check.state === 'dropped') return { outcome: 'dropped' };
        missingPolls = check.state === 'missing' ? missingPolls + 1 : 0;
        if (missingPolls >= MISSING_POLLS_BEFORE_DROPPED) return { outcome: 'dropped' };
        await sleep(pollMs);
      }
    },

    /**
     * Idempotent (re-broadcasts, then reads): waits until the intent's transaction is mined with the chain's
     * confirmations (or finality depth), re-broadcasting it while the node does not have it. Heartbeats.
     */
    async awaitChainTx(input: { intentKey: string; depth: ChainDepth }): Promise<ChainTxResult> {
      for (;;) {
        heartbeat();
        const check = await txs.checkIntent(input.intentKey, input.depth);
        if ('txHash' in check) return check;
        await sleep(check.pollAfterMs);
      }
    },

    /**
     * Idempotent (read-only): waits until the started transfer is attested (CCTP) or delivered (OFT). Iris or a
     * node being away only delays it: every poll is a fresh look, and the activity heartbeats throughout.
     */
    async awaitBridgeArrival(input: { paymentId: string; quote: BridgeQuote; startTxHash: string }): Promise<Exclude<BridgeArrival, { state: 'pending' }>> {
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
            // Logged when the failure starts or changes, not on every poll while Iris or a node is away.
            if (String(err) !== failing) deps.log.warn({ paymentId: input.paymentId, err: String(err) }, 'bridge status unavailable; looking again');
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
