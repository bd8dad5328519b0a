import { ActivityFailure, ApplicationFailure, condition, isCancellation, log, proxyActivities, proxyLocalActivities, sleep, TemporalFailure, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ChainWaitActivities } from '../activities';
import { chainWaitsTaskQueue, chainWaitOptions, localChainWaitOptions } from './activity-options';
import type { Duration } from '@temporalio/common';
import { AwaitingOperatorKey } from './search-attributes';

const localWaits = proxyLocalActivities<ChainWaitActivities>(localChainWaitOptions);

/** What a run can wait for an operator for: the values of its `AwaitingOperator` search attribute. */
export type OperatorWait = 'chain_step_reverts' | 'treasury_short' | 'chain_tx_refused' | 'bridge_late';

/**
 * Failures of a chain step an operator can mend, by their type: a call that would revert (`EstimateReverted`), a
 * transaction the node keeps refusing (`ChainTxRefused`: the fee payer cannot pay, …), a merchant refund the
 * treasury cannot cover (`TreasuryShort`).
 */
const OPERATOR_MENDS: Partial<Record<string, OperatorWait>> = { EstimateReverted: 'chain_step_reverts', ChainTxRefused: 'chain_tx_refused', TreasuryShort: 'treasury_short' };

/**
 * How a run's steps on the chain run (payments, merchant refunds, late payins, rebalances): writes whose call would
 * revert wait for an operator, waits run in the run's own workflow task first, and a transaction that reverted fails
 * the run.
 */
export class ChainSteps {
  /** Chain waits as activity tasks on the chain-waits queue: the waits handed over, the bridge's long wait, a late payin's. */
  readonly waits = proxyActivities<ChainWaitActivities>({ ...chainWaitOptions, taskQueue: chainWaitsTaskQueue(workflowInfo().taskQueue) });
  /** `retryChainStep` signals received: each lets the steps waiting for an operator try again. */
  private operatorRetries = 0;
  /** The operator waits open, oldest first. */
  private readonly operatorWaits: OperatorWait[] = [];
  /** A command that must reach the server before a local wait holds the task open was scheduled (`sendBeforeNextWait`). */
  private unsent = false;
  /** Resolves once the workflow task that scheduled the latest such commands has completed. */
  private sent: Promise<void> = Promise.resolve();

  constructor(private readonly paymentId: string) {}

  /** An operator fixed what made a step's call revert (`retryChainStep`): the steps waiting for one try again. */
  operatorRetried(): void {
    this.operatorRetries++;
  }

  /** Waits `recheck`, or less when an operator signals `retryChainStep` (a treasury they have just funded). */
  async recheckAfter(recheck: Duration): Promise<void> {
    const seen = this.operatorRetries;
    await condition(() => this.operatorRetries > seen, recheck);
  }

  /**
   * Runs a chain write or wait. A call that would revert (`EstimateReverted`), or a transaction the node keeps
   * refusing (`ChainTxRefused`), is not retried blindly: the run says so (`AwaitingOperator=chain_step_reverts` or
   * `chain_tx_refused`, an error log) and waits for an operator's `retryChainStep`.
   */
  async untilOperatorFixes<T>(step: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await step();
      } catch (err) {
        // An activity task's failure wraps the activity's error; a local activity's may arrive as that error itself.
        const cause = err instanceof ActivityFailure ? err.cause : err;
        const reason = cause instanceof ApplicationFailure && cause.type ? OPERATOR_MENDS[cause.type] : undefined;
        if (!reason) throw err;
        const seen = this.operatorRetries;
        log.error('a chain step cannot proceed; waiting for an operator (signal retryChainStep)', { paymentId: this.paymentId, reason, error: (cause as ApplicationFailure).message });
        const waitEnded = this.beginOperatorWait(reason);
        await condition(() => this.operatorRetries > seen);
        waitEnded();
      }
    }
  }

  /**
   * Shows in `AwaitingOperator` that the run waits for an operator; the returned function ends that wait. With
   * several waits open (a refund's reverting call beside a payout's short treasury), it shows the oldest until the
   * last one ends.
   */
  beginOperatorWait(reason: OperatorWait): () => void {
    const show = () => {
      const oldest = this.operatorWaits[0] ?? null;
      // The run's search attributes follow its own upserts: only a change is upserted, and sent before the next
      // local wait holds the task open, so the Temporal UI never shows a wait that has ended.
      if (oldest === (workflowInfo().typedSearchAttributes.get(AwaitingOperatorKey) ?? null)) return;
      upsertSearchAttributes([{ key: AwaitingOperatorKey, value: oldest }]);
      this.sendBeforeNextWait();
    };
    this.operatorWaits.push(reason);
    show();
    return () => {
      this.operatorWaits.splice(this.operatorWaits.indexOf(reason), 1);
      show();
    };
  }

  /**
   * The run scheduled a command that must not wait for the next chain wait (a webhook delivery): a local wait holds
   * the workflow task open, and the task's commands reach the server only when it completes.
   */
  sendBeforeNextWait(): void {
    this.unsent = true;
  }

  /**
   * A wait on the chain, in the run's own workflow task first (a local activity: no task-queue round trip, no
   * workflow task of its own). One that fails or outlasts `localChainWaitOptions` is handed to a chain-waits activity
   * task, which heartbeats and shows in the Temporal UI. Both are idempotent (reads, and re-broadcasts of the
   * intent's one signed transaction), so the handover repeats nothing that matters.
   */
  async wait<T>(wait: (waits: ChainWaitActivities) => Promise<T>): Promise<T> {
    if (this.unsent) {
      // A 1 ms timer completes the task first, sending what it scheduled.
      this.unsent = false;
      this.sent = sleep(1);
    }
    await this.sent;
    try {
      return await wait(localWaits);
    } catch (err) {
      if (!(err instanceof TemporalFailure) || isCancellation(err)) throw err;
      log.info('a chain wait did not end in the workflow task; handed to an activity task', { paymentId: this.paymentId, error: err.message });
      return wait(this.waits);
    }
  }

  /**
   * Waits for an intent's transaction to land for its receiver. A revert or bounce here (sweep, bridge, refund,
   * payout) breaks an invariant no retry can mend, so the run fails visibly for an operator, naming the transaction.
   */
  async landed(tx: { intentKey: string }, depth: 'confirmations' | 'finality' = 'confirmations') {
    // A queued transfer is prepared in its wait, and a transaction signed again there: either may need an operator.
    const result = await this.untilOperatorFixes(() => this.wait((waits) => waits.awaitChainTx({ intentKey: tx.intentKey, depth })));
    if (!result.succeeded) throw ApplicationFailure.nonRetryable(`chain transaction ${tx.intentKey} reverted (${result.txHash})`, 'ChainTxReverted');
    return result;
  }
}
