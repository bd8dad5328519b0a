import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  TemporalFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ChainWaitActivities, PaymentActivities } from '../activities';
import { intentKeys } from '../domain/chain-txs';
import { payinId, type ConfirmedPayin, type DetectedPayin } from '../domain/payins';
import type { PaymentProgress, PaymentStatus, PaymentTerms, PaymentTransition } from '../domain/payment';
import type { WebhookEventType } from '../domain/webhook-events';
import { chainWaitsTaskQueue, chainWaitOptions, chainWriteOptions, localChainWaitOptions, readModelOptions, webhookOptions } from './activity-options';
import { legacyPaymentRun, type LegacyPaymentWorkflowInput } from './legacy/payment-v1';
import type { RetiredBridgeActivities } from './legacy/retired-activities';
import { payinDetectedSignal, paymentStateQuery, paymentUpdatedSignal, retryChainStepSignal } from './messages';
import { FOLDED_PAYMENT_PATCHES, PATCHES, type PaymentPatch } from './patches';
import { AwaitingOperatorKey, PaymentStatusKey } from './search-attributes';
import type { PayinProgress, PaymentState, PaymentWorkflowInput } from './types';

const readModel = proxyActivities<PaymentActivities>(readModelOptions);
const chainWrites = proxyActivities<PaymentActivities>(chainWriteOptions);
/**
 * The same steps as local activities (PATCHES.localSteps): run by the worker that runs the workflow task, recorded
 * as markers, so a run of consecutive steps costs one workflow task instead of a task-queue round trip each. Every
 * one of them is idempotent (read-model writes by sequence, chain writes by intent key), which a local activity
 * re-run after a worker crash needs.
 */
const localReadModel = proxyLocalActivities<PaymentActivities>(readModelOptions);
const localChainWrites = proxyLocalActivities<PaymentActivities>(chainWriteOptions);
const webhooks = proxyActivities<PaymentActivities>(webhookOptions);
/** Chain waits in the run's own workflow task (PaymentWorkflowInput.lean.localWaits); see `PaymentRun.chainWait`. */
const localWaits = proxyLocalActivities<ChainWaitActivities>(localChainWaitOptions);
const retiredBridge = proxyActivities<RetiredBridgeActivities>(chainWriteOptions);

/** How long a payout waits before it looks at the treasury again when the treasury is short. */
const LIQUIDITY_RECHECK = '1 minute';

/** What a run can wait for an operator for: the values of its `AwaitingOperator` search attribute. */
type OperatorWait = 'chain_step_reverts' | 'treasury_short';

/**
 * One payment (`payment-<id>`): waits for payins into its deposit address until they add up to the amount (or the
 * payment expires), then pays the merchant, and ends with the payment: `payment_completed`, `payment_refunded` or
 * `payment_expired` close the run. Payins that reach the address later are refunded by a `late-payin-…` run.
 *
 * Every token that reaches the deposit address while this run is open is either paid out to the merchant or refunded
 * to its sender: payins of the payment's token count towards the amount while the payment is open (the excess of the
 * payin that completes it goes back to its sender); any other payin (another token, or one arriving once the
 * payment is paid or expired) is refunded in full.
 */
export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentStatus> {
  // A lean run (PaymentWorkflowInput.lean) has every patch, and asks for none.
  if (input.lean) {
    const { expiresAt, timedFromFirstTask, localWaits, combinedSteps } = input.lean;
    const start = { expiresAt, timedFromFirstTask: timedFromFirstTask === true, localWaits: localWaits === true, combinedSteps: combinedSteps === true };
    return new PaymentRun(input.paymentId, { patches: 'lean', ...start }).run();
  }
  // Runs started before payment runs ended with their payment finish on the code they started on.
  const folded = patched(PATCHES.paymentPatchesFolded);
  if (!folded && !patched(PATCHES.paymentRunEndsWhenSettled)) return legacyPaymentRun(input as unknown as LegacyPaymentWorkflowInput);
  return new PaymentRun(input.paymentId, { patches: folded ? 'folded' : 'patched' }).run();
}

