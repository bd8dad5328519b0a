import { condition, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import type { RefundStatus } from '../domain/refunds';
import { readModelOptions, chainWriteOptions } from './activity-options';
import { ChainSteps } from './chain-steps';
import { refundFundedSignal, retryChainStepSignal } from './messages';
import type { RefundWorkflowInput } from './types';

const readModel = proxyActivities<PaymentActivities>(readModelOptions);
const chainWrites = proxyActivities<PaymentActivities>(chainWriteOptions);

/** How often a refund waiting for its merchant's funding reads it unwoken (a wake-up sent while no worker ran). */
const FUNDING_RECHECK = '1 hour';

/**
 * A merchant's refund (`refund-<id>`): sends the refund to the refund's address, as the database has them when it is
 * signed (its input names the refund, nothing it moves), waits for it to land, and books it: the refund `completed`,
 * its ledger entry, and the payment `payment_refunded` once its refunds return it all. One transaction per refund,
 * ever (the outbox intent `merchant-refund:<id>`, or `funded-refund:<id>`). A transaction that reverted leaves the
 * refund `failed`, its amount refundable again.
 *
 * A refund within the app's refund credit goes from the source chain's treasury. One past it waits for the merchant
 * to fund it at the payment's deposit address (`refundFunded` wakes it; the funding is read from the database), goes
 * from there, and then returns what the funding brought beyond it to its sender; unfunded within its window, it fails.
 */
export async function refundWorkflow({ refundId, paymentId }: RefundWorkflowInput): Promise<RefundStatus> {
  const chain = new ChainSteps(paymentId);
  let fundingWakeUps = 0;
  setHandler(retryChainStepSignal, () => chain.operatorRetried());
  setHandler(refundFundedSignal, () => void fundingWakeUps++);

  let funding = await readModel.refundFunding({ refundId });
  while (funding === 'awaiting') {
    const seen = fundingWakeUps;
    await condition(() => fundingWakeUps > seen, FUNDING_RECHECK);
    funding = await readModel.refundFunding({ refundId });
  }
  if (funding === 'expired') {
    log.warn('a merchant refund was not funded within its window: failed', { paymentId, refundId });
    return 'failed';
  }

  const sent = await chain.untilOperatorFixes(() => chainWrites.sendMerchantRefund({ refundId }));
  const landed = await chain.untilOperatorFixes(() => chain.wait((waits) => waits.awaitChainTx({ intentKey: sent.intentKey, depth: 'confirmations' })));
  if (landed.succeeded) {
    await readModel.completeMerchantRefund({ refundId, txHash: landed.txHash, confirmedAt: landed.confirmedAt });
  } else {
    log.error('a merchant refund reverted on chain', { paymentId, refundId, txHash: landed.txHash });
    await readModel.failMerchantRefund({ refundId, txHash: landed.txHash });
  }
  if (funding === 'funded') {
    const excess = await chain.untilOperatorFixes(() => chainWrites.returnFundingExcess({ refundId }));
    if (excess) await chain.untilOperatorFixes(() => chain.wait((waits) => waits.awaitChainTx({ intentKey: excess.intentKey, depth: 'confirmations' })));
  }
  return landed.succeeded ? 'completed' : 'failed';
}
