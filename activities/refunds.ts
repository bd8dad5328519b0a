import { refundFundingState, returnFundingExcess } from '../services/refund-funding';
import { completeMerchantRefund, failMerchantRefund, sendMerchantRefund } from '../services/refunds';
import { signing } from './chain';
import type { ActivityDeps } from './deps';
import { asActivity } from './failures';

/** A merchant refund's steps (workflows/refund.ts). */
export function createRefundActivities(deps: ActivityDeps) {
  return {
    /** Idempotent: reads the refund's funding; past its window, marks the refund `failed` (an absolute value). */
    refundFunding: (input: { refundId: string }) => refundFundingState(deps, input.refundId),
    /** Idempotent per intent key (`merchant-refund:<id>` or `funded-refund:<id>`): one signed transaction, re-broadcast on every retry. */
    sendMerchantRefund: (input: { refundId: string }) => asActivity(() => signing(() => sendMerchantRefund(deps, input.refundId))),
    /** Idempotent per intent key (`refund:<funding payin>`): one signed transaction, re-broadcast on every retry. */
    returnFundingExcess: (input: { refundId: string }) => asActivity(() => signing(() => returnFundingExcess(deps, input.refundId))),
    /** Idempotent: the ledger entry once by its ref, the statuses as absolute values. */
    completeMerchantRefund: (input: { refundId: string; txHash: string; confirmedAt: string }) => completeMerchantRefund(deps, input),
    /** Idempotent: the status as an absolute value. */
    failMerchantRefund: (input: { refundId: string; txHash: string }) => failMerchantRefund(deps, input),
  };
}