/**
 * How a run started, which says which patches it has: `lean` has all of them without asking and knows its expiry
 * (PaymentWorkflowInput.lean); `folded` (started with PATCHES.paymentPatchesFolded) has the folded ones without
 * asking and asks for the later ones; `patched` asks for each.
 */
type RunStart = { patches: 'lean'; expiresAt: string; timedFromFirstTask: boolean; localWaits: boolean; combinedSteps: boolean } | { patches: 'folded' | 'patched' };

/** The statuses a payment run ends with. */
const FINAL_STATUSES: ReadonlySet<PaymentStatus> = new Set(['payment_completed', 'payment_refunded', 'payment_expired']);

interface TrackedPayin {
  payin: DetectedPayin | ConfirmedPayin;
  progress: PayinProgress;
}

class PaymentRun {
  private readonly waits = proxyActivities<ChainWaitActivities>({ ...chainWaitOptions, taskQueue: chainWaitsTaskQueue(workflowInfo().taskQueue) });
  private status: PaymentStatus = 'payment_unpaid';
  private sequence = 0;
  /** Read from the database at the run's start, or (lean run) when a payin or the expiry first needs them. */
  private loadedTerms?: PaymentTerms;
  private readonly payins = new Map<string, TrackedPayin>();
  private readonly inbox: DetectedPayin[] = [];
  /** Payins of the payment's token being confirmed while the payment collects. */
  private readonly confirming = new Set<string>();
  /** Confirmed payins of the payment's token, counted towards the amount, in the order they confirmed. */
  private counted: ConfirmedPayin[] = [];
  /** Collecting ends when the payins add up, or at expiry; later payins are refunded. */
  private collecting = true;
  private expired = false;
  /** Work started beside the payment's own steps (refunds of other payins, webhook deliveries): the run ends after it. */
  private readonly background: Array<Promise<void>> = [];
  /** A webhook delivery was scheduled since the run's last local chain wait began (see `chainWait`). */
  private deliveryScheduled = false;
  /** Resolves once the workflow task that scheduled the latest deliveries has completed. */
  private deliveriesSent: Promise<void> = Promise.resolve();
  /** `retryChainStep` signals received: each lets the chain steps waiting for an operator try again. */
  private operatorRetries = 0;
  /** The operator waits open (PATCHES.operatorWaitsTracked), oldest first. */
  private readonly operatorWaits: OperatorWait[] = [];
  private readonly readModel: typeof readModel;
  private readonly chainWrites: typeof chainWrites;
  /**
   * Consecutive steps run as one (PaymentWorkflowInput.lean.combinedSteps): the read-model writes between two other
   * steps in one `recordPaymentProgress`, the payout's reservation and transfer in one `payOutFromTreasury`.
   */
  private readonly combined: boolean;

  constructor(
    private readonly paymentId: string,
    private readonly start: RunStart,
  ) {
    // Decided once, before the run's first step: a run recorded before the patch keeps its steps as activity tasks.
    const localSteps = this.has(PATCHES.localSteps);
    this.readModel = localSteps ? localReadModel : readModel;
    this.chainWrites = localSteps ? localChainWrites : chainWrites;
    this.combined = start.patches === 'lean' && start.combinedSteps;
    setHandler(payinDetectedSignal, (payin) => {
      const known = this.payins.get(payinId(payin));
      // The watcher re-sends after reorgs and restarts; only a payin we saw vanish may come back.
      if (known && known.progress !== 'dropped') return;
      this.payins.set(payinId(payin), { payin, progress: 'detected' });
      this.inbox.push(payin);
    });
    setHandler(retryChainStepSignal, () => {
      this.operatorRetries++;
    });
    setHandler(paymentStateQuery, (): PaymentState => ({ status: this.status, payins: [...this.payins.values()].map((p) => ({ ...p.payin, state: p.progress })) }));
  }

