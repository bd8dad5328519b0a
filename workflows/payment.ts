import { condition, log, proxyActivities, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import { intentKeys } from '../domain/chain-txs';
import { payinId, type ConfirmedPayin, type DetectedPayin } from '../domain/payins';
import { settledUnits, sweepWaitMs, type PaymentStatus, type PaymentTerms, type PaymentTransition } from '../domain/payment';
import type { WebhookEventType } from '../domain/webhook-events';
import { chainWriteOptions, readModelOptions, webhookOptions } from './activity-options';
import { ChainSteps } from './chain-steps';
import { acceptAsPaidUpdate, payinDetectedSignal, paymentStateQuery, retryChainStepSignal } from './messages';
import { PaymentRecord } from './payment-record';
import { Settlement } from './settlement';
import type { PayinProgress, PaymentState, PaymentWorkflowInput } from './types';

/**
 * A payment's steps are local activities, run by the worker that runs its workflow task and recorded as markers, so
 * consecutive steps cost one workflow task. Each is idempotent (read-model writes by sequence, chain writes by
 * intent key), as a local activity re-run after a worker crash needs. Webhook deliveries are activity tasks.
 */
const readModel = proxyLocalActivities<PaymentActivities>(readModelOptions);
const chainWrites = proxyLocalActivities<PaymentActivities>(chainWriteOptions);
const webhooks = proxyActivities<PaymentActivities>(webhookOptions);

/**
 * One payment (`payment-<id>`): waits for payins into its deposit address until they add up to the amount (or the
 * payment expires), then pays the merchant, and ends with the payment: `payment_completed`, `payment_refunded` or
 * `payment_expired` close the run. Payins that reach the address later are refunded by a `late-payin-…` run.
 *
 * Every token that reaches the deposit address while this run is open is either paid out to the merchant or refunded
 * to its sender: payins of the payment's token count towards the amount while the payment is open (the excess of the
 * payin that completes it goes back to its sender); any other payin (another token, or one arriving once the
 * payment is paid or expired) is refunded in full. Money moves only on the terms read from the database.
 */
export async function paymentWorkflow({ paymentId, expiresAt }: PaymentWorkflowInput): Promise<PaymentStatus> {
  return new PaymentRun(paymentId, expiresAt).run();
}

class PaymentRun {
  private readonly record: PaymentRecord;
  private readonly chain: ChainSteps;
  private readonly settlement: Settlement;
  /** Read from the database when a payin or the expiry first needs them. */
  private loadedTerms?: PaymentTerms;
  private readonly payins = new Map<string, { payin: DetectedPayin | ConfirmedPayin; progress: PayinProgress }>();
  private readonly inbox: DetectedPayin[] = [];
  /** Payins of the payment's token being confirmed while the payment collects. */
  private readonly confirming = new Set<string>();
  /** Confirmed payins of the payment's token, counted towards the amount, in the order they confirmed. */
  private counted: ConfirmedPayin[] = [];
  /** Collecting ends when the payins add up, or at expiry; later payins are refunded. */
  private collecting = true;
  private expired = false;
  /** The merchant accepted what its payins brought as paid (`acceptAsPaid`). */
  private accepted = false;
  /** Work started beside the payment's own steps (refunds of other payins, webhook deliveries): the run ends after it. */
  private readonly background: Array<Promise<void>> = [];

  constructor(
    private readonly paymentId: string,
    private readonly expiresAt: string,
  ) {
    this.record = new PaymentRecord(paymentId);
    this.chain = new ChainSteps(paymentId);
    this.settlement = new Settlement(paymentId, this.chain, this.record);
    setHandler(payinDetectedSignal, (payin) => {
      const known = this.payins.get(payinId(payin));
      // The watcher re-sends after reorgs and restarts; only a payin we saw vanish may come back.
      if (known && known.progress !== 'dropped') return;
      this.payins.set(payinId(payin), { payin, progress: 'detected' });
      this.inbox.push(payin);
    });
    setHandler(retryChainStepSignal, () => this.chain.operatorRetried());
    setHandler(acceptAsPaidUpdate, () => this.acceptAsPaid(), {
      validator: () => {
        if (!this.collecting || this.expired || this.counted.length === 0) throw new Error('only a payment that collects, before its expiry, with a confirmed payin is accepted as paid');
      },
    });
    setHandler(paymentStateQuery, (): PaymentState => ({ status: this.record.status, payins: [...this.payins.values()].map((p) => ({ ...p.payin, state: p.progress })) }));
  }

  async run(): Promise<PaymentStatus> {
    // The first task only starts the expiry timer. It comes at the expiry when the start delay ended it (nothing left
    // to wait for), or sooner: a payin's signal-with-start, an order's child start. The sandbox's clock is the task's
    // start time, recorded in its history, so replay reads the same.
    // eslint-disable-next-line no-restricted-syntax
    const left = Date.parse(this.expiresAt) - Date.now();
    if (left > 0) void sleep(left).then(() => (this.expired = true));
    else this.expired = true;

    for (;;) {
      await condition(() => this.inbox.length > 0 || this.paid() || (this.expired && this.confirming.size === 0));
      this.loadedTerms ??= await readModel.loadPaymentTerms({ paymentId: this.paymentId });
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
      else await this.record.transition('payment_expired');
      break;
    }
    // eslint-disable-next-line no-restricted-syntax
    const settledAt = Date.now();
    await this.drain();
    // The final status kept the deposit address watched; again from now if the drain outlasted that workflow task.
    // eslint-disable-next-line no-restricted-syntax
    if (Date.now() > settledAt) await readModel.extendDepositWatch({ paymentId: this.paymentId });
    return this.record.status;
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
    // The payin, and the payment's start when it counts, in one write.
    const starts = counts() && this.record.status === 'payment_unpaid';
    await this.record.write(this.record.payinStep(payin, 'detected'), ...(starts ? [this.record.enter('payment_started')] : []));
    if (!counts()) {
      this.background.push(this.refundWhole(payin, inToken ? 'arrived after the payment was paid or expired' : 'not the payment token'));
      return;
    }
    // A dropped payin may have sent the payment back to unpaid meanwhile.
    if (this.record.status === 'payment_unpaid') await this.record.transition('payment_started');
    this.track(payin, 'confirming');
    this.confirming.add(payinId(payin));
    this.background.push(this.confirmForPayment(payin));
  }

  /**
   * The merchant takes what the counted payins brought as paid: recorded first (the payout's terms allow a short
   * payment only then), then the payment settles what arrived, less the fee.
   */
  private async acceptAsPaid(): Promise<void> {
    await readModel.recordAcceptedAsPaid({ paymentId: this.paymentId });
    this.accepted = true;
  }

  /** Waits for a payin of the payment's token; counts it if the payment still collects, else returns it. */
  private async confirmForPayment(payin: DetectedPayin): Promise<void> {
    const result = await this.chain.wait((waits) => waits.awaitPayinConfirmation({ paymentId: this.paymentId, payin, depth: 'confirmations' }));
    this.confirming.delete(payinId(payin));
    if (result.outcome === 'dropped') {
      this.track(payin, 'dropped');
      await this.record.payin(payin, 'dropped');
      if (this.collecting && this.counted.length === 0 && this.confirming.size === 0 && this.record.status === 'payment_started') await this.record.transition('payment_unpaid');
      return;
    }
    // Payins count in the order they confirm, until they add up: one confirming beside the one that paid (a
    // multisend, or two in one block) is returned whole, not counted into an overpayment.
    if (!this.collecting || this.paid()) {
      await this.refundConfirmed(result.payin, result.payin.amountUnits, 'arrived after the payment was paid or expired');
      return;
    }
    this.track(result.payin, 'counted');
    this.counted.push(result.payin);
    // The payin that completes the payment is recorded with the status it brings, in `settle`: no step runs beside
    // the one that settles (a command issued between two local activities' results would not replay).
    if (!this.paid()) await this.record.payin(result.payin, 'confirmed');
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
    if (this.record.status !== 'payment_payin_completed') {
      await this.record.write(this.record.payinStep(completing, 'confirmed'), this.record.enter('payment_payin_completed', { payin: this.receivedPayin() }));
      this.emitWebhook('payment_payin_completed');
    }
    const final = await Promise.all(counted.map((payin) => this.chain.wait((waits) => waits.awaitPayinConfirmation({ paymentId: this.paymentId, payin, depth: 'finality' }))));
    const survivors = counted.filter((_, i) => final[i]!.outcome === 'confirmed');
    if (survivors.length < counted.length) {
      for (const payin of counted.filter((_, i) => final[i]!.outcome === 'dropped')) {
        this.track(payin, 'dropped');
        await this.record.payin(payin, 'dropped');
      }
      log.warn('a counted payin vanished before finality; the payment collects again', { paymentId: this.paymentId });
      this.counted = survivors;
      this.collecting = true;
      await this.record.transition(survivors.length > 0 ? 'payment_started' : 'payment_unpaid');
      return false;
    }
    for (const payin of counted) this.track(payin, 'counted');
    // The payout starts now, from the destination treasury's float: it is recorded with the counted payins.
    await this.record.write(...counted.map((payin) => this.record.payinStep(payin, 'confirmed', 'payment')), this.record.enter('payment_payout_started'));
    await this.payOut(completing, received);
    return true;
  }

  /**
   * Settles from float: the destination treasury pays the merchant at once, whatever the source chain, and the payin
   * is swept into the treasury of its own chain once the payment completed. Only a short float changes that
   * (`payFromFloat`: bridging the payin sweeps it first).
   */
  private async payOut(completing: ConfirmedPayin, received: bigint): Promise<void> {
    const { source } = this.terms;
    // Short of the amount when the payment completed within its tolerance or was accepted as paid.
    const required = settledUnits(BigInt(source.amountUnits), received);
    // The sweep only refills its own chain's treasury, so it waits for the payment: in a burst the chains' blocks and
    // the worker's time go to payouts first. Awaited by the payout only when it bridges the payin; else by the run's
    // drain.
    let swept: Promise<unknown> | undefined;
    const sweepLanded = () =>
      (swept ??= this.chain
        .untilOperatorFixes(() =>
          chainWrites.sweepDeposit({
            intentKey: intentKeys.sweep(this.paymentId), paymentId: this.paymentId, chainId: source.chainId, tokenAddress: source.address,
            recipient: { kind: 'treasury' }, amountUnits: required.toString(), purpose: 'payin to treasury',
          }),
        )
        .then((tx) => this.chain.landed(tx)));
    // The excess of an overpayment goes back once, unless it is dust (then held, recorded on the payin).
    const excessUnits = (received - required).toString();
    const excess = received <= required ? null : this.heldAsDust(completing, excessUnits).then((held) => (held ? null : this.sendBack(completing, source.address, excessUnits, 'overpayment excess')));

    const payout = await this.settlement.payFromFloat(this.terms, sweepLanded, required);
    const paid = await this.chain.landed(payout);
    await this.record.transition('payment_payout_completed', { payout: { txHash: paid.txHash, confirmedAt: paid.confirmedAt } });
    this.emitWebhook('payment_payout_completed');

    const excessTx = await excess;
    if (excessTx) {
      this.track(completing, 'refunding');
      await this.chain.landed(excessTx);
    }
    await this.chain.landed(payout, 'finality');
    await this.record.transition('payment_completed');
    // The payment is completed without its sweep, and the run's drain waits for it to land: a chain that takes one
    // treasury transaction at a time (TON) lands a burst's sweeps one by one. The sweep waits `sweepAfterMs` first, so
    // a burst's sweeps leave the chains and the worker to the payments still on their way, then up to as long again,
    // spread by payment, so they trickle into the chains rather than reach them all at once (docs/scaling.md).
    const sweepWait = sweepWaitMs(this.paymentId, this.terms.sweepAfterMs);
    this.background.push((sweepWait > 0 ? sleep(sweepWait).then(sweepLanded) : sweepLanded()).then(() => undefined));
  }

  /** The payment expired with confirmed payins that do not add up: every one goes back to its sender. */
  private async bounce(): Promise<void> {
    await this.record.transition('payment_bounced', { payin: this.receivedPayin() });
    await Promise.all(this.counted.map((payin) => this.refundConfirmed(payin, payin.amountUnits, 'underpaid')));
    await this.record.transition('payment_refunded');
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

  /** A payin that cannot count towards the payment goes back to its sender, whole, once confirmed. */
  private async refundWhole(payin: DetectedPayin, reason: string): Promise<void> {
    this.track(payin, 'confirming');
    const result = await this.chain.wait((waits) => waits.awaitPayinConfirmation({ paymentId: this.paymentId, payin, depth: 'confirmations' }));
    if (result.outcome === 'dropped') {
      this.track(payin, 'dropped');
      await this.record.payin(payin, 'dropped');
      return;
    }
    await this.refundConfirmed(result.payin, result.payin.amountUnits, reason);
  }

  /** Returns `amountUnits` of a confirmed payin to its sender, unless that is dust. */
  private async refundConfirmed(payin: ConfirmedPayin, amountUnits: string, reason: string): Promise<void> {
    if (await this.heldAsDust(payin, amountUnits)) return;
    this.track(payin, 'refunding');
    await this.record.payin(payin, 'confirmed', 'refund');
    await this.chain.landed(await this.sendBack(payin, payin.tokenAddress, amountUnits, reason));
    this.track(payin, 'refunded');
  }

  /** Sends `amountUnits` of the payin's token straight from the deposit address back to its sender. */
  private sendBack(payin: ConfirmedPayin, tokenAddress: string, amountUnits: string, reason: string): Promise<{ intentKey: string }> {
    return this.chain.untilOperatorFixes(() =>
      chainWrites.sweepDeposit({
        intentKey: intentKeys.refund(payinId(payin)), paymentId: this.paymentId, chainId: payin.chainId, tokenAddress,
        recipient: { kind: 'address', address: payin.from }, amountUnits, purpose: `refund (${reason})`,
      }),
    );
  }

  /** Dust is held at the deposit address, recorded on the payin, rather than refunded at a loss. */
  private async heldAsDust(payin: ConfirmedPayin, amountUnits: string): Promise<boolean> {
    if (!(await readModel.holdDust({ paymentId: this.paymentId, payin, amountUnits })).held) return false;
    this.track(payin, 'held');
    return true;
  }

  /** Starts the event's delivery beside the payment: the payout never waits for a merchant's endpoint. */
  private emitWebhook(eventType: WebhookEventType): void {
    // The URL is captured at creation, so a payment without one has nothing to deliver, ever.
    if (!this.terms.webhooks) return;
    this.chain.sendBeforeNextWait();
    this.background.push(
      webhooks.deliverWebhook({ paymentId: this.paymentId, eventType }).then(
        () => undefined,
        // Only a database outage outlasting every retry gets here; the merchant still sees the payment by polling.
        (err: unknown) => log.error('webhook delivery could not be attempted', { paymentId: this.paymentId, eventType, error: String((err as Error).cause ?? err) }),
      ),
    );
  }

  private get terms(): PaymentTerms {
    if (!this.loadedTerms) throw new Error(`payment ${this.paymentId}: terms used before they were read`);
    return this.loadedTerms;
  }

  private received(): bigint {
    return this.counted.reduce((sum, p) => sum + BigInt(p.amountUnits), 0n);
  }

  /** The payins add up to the amount less the app's tolerance, or the merchant accepted what they brought. */
  private paid(): boolean {
    return this.collecting && this.counted.length > 0 && (this.accepted || this.received() >= BigInt(this.terms.source.settlesAtUnits));
  }

  /** What the payment received: the counted payins' sum, and the last one's sender, transaction and time. */
  private receivedPayin(): NonNullable<PaymentTransition['payin']> {
    const last = this.counted[this.counted.length - 1]!;
    return { senderAddress: last.from, txHash: last.txHash, amountReceivedUnits: this.received().toString(), confirmedAt: last.confirmedAt };
  }

  private track(payin: DetectedPayin | ConfirmedPayin, progress: PayinProgress): void {
    this.payins.set(payinId(payin), { payin, progress });
  }
}
