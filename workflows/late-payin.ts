import { ApplicationFailure, proxyActivities, setHandler } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import { intentKeys } from '../domain/chain-txs';
import { payinId } from '../domain/payins';
import { LATE_PAYIN_SEQUENCE_BASE, type PaymentStatus } from '../domain/payment';
import { chainWriteOptions, readModelOptions } from './activity-options';
import { ChainSteps } from './chain-steps';
import { retryChainStepSignal } from './messages';
import type { LatePayinOutcome, LatePayinWorkflowInput } from './types';

const readModel = proxyActivities<PaymentActivities>(readModelOptions);
const chainWrites = proxyActivities<PaymentActivities>(chainWriteOptions);

/**
 * A payin that reached a deposit address after its payment's run ended (`late-payin-<chainId>-<txHash>-<logIndex>`):
 * once confirmed, it goes back to its sender, unless its payment counted it. An expired payment that receives one
 * becomes `payment_bounced`, then `payment_refunded`; a completed payment stays completed. A refund whose call would
 * revert, or that the node keeps refusing, waits visibly (`AwaitingOperator`) for an operator's `retryChainStep`, as a
 * payment's refunds do: the payin is never left unrefunded by a failed run.
 */
export async function latePayinWorkflow(input: LatePayinWorkflowInput): Promise<LatePayinOutcome> {
  const { paymentId } = input;
  const chain = new ChainSteps(paymentId);
  setHandler(retryChainStepSignal, () => chain.operatorRetried());
  const { waits } = chain;
  let sequence = LATE_PAYIN_SEQUENCE_BASE;

  const confirmation = await waits.awaitPayinConfirmation({ paymentId, payin: input.payin, depth: 'confirmations' });
  if (confirmation.outcome === 'dropped') {
    await readModel.recordPayin({ paymentId, payin: input.payin, status: 'dropped', sequence: ++sequence });
    return 'dropped';
  }
  const payin = confirmation.payin;
  // The database decides: a payin its payment counted is never refunded, whatever started this run.
  if (!(await readModel.claimPayinRefund({ paymentId, payin, sequence: ++sequence }))) return 'counted_by_payment';
  // Dust is held at the deposit address (recorded on the payin), never refunded at a loss.
  if ((await readModel.holdDust({ paymentId, payin, amountUnits: payin.amountUnits })).held) return 'held';

  const { status } = await readModel.loadPaymentTerms({ paymentId });
  const transition = (next: PaymentStatus) => readModel.recordPaymentTransition({ paymentId, status: next, sequence: ++sequence });
  const wasExpired = status === 'payment_expired';
  if (wasExpired) await transition('payment_bounced');
  const refund = await chain.untilOperatorFixes(() =>
    chainWrites.sweepDeposit({
      intentKey: intentKeys.refund(payinId(payin)),
      paymentId,
      chainId: payin.chainId,
      tokenAddress: payin.tokenAddress,
      recipient: { kind: 'address', address: payin.from },
      amountUnits: payin.amountUnits,
      purpose: 'refund (late payin)',
    }),
  );
  const landed = await chain.untilOperatorFixes(() => waits.awaitChainTx({ intentKey: refund.intentKey, depth: 'confirmations' }));
  if (!landed.succeeded) throw ApplicationFailure.nonRetryable(`chain transaction ${refund.intentKey} reverted (${landed.txHash})`, 'ChainTxReverted');
  if (wasExpired) await transition('payment_refunded');
  return 'refunded';
}