  async run(): Promise<PaymentStatus> {
    // A lean run's first task only starts the expiry timer: nothing needs the terms before a payin or the expiry.
    if (this.start.patches === 'lean' && this.start.timedFromFirstTask) {
      // This task may be the first at the expiry itself (the start delay ended): then there is nothing to wait for.
      // The sandbox's clock is this task's start time, recorded in its history, so replay reads the same.
      // eslint-disable-next-line no-restricted-syntax
      const left = Date.parse(this.start.expiresAt) - Date.now();
      if (left > 0) this.expireAfter(left);
      else this.expired = true;
    } else {
      const expiresAt = this.start.patches === 'lean' ? this.start.expiresAt : (await this.loadTerms()).expiresAt;
      this.expireAfter(Math.max(0, Date.parse(expiresAt) - workflowInfo().startTime.getTime()));
    }

    for (;;) {
      await condition(() => this.inbox.length > 0 || this.paid() || (this.expired && this.confirming.size === 0));
      if (!this.loadedTerms) await this.loadTerms();
      const next = this.inbox.shift();
      if (next) {
        await this.accept(next);
        continue;
      }
      if (this.paid()) {
        if (await this.settle()) break;
        continue; // A reorg removed a counted payin before finality: the payment collects again.
      }
      // Expired, nothing left confirming: a payin detected in time was honoured, one that confirmed short is returned.
      this.collecting = false;
      if (this.counted.length > 0) await this.bounce();
      else await this.transition('payment_expired');
      break;
    }
    // The sandbox's clock: the time of the run's latest workflow task, recorded in its history.
    // eslint-disable-next-line no-restricted-syntax
    const settledAt = Date.now();
    await this.drain();
    // A combined run's final status kept its deposit address watched; again only if the drain outlasted that task.
    // eslint-disable-next-line no-restricted-syntax
    if (!this.combined || Date.now() > settledAt) await this.readModel.extendDepositWatch({ paymentId: this.paymentId });
    return this.status;
  }

  private expireAfter(ms: number): void {
    void sleep(ms).then(() => {
      this.expired = true;
    });
  }

  private async loadTerms(): Promise<PaymentTerms> {
    this.loadedTerms = await this.readModel.loadPaymentTerms({ paymentId: this.paymentId });
    return this.loadedTerms;
  }

  private get terms(): PaymentTerms {
    if (!this.loadedTerms) throw new Error(`payment ${this.paymentId}: terms used before they were read`);
    return this.loadedTerms;
  }

  /** Whether this run takes a patch's branch: always for a lean run or a folded run's folded patch, else as `patched()` says. */
  private has(patch: PaymentPatch): boolean {
    if (this.start.patches === 'lean') return true;
    if (this.start.patches === 'folded' && (FOLDED_PAYMENT_PATCHES as readonly string[]).includes(patch)) return true;
    return patched(patch);
  }

  private received(): bigint {
    return this.counted.reduce((sum, p) => sum + BigInt(p.amountUnits), 0n);
  }

  private paid(): boolean {
    return this.collecting && this.counted.length > 0 && this.received() >= BigInt(this.terms.source.amountUnits);
  }

  private track(payin: DetectedPayin | ConfirmedPayin, progress: PayinProgress): void {
    this.payins.set(payinId(payin), { payin, progress });
  }

  private async transition(status: PaymentStatus, fields: Pick<PaymentTransition, 'payin' | 'payout'> = {}): Promise<void> {
    const step = this.enter(status, fields);
    // A final status also keeps the deposit address watched for late payins (see `run`).
    if (this.combined) return this.record(step, ...(FINAL_STATUSES.has(status) ? [{ kind: 'watch' as const }] : []));
    await this.readModel.recordPaymentTransition({ paymentId: this.paymentId, status, sequence: step.sequence, ...fields });
    const parent = workflowInfo().parent;
    if (parent) await this.tellOrder(parent.workflowId, status);
  }

  /** The run enters `status` (its state, its search attribute); the returned write records it. */
  private enter(status: PaymentStatus, fields: Pick<PaymentTransition, 'payin' | 'payout'> = {}): Extract<PaymentProgress, { kind: 'status' }> {
    this.status = status;
    upsertSearchAttributes([{ key: PaymentStatusKey, value: status }]);
    return { kind: 'status', status, sequence: ++this.sequence, ...fields };
  }

  /** A legacy order follows its payment. An order that has ended no longer listens; that is not an error. */
  private tellOrder(orderWorkflowId: string, status: PaymentStatus): Promise<void> {
    return getExternalWorkflowHandle(orderWorkflowId)
      .signal(paymentUpdatedSignal, { paymentId: this.paymentId, status })
      .catch((err: unknown) => log.info('order did not take the payment update', { paymentId: this.paymentId, status, error: String(err) }));
  }

