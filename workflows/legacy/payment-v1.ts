import {
  ApplicationFailure,
  condition,
  log,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { PaymentActivities } from '../../activities';
import type { ConfirmedPayin, DetectedPayin } from '../../domain/payins';
import type { PaymentStatus, PaymentTransition, TokenRef } from '../../domain/payment';
import type { WebhookEventType } from '../../domain/webhook-events';
import { readModelOptions } from '../activity-options';
import { payinDetectedSignal, paymentStateQuery } from '../messages';
import { PATCHES } from '../patches';
import { PaymentStatusKey } from '../search-attributes';
import type { RetiredBridgeActivities } from './retired-activities';
import type { PaymentState } from '../types';

/**
 * FROZEN. The payment run as it was before payment runs ended with their payment (PATCHES.paymentRunEndsWhenSettled):
 * runs started before that change replay and finish on this code, unchanged. Remove it with that patch
 * (docs/workflow-versioning.md); never edit it.
 */

/** The input those runs were started with: the payment's terms, copied from the database at start. */
export interface LegacyPaymentWorkflowInput {
  paymentId: string;
  appId: string;
  orderId: string | null;
  source: TokenRef & { amountUnits: string; feeUnits: string; depositAddress: string };
  destination: TokenRef & { receiverAddress: string; amountUnits: string };
  expiresAt: string;
  latePayinWindowMs: number;
}

const readModel = proxyActivities<PaymentActivities>(readModelOptions);

/**
 * Signing and broadcasting: each call is keyed by an intent, so a retry re-broadcasts the same transaction.
 * Short timeout: a worker that dies mid-call is replaced by a retry within seconds.
 */
const chainWrites = proxyActivities<PaymentActivities & RetiredBridgeActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Waiting on the chain: long-running, heartbeating, so a dead worker is noticed within the heartbeat timeout. */
const chainWaits = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Webhook deliveries are at most once by construction: the activity claims the event (a unique row) before it
 * sends, and an attempt that finds the claim taken sends nothing. So retrying is safe; it covers a failure before
 * the claim (database unreachable: nothing was sent yet) and a worker that died mid-delivery (the retry closes
 * its claim as `exhausted` without sending). The timeout covers one POST (WEBHOOK_TIMEOUT_MS, at most 20 s) and
 * the database writes around it, and is how a dead worker's attempt is noticed. Attempts are bounded (about a
 * quarter of an hour) so a lasting database outage cannot hold a settled payment's run open.
 */
const webhooks = proxyActivities<PaymentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});


type PayinState = PaymentState['payins'][number]['state'];

/**
 * A payin's identity. Not the log index: a transaction re-mined after a reorg keeps its hash and transfer but
 * may move to another log index, and must not count twice.
 */
const payinKey = (p: DetectedPayin) => `${p.txHash}:${p.tokenAddress.toLowerCase()}:${p.amountUnits}`;

/** The deposit factory's name for a chain's native coin (chains/registry.ts NATIVE_TOKEN_ADDRESS). */
const isNativeCoin = (tokenAddress: string) => /^0x0{40}$/i.test(tokenAddress);

/**
 * One payment, from deposit address to settlement. Every token that reaches the deposit address while this
 * workflow runs is either paid out to the merchant or refunded to its sender.
 */
export async function legacyPaymentRun(input: LegacyPaymentWorkflowInput): Promise<PaymentStatus> {
  const deliveries: Array<Promise<void>> = [];
  /** Starts the event's delivery beside the payment: the payout never waits for a merchant's endpoint. */
  const emitWebhook = (eventType: WebhookEventType): void => {
    if (!patched(PATCHES.webhookEvents)) return;
    const delivery = webhooks.deliverWebhook({ paymentId: input.paymentId, eventType }).then(
      () => undefined,
      // Only a database outage outlasting every retry gets here; the merchant still sees the payment by polling.
      (err: unknown) =>
        log.error('webhook delivery could not be attempted', { paymentId: input.paymentId, eventType, error: String((err as Error).cause ?? err) }),
    );
    deliveries.push(delivery);
  };
  try {
    return await runPayment(input, emitWebhook);
  } finally {
    // The run ends only once every delivery it started has ended, also when the payment failed.
    await Promise.all(deliveries);
  }
}

