import { log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import type { RefundStatus } from '../domain/refunds';
import { readModelOptions, chainWriteOptions } from './activity-options';
import { ChainSteps } from './chain-steps';
import { retryChainStepSignal } from './messages';
import type { RefundWorkflowInput } from './types';

const readModel = proxyActivities<PaymentActivities>(readModelOptions);
const chainWrites = proxyActivities<PaymentActivities>(chainWriteOptions);

/**
 * A merchant's refund (`refund-<id>`): sends the refund from the source chain's treasury to the refund's address, as
 * the database has them when it is signed (its input names the refund, nothing it moves), waits for it to land, and
 * books it: the refund `completed`, its ledger entry, and the payment `payment_refunded` once its refunds return it
 * all. One transaction per refund, ever (the outbox intent `merchant-refund:<id>`). A transaction that reverted
 * leaves the refund `failed`, its amount refundable again.
 */
export async function refundWorkflow({ refundId, paymentId }: RefundWorkflowInput): Promise<RefundStatus> {
  const chain = new ChainSteps(paymentId);
  setHandler(retryChainStepSignal, () => chain.operatorRetried());

  const sent = await chain.untilOperatorFixes(() => chainWrites.sendMerchantRefund({ refundId }));
  const landed = await chain.untilOperatorFixes(() => chain.wait((waits) => waits.awaitChainTx({ intentKey: sent.intentKey, depth: 'confirmations' })));
  if (!landed.succeeded) {
    log.error('a merchant refund reverted on chain', { paymentId, refundId, txHash: landed.txHash });
    await readModel.failMerchantRefund({ refundId, txHash: landed.txHash });
    return 'failed';
  }
  await readModel.completeMerchantRefund({ refundId, txHash: landed.txHash, confirmedAt: landed.confirmedAt });
  return 'completed';
}