  /** Records writes in one step (a combined run's), then tells the run's order of the statuses it entered. */
  private async record(...steps: PaymentProgress[]): Promise<void> {
    await this.readModel.recordPaymentProgress({ paymentId: this.paymentId, steps });
    const parent = workflowInfo().parent;
    for (const step of steps) if (parent && step.kind === 'status') await this.tellOrder(parent.workflowId, step.status);
  }

  private payinProgress(payin: DetectedPayin, status: 'detected' | 'confirmed' | 'dropped', disposition?: 'payment' | 'refund'): PaymentProgress {
    return { kind: 'payin', payin, status, disposition, sequence: ++this.sequence };
  }

  private recordPayin(payin: DetectedPayin, status: 'detected' | 'confirmed' | 'dropped', disposition?: 'payment' | 'refund'): Promise<void> {
    if (this.combined) return this.record(this.payinProgress(payin, status, disposition));
    return this.readModel.recordPayin({ paymentId: this.paymentId, payin, status, disposition, sequence: ++this.sequence });
  }

  /** What the payment received: the counted payins' sum, and the last one's sender, transaction and time. */
  private receivedPayin(): NonNullable<PaymentTransition['payin']> {
    const last = this.counted[this.counted.length - 1]!;
    return { senderAddress: last.from, txHash: last.txHash, amountReceivedUnits: this.received().toString(), confirmedAt: last.confirmedAt };
  }

  /** Starts the event's delivery beside the payment: the payout never waits for a merchant's endpoint. */
  private emitWebhook(eventType: WebhookEventType): void {
    // The URL is captured at creation, so a payment without one has nothing to deliver, ever. `=== false`: terms
    // recorded before the field existed lack it, and those runs deliver as they did.
    if (this.terms.webhooks === false && this.has(PATCHES.noDeliveriesWithoutWebhookUrl)) return;
    this.deliveryScheduled = true;
    this.background.push(
      webhooks.deliverWebhook({ paymentId: this.paymentId, eventType }).then(
        () => undefined,
        // Only a database outage outlasting every retry gets here; the merchant still sees the payment by polling.
        (err: unknown) => log.error('webhook delivery could not be attempted', { paymentId: this.paymentId, eventType, error: String((err as Error).cause ?? err) }),
      ),
    );
  }

  /** A new payin: counted towards the amount while the payment collects and it is in the payment's token; else refunded. */
  private async accept(payin: DetectedPayin): Promise<void> {
    const { source } = this.terms;
    if (payin.chainId !== source.chainId || payin.to.toLowerCase() !== source.depositAddress.toLowerCase()) {
      // Only the chain watcher signals payins, and only for this deposit address: anything else is forged.
      log.warn('payin signal refused: not a transfer into this payment’s deposit address', { paymentId: this.paymentId, payin });
      this.track(payin, 'refused');
      return;
    }
    const inToken = payin.tokenAddress.toLowerCase() === source.address.toLowerCase();
    const counts = () => inToken && this.collecting && !this.expired;
    if (this.combined) {
      // The payin, and the payment's start when it counts, in one write.
      const starts = counts() && this.status === 'payment_unpaid';
      await this.record(this.payinProgress(payin, 'detected'), ...(starts ? [this.enter('payment_started')] : []));
    } else await this.recordPayin(payin, 'detected');
    if (!counts()) {
      this.background.push(this.refundWhole(payin, inToken ? 'arrived after the payment was paid or expired' : 'not the payment token'));
      return;
    }
    if (this.status === 'payment_unpaid') await this.transition('payment_started');
    this.track(payin, 'confirming');
    this.confirming.add(payinId(payin));
    this.background.push(this.confirmForPayment(payin));
  }