async function runPayment(input: LegacyPaymentWorkflowInput, emitWebhook: (eventType: WebhookEventType) => void): Promise<PaymentStatus> {
  const { paymentId, source, destination } = input;
  let status: PaymentStatus = 'payment_unpaid';
  const payins = new Map<string, DetectedPayin & { state: PayinState }>();
  const queue: DetectedPayin[] = [];

  setHandler(payinDetectedSignal, (payin) => {
    const key = payinKey(payin);
    const known = payins.get(key);
    // The watcher re-sends after reorgs and restarts; only a payin we gave up on may come back.
    if (known && known.state !== 'dropped') return;
    payins.set(key, { ...payin, state: 'detected' });
    queue.push(payin);
  });
  setHandler(paymentStateQuery, () => ({ status, payins: [...payins.values()] }));

  const markPayin = (payin: DetectedPayin, state: PayinState) => {
    payins.set(payinKey(payin), { ...payin, state });
  };

  /**
   * Waits for an intent's transaction. A revert here (sweep, bridge, refund) breaks an invariant no retry can
   * mend, so the workflow fails visibly for an operator, naming the transaction.
   */
  async function landed(intentKey: string): Promise<void> {
    const result = await chainWaits.awaitChainTx({ intentKey, depth: 'confirmations' });
    if (!result.succeeded) {
      throw ApplicationFailure.nonRetryable(`chain transaction ${intentKey} reverted (${result.txHash})`, 'ChainTxReverted');
    }
  }

  async function transition(next: PaymentStatus, fields: Omit<PaymentTransition, 'paymentId' | 'status'> = {}) {
    status = next;
    upsertSearchAttributes([{ key: PaymentStatusKey, value: next }]);
    await readModel.recordPaymentTransition({ paymentId, status: next, ...fields });
  }

  const payinFields = (payin: ConfirmedPayin): PaymentTransition['payin'] => ({
    senderAddress: payin.from,
    txHash: payin.txHash,
    amountReceivedUnits: payin.amountUnits,
    confirmedAt: payin.confirmedAt,
  });

  /** Sends `amountUnits` of the payin's token straight from the deposit address back to its sender. */
  async function refund(payin: ConfirmedPayin, amountUnits: string, reason: string): Promise<void> {
    const tx = await chainWrites.sweepDeposit({
      intentKey: `refund:${paymentId}:${payin.txHash}:${payin.logIndex}`,
      paymentId,
      chainId: source.chainId,
      tokenAddress: payin.tokenAddress,
      recipient: { kind: 'address', address: payin.from },
      amountUnits,
      purpose: `refund (${reason})`,
    });
    await landed(tx.intentKey);
  }

  /** Waits for the payin's confirmations; false when a reorg removed it. */
  async function confirm(payin: DetectedPayin): Promise<ConfirmedPayin | null> {
    const result = await chainWaits.awaitPayinConfirmation({ paymentId, payin });
    if (result.outcome === 'dropped') {
      markPayin(payin, 'dropped');
      await readModel.recordPayin({ paymentId, payin, status: 'dropped' });
      return null;
    }
    markPayin(result.payin, 'confirmed');
    await readModel.recordPayin({ paymentId, payin: result.payin, status: 'confirmed' });
    return result.payin;
  }

  async function settle(payin: ConfirmedPayin): Promise<void> {
    const required = BigInt(source.amountUnits);
    const received = BigInt(payin.amountUnits);
    await transition('payment_payin_completed', { payin: payinFields(payin) });
    emitWebhook('payment_payin_completed');
    markPayin(payin, 'paid');
    await readModel.recordPayin({ paymentId, payin, status: 'confirmed', disposition: 'payment' });

    const sweep = await chainWrites.sweepDeposit({
      intentKey: `sweep:${paymentId}`,
      paymentId,
      chainId: source.chainId,
      tokenAddress: source.address,
      recipient: { kind: 'treasury' },
      amountUnits: required.toString(),
      purpose: 'payin to treasury',
    });
    if (received > required) await refund(payin, (received - required).toString(), 'overpayment excess');
    await landed(sweep.intentKey);

    // A native coin (ETH) was priced at a stored rate: the treasury keeps it and pays the merchant's token from the
    // destination treasury, so nothing is bridged.
    const keptByTreasury = isNativeCoin(source.address) && patched(PATCHES.nativeCoinPayins);
    if (source.chainId !== destination.chainId && !keptByTreasury) {
      await transition('payment_bridging');
      const bridged = (required - BigInt(source.feeUnits)).toString();
      const burn = await chainWrites.burnForBridge({
        intentKey: `bridge-burn:${paymentId}`,
        paymentId,
        chainId: source.chainId,
        tokenSymbol: source.symbol,
        amountUnits: bridged,
        destinationChainId: destination.chainId,
      });
      await landed(burn.intentKey);
      const mint = await chainWrites.mintFromBridge({
        intentKey: `bridge-mint:${paymentId}`,
        paymentId,
        chainId: destination.chainId,
        tokenSymbol: source.symbol,
        amountUnits: bridged,
        sourceChainId: source.chainId,
      });
      await landed(mint.intentKey);
    }

    await transition('payment_payout_started');
    const payout = await chainWrites.transferFromTreasury({
      intentKey: `payout:${paymentId}`,
      paymentId,
      chainId: destination.chainId,
      tokenAddress: destination.address,
      to: destination.receiverAddress,
      amountUnits: destination.amountUnits,
      purpose: 'payout to merchant',
    });
    const paid = await chainWaits.awaitChainTx({ intentKey: payout.intentKey, depth: 'confirmations' });
    if (!paid.succeeded) {
      // The treasury could not pay (e.g. out of liquidity): give the customer their money back from the source treasury.
      log.error('payout reverted; refunding the payin', { paymentId, txHash: paid.txHash });
      await transition('payment_bounced');
      const back = await chainWrites.transferFromTreasury({
        intentKey: `refund-from-treasury:${paymentId}`,
        paymentId,
        chainId: source.chainId,
        tokenAddress: source.address,
        to: payin.from,
        amountUnits: required.toString(),
        purpose: 'refund (payout reverted)',
      });
      await landed(back.intentKey);
      markPayin(payin, 'refunded');
      await transition('payment_refunded');
      return;
    }
    await transition('payment_payout_completed', { payout: { txHash: paid.txHash, confirmedAt: paid.confirmedAt } });
    emitWebhook('payment_payout_completed');
    await chainWaits.awaitChainTx({ intentKey: payout.intentKey, depth: 'finality' });
    await transition('payment_completed');
  }

  async function bounce(payin: ConfirmedPayin, reason: string): Promise<void> {
    await transition('payment_bounced', { payin: payinFields(payin) });
    await readModel.recordPayin({ paymentId, payin, status: 'confirmed', disposition: 'refund' });
    await refund(payin, payin.amountUnits, reason);
    markPayin(payin, 'refunded');
    await transition('payment_refunded');
  }

  /** A payin that arrives once the payment is settled, refunded or expired goes back to its sender. */
  async function refundLate(payin: ConfirmedPayin): Promise<void> {
    await readModel.recordPayin({ paymentId, payin, status: 'confirmed', disposition: 'refund' });
    if (status === 'payment_expired') await transition('payment_bounced');
    await refund(payin, payin.amountUnits, 'late payin');
    markPayin(payin, 'refunded');
    if (status === 'payment_bounced') await transition('payment_refunded');
  }

  // Expiry only matters while nothing has been detected: a payin seen in time is honoured even if it confirms late.
  let expired = false;
  void sleep(Math.max(0, Date.parse(input.expiresAt) - workflowInfo().startTime.getTime())).then(() => {
    expired = true;
  });

  for (;;) {
    await condition(() => queue.length > 0 || expired);
    const detected = queue.shift();
    if (!detected) {
      await transition('payment_expired');
      break;
    }
    if (status === 'payment_unpaid') await transition('payment_started');
    await readModel.recordPayin({ paymentId, payin: detected, status: 'detected' });
    const payin = await confirm(detected);
    if (!payin) {
      if (queue.length === 0) await transition('payment_unpaid');
      continue;
    }
    if (payin.tokenAddress.toLowerCase() !== source.address.toLowerCase()) await bounce(payin, 'wrong token');
    else if (BigInt(payin.amountUnits) < BigInt(source.amountUnits)) await bounce(payin, 'underpaid');
    else await settle(payin);
    break;
  }

  // Whatever still arrives at the deposit address during the late-payin window goes back to its sender.
  await readModel.extendDepositWatch({ paymentId, windowMs: input.latePayinWindowMs });
  let windowOpen = true;
  void sleep(input.latePayinWindowMs).then(() => {
    windowOpen = false;
  });
  for (;;) {
    await condition(() => queue.length > 0 || !windowOpen);
    const detected = queue.shift();
    if (!detected) break;
    await readModel.recordPayin({ paymentId, payin: detected, status: 'detected' });
    const payin = await confirm(detected);
    if (payin) await refundLate(payin);
  }
  return status;
}