  /** Waits for a payin of the payment's token; counts it if the payment still collects, else returns it. */
  private async confirmForPayment(payin: DetectedPayin): Promise<void> {
    const result = await this.chainWait((waits) => waits.awaitPayinConfirmation({ paymentId: this.paymentId, payin, depth: 'confirmations' }));
    this.confirming.delete(payinId(payin));
    if (result.outcome === 'dropped') {
      this.track(payin, 'dropped');
      await this.recordPayin(payin, 'dropped');
      if (this.collecting && this.counted.length === 0 && this.confirming.size === 0 && this.status === 'payment_started') {
        await this.transition('payment_unpaid');
      }
      return;
    }
    // Payins count in the order they confirm, until they add up: one confirming beside the one that paid (a
    // multisend, or two in one block) is returned whole, not counted into an overpayment.
    if (!this.collecting || (this.paid() && this.has(PATCHES.countUntilPaid))) {
      await this.refundConfirmed(result.payin, result.payin.amountUnits, 'arrived after the payment was paid or expired');
      return;
    }
    this.track(result.payin, 'counted');
    this.counted.push(result.payin);
    // A combined run records the payin that completes the payment with the status it brings, in `settle`: no step
    // runs beside the one that settles (a command issued between two local activities' results would not replay).
    if (this.combined && this.paid()) return;
    await this.recordPayin(result.payin, 'confirmed');
  }

  /** A payin that cannot count towards the payment goes back to its sender, whole, once confirmed. */
  private async refundWhole(payin: DetectedPayin, reason: string): Promise<void> {
    this.track(payin, 'confirming');
    const result = await this.chainWait((waits) => waits.awaitPayinConfirmation({ paymentId: this.paymentId, payin, depth: 'confirmations' }));
    if (result.outcome === 'dropped') {
      this.track(payin, 'dropped');
      await this.recordPayin(payin, 'dropped');
      return;
    }
    await this.refundConfirmed(result.payin, result.payin.amountUnits, reason);
  }

  /** Sends `amountUnits` of the payin's token straight from the deposit address back to its sender. */
  private async refundConfirmed(payin: ConfirmedPayin, amountUnits: string, reason: string): Promise<void> {
    if (this.has(PATCHES.adversarialMoneyPath) && (await this.heldAsDust(payin, amountUnits))) return;
    this.track(payin, 'refunding');
    await this.recordPayin(payin, 'confirmed', 'refund');
    await this.landed(
      await this.chainStep(() => this.chainWrites.sweepDeposit({
        intentKey: intentKeys.refund(payinId(payin)),
        paymentId: this.paymentId,
        chainId: payin.chainId,
        tokenAddress: payin.tokenAddress,
        recipient: { kind: 'address', address: payin.from },
        amountUnits,
        purpose: `refund (${reason})`,
      })),
    );
    this.track(payin, 'refunded');
  }

  /** Dust is held at the deposit address, recorded on the payin, rather than refunded at a loss. */
  private async heldAsDust(payin: ConfirmedPayin, amountUnits: string): Promise<boolean> {
    if (!(await this.readModel.holdDust({ paymentId: this.paymentId, payin, amountUnits })).held) return false;
    this.track(payin, 'held');
    return true;
  }

  /**
   * Runs a chain write. A call that would revert (`EstimateReverted`) is not retried blindly: the run says so
   * (`AwaitingOperator=chain_step_reverts`, an error log) and waits for an operator's `retryChainStep`.
   */
  private chainStep<T>(step: () => Promise<T>): Promise<T> {
    return this.has(PATCHES.adversarialMoneyPath) ? this.untilOperatorFixes(step) : step();
  }

  private async untilOperatorFixes<T>(step: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await step();
      } catch (err) {
        // An activity task's failure wraps the activity's error; a local activity's may arrive as that error itself.
        const cause = err instanceof ActivityFailure ? err.cause : err;
        if (!(cause instanceof ApplicationFailure && cause.type === 'EstimateReverted')) throw err;
        const seen = this.operatorRetries;
        log.error('a chain step would revert; waiting for an operator (signal retryChainStep)', { paymentId: this.paymentId, error: cause.message });
        const waitEnded = this.beginOperatorWait('chain_step_reverts');
        await condition(() => this.operatorRetries > seen);
        waitEnded();
      }
    }
  }

  /**
   * Shows in `AwaitingOperator` that the run waits for an operator; the returned function ends that wait. With
   * several waits open (a refund's reverting call beside a payout's short treasury), the attribute shows the oldest
   * until the last one ends.
   */
  private beginOperatorWait(reason: OperatorWait): () => void {
    if (!this.has(PATCHES.operatorWaitsTracked)) {
      // A wait begun before the patch: its end clears the attribute, then shows any tracked wait still open.
      upsertSearchAttributes([{ key: AwaitingOperatorKey, value: reason }]);
      return () => {
        upsertSearchAttributes([{ key: AwaitingOperatorKey, value: null }]);
        this.showOldestOperatorWait();
      };
    }
    this.operatorWaits.push(reason);
    this.showOldestOperatorWait();
    return () => {
      this.operatorWaits.splice(this.operatorWaits.indexOf(reason), 1);
      this.showOldestOperatorWait();
    };
  }

  private showOldestOperatorWait(): void {
    const oldest = this.operatorWaits[0] ?? null;
    // What the attribute shows now: the run's search attributes follow its own upserts.
    if (oldest === (workflowInfo().typedSearchAttributes.get(AwaitingOperatorKey) ?? null)) return;
    upsertSearchAttributes([{ key: AwaitingOperatorKey, value: oldest }]);
  }

  /**
   * A wait on the chain. A run started with `localWaits` waits in its own workflow task first (a local activity:
   * no task-queue round trip, no workflow task of its own when it ends); a local wait that outlasts
   * `localChainWaitOptions` or fails is handed to a chain-waits activity task, which heartbeats and shows in the
   * Temporal UI. Both are idempotent (reads, and re-broadcasts of the intent's one signed transaction), so the
   * handover repeats nothing that matters.
   */
  private chainWait<T>(wait: (waits: ChainWaitActivities) => Promise<T>): Promise<T> {
    // The activity's own promise, not an async function's: runs recorded before replay their exact promise ticks.
    if (!(this.start.patches === 'lean' && this.start.localWaits)) return wait(this.waits);
    return this.localChainWait(wait);
  }

  private async localChainWait<T>(wait: (waits: ChainWaitActivities) => Promise<T>): Promise<T> {
    if (this.deliveryScheduled) {
      // A local wait holds the workflow task open, and the task's commands go to the server when it completes: a
      // delivery scheduled before the wait would go out only after it. A 1 ms timer completes the task first.
      this.deliveryScheduled = false;
      this.deliveriesSent = sleep(1);
    }
    await this.deliveriesSent;
    try {
      return await wait(localWaits);
    } catch (err) {
      if (!(err instanceof TemporalFailure) || isCancellation(err)) throw err;
      log.info('a chain wait did not end in the workflow task; handed to an activity task', { paymentId: this.paymentId, error: err.message });
      return wait(this.waits);
    }
  }

  /**
   * Waits for an intent's transaction. A revert here (sweep, bridge, refund, payout) breaks an invariant no retry
   * can mend, so the run fails visibly for an operator, naming the transaction.
   */
  private async landed(tx: { intentKey: string }, depth: 'confirmations' | 'finality' = 'confirmations') {
    const result = await this.chainWait((waits) => waits.awaitChainTx({ intentKey: tx.intentKey, depth }));
    if (!result.succeeded) throw ApplicationFailure.nonRetryable(`chain transaction ${tx.intentKey} reverted (${result.txHash})`, 'ChainTxReverted');
    return result;
  }

  /**
   * The payins add up: the payment is paid. Releases the payout only once every counted payin is final on the
   * source chain; false when a reorg removed one before that (the payment then collects again).
   */
  private async settle(): Promise<boolean> {
    const counted = this.counted;
    const completing = counted[counted.length - 1]!;
    const received = this.received();
    this.collecting = false;
    if (this.status !== 'payment_payin_completed') {
      if (this.combined) await this.record(this.payinProgress(completing, 'confirmed'), this.enter('payment_payin_completed', { payin: this.receivedPayin() }));
      else await this.transition('payment_payin_completed', { payin: this.receivedPayin() });
      this.emitWebhook('payment_payin_completed');
    }
    const final = await Promise.all(counted.map((payin) => this.chainWait((waits) => waits.awaitPayinConfirmation({ paymentId: this.paymentId, payin, depth: 'finality' }))));
    const survivors = counted.filter((_, i) => final[i]!.outcome === 'confirmed');
    if (survivors.length < counted.length) {
      for (const payin of counted.filter((_, i) => final[i]!.outcome === 'dropped')) {
        this.track(payin, 'dropped');
        await this.recordPayin(payin, 'dropped');
      }
      log.warn('a counted payin vanished before finality; the payment collects again', { paymentId: this.paymentId });
      this.counted = survivors;
      this.collecting = true;
      await this.transition(survivors.length > 0 ? 'payment_started' : 'payment_unpaid');
      return false;
    }
    if (this.combined) {
      for (const payin of counted) this.track(payin, 'counted');
      // Same chain, the payout starts now (from the treasury's float): it is recorded with the counted payins.
      const payoutStarts = this.terms.route === 'bridge' ? [] : [this.enter('payment_payout_started')];
      await this.record(...counted.map((payin) => this.payinProgress(payin, 'confirmed', 'payment')), ...payoutStarts);
    } else {
      for (const payin of counted) {
        this.track(payin, 'counted');
        await this.recordPayin(payin, 'confirmed', 'payment');
      }
    }
    await this.payOut(completing, received);
    return true;
  }

  /** Moves the payin to the treasury (bridging when the payout is on another chain) and pays the merchant. */
  private async payOut(completing: ConfirmedPayin, received: bigint): Promise<void> {
    const { source, destination, route } = this.terms;
    const required = BigInt(source.amountUnits);
    // Same chain (PATCHES.payoutBesideSweep): the payout does not wait for the sweep, which refills the float meanwhile.
    const besideSweep = route !== 'bridge' && this.has(PATCHES.payoutBesideSweep);
    const sweeping = this.chainStep(() =>
      this.chainWrites.sweepDeposit({
        intentKey: intentKeys.sweep(this.paymentId),
        paymentId: this.paymentId,
        chainId: source.chainId,
        tokenAddress: source.address,
        recipient: { kind: 'treasury' },
        amountUnits: required.toString(),
        purpose: 'payin to treasury',
      }),
    );
    if (!besideSweep) await sweeping;
    const excessUnits = (received - required).toString();
    const excessRefund = () =>
      this.chainWrites.sweepDeposit({
        intentKey: intentKeys.refund(payinId(completing)),
        paymentId: this.paymentId,
        chainId: source.chainId,
        tokenAddress: source.address,
        recipient: { kind: 'address', address: completing.from },
        amountUnits: excessUnits,
        purpose: 'refund (overpayment excess)',
      });
    // The excess of an overpayment goes back once, unless it is dust (then held, recorded on the payin).
    const excess =
      received <= required
        ? null
        : this.has(PATCHES.adversarialMoneyPath)
          ? this.heldAsDust(completing, excessUnits).then((held) => (held ? null : this.chainStep(excessRefund)))
          : excessRefund();

    if (route === 'bridge') {
      // The destination treasury is refilled by the bridge before it pays.
      await this.landed(await sweeping);
      await this.transition('payment_bridging');
      const bridged = (required - BigInt(source.feeUnits)).toString();
      if (this.has(PATCHES.realBridges)) await this.bridge(bridged);
      else await this.bridgeThroughDevnetBridge(bridged);
    }

    // Same chain: the treasury pays from its float; the sweep refills it meanwhile.
    if (this.status !== 'payment_payout_started') await this.transition('payment_payout_started');
    // Our own liquidity never bounces a customer: a short treasury makes the payout wait, visibly, until funded.
    const visible = this.has(PATCHES.adversarialMoneyPath);
    let treasuryWaitEnded: (() => void) | undefined;
    const treasuryShort = (): Promise<void> => {
      log.warn('treasury short of the payout; waiting for funds', { paymentId: this.paymentId, chainId: destination.chainId, token: destination.symbol });
      if (visible) treasuryWaitEnded ??= this.beginOperatorWait('treasury_short');
      return sleep(LIQUIDITY_RECHECK);
    };
    const transfer = {
      intentKey: intentKeys.payout(this.paymentId),
      paymentId: this.paymentId,
      chainId: destination.chainId,
      tokenAddress: destination.address,
      to: destination.receiverAddress,
      amountUnits: destination.amountUnits,
      purpose: 'payout to merchant',
    };
    let payout: { intentKey: string } | null;
    if (this.combined) {
      // The reservation and the transfer in one step: no transfer while the treasury is short.
      while (!(payout = (await this.chainStep(() => this.chainWrites.payOutFromTreasury(transfer))).payout)) await treasuryShort();
      treasuryWaitEnded?.();
    } else {
      while (!(await this.chainWrites.reservePayoutFunds({ paymentId: this.paymentId })).reserved) await treasuryShort();
      treasuryWaitEnded?.();
      payout = await this.chainStep(() => this.chainWrites.transferFromTreasury(transfer));
    }
    const paid = await this.landed(payout);
    await this.transition('payment_payout_completed', { payout: { txHash: paid.txHash, confirmedAt: paid.confirmedAt } });
    this.emitWebhook('payment_payout_completed');

    if (route !== 'bridge') await this.landed(await sweeping);
    const excessTx = await excess;
    if (excessTx) {
      this.track(completing, 'refunding');
      await this.landed(excessTx);
    }
    await this.landed(payout, 'finality');
    await this.transition('payment_completed');
  }

  /**
   * Moves `amountUnits` of the payment's token from the source treasury to the destination treasury through the
   * configured bridge. The quote is kept in the run's history, so every retried or resumed step uses the same one;
   * every transaction is an outbox intent of the payment, so a crash never burns or mints twice.
   */
  private async bridge(amountUnits: string): Promise<void> {
    const { source, destination } = this.terms;
    const quote = await this.chainWrites.quoteBridge({
      paymentId: this.paymentId, sourceChainId: source.chainId, destinationChainId: destination.chainId, tokenSymbol: source.symbol, amountUnits,
    });
    log.info('bridging', { paymentId: this.paymentId, bridge: quote.kind, maxFeeUnits: quote.maxFeeUnits, nativeFeeWei: quote.nativeFeeWei, expectedSeconds: quote.expectedSeconds });
    const approval = await this.chainStep(() => this.chainWrites.approveBridge({ paymentId: this.paymentId, quote }));
    if (approval) await this.landed(approval);
    const started = await this.landed(await this.chainStep(() => this.chainWrites.startBridge({ paymentId: this.paymentId, quote })));
    const arrival = await this.waits.awaitBridgeArrival({ paymentId: this.paymentId, quote, startTxHash: started.txHash });
    const finish = await this.chainStep(() => this.chainWrites.finishBridge({ paymentId: this.paymentId, quote, arrival }));
    if (finish) await this.landed(finish);
  }

  /** Runs recorded before PATCHES.realBridges: the DevnetBridge burn and mint (replay only, no worker serves them). */
  private async bridgeThroughDevnetBridge(amountUnits: string): Promise<void> {
    const { source, destination } = this.terms;
    const burn = await this.chainStep(() => retiredBridge.burnForBridge({
      intentKey: intentKeys.bridgeBurn(this.paymentId),
      paymentId: this.paymentId,
      chainId: source.chainId,
      tokenSymbol: source.symbol,
      amountUnits,
      destinationChainId: destination.chainId,
    }));
    await this.landed(burn);
    const mint = await this.chainStep(() => retiredBridge.mintFromBridge({
      intentKey: intentKeys.bridgeMint(this.paymentId),
      paymentId: this.paymentId,
      chainId: destination.chainId,
      tokenSymbol: source.symbol,
      amountUnits,
      sourceChainId: source.chainId,
    }));
    await this.landed(mint);
  }

  /** The payment expired with confirmed payins that do not add up: every one goes back to its sender. */
  private async bounce(): Promise<void> {
    await this.transition('payment_bounced', { payin: this.receivedPayin() });
    await Promise.all(this.counted.map((payin) => this.refundConfirmed(payin, payin.amountUnits, 'underpaid')));
    await this.transition('payment_refunded');
  }

  /** Finishes everything started beside the payment, including payins that arrive meanwhile (all refunded). */
  private async drain(): Promise<void> {
    for (;;) {
      const started = this.background.length;
      await Promise.all(this.background);
      const next = this.inbox.shift();
      if (next) await this.accept(next);
      else if (this.background.length === started) return;
    }
  }
}
