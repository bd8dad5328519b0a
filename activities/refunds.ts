import { completeMerchantRefund, failMerchantRefund, sendMerchantRefund } from '../services/refunds';
import { signing } from './chain';
import type { ActivityDeps } from './deps';
import { asActivity } from './failures';

/** A merchant refund's steps (workflows/refund.ts). */
export function createRefundActivities(deps: ActivityDeps) {
  return {
    /** Idempotent per intent key (`merchant-refund:<id>`): one signed transaction, re-broadcast on every retry. */
    sendMerchantRefund: (input: { refundId: string }) => asActivity(() => signing(() => sendMerchantRefund(deps, input.refundId))),
    /** Idempotent: the ledger entry once by its ref, the statuses as absolute values. */
    completeMerchantRefund: (input: { refundId: string; txHash: string; confirmedAt: string }) => completeMerchantRefund(deps, input),
    /** Idempotent: the status as an absolute value. */
    failMerchantRefund: (input: { refundId: string; txHash: string }) => failMerchantRefund(deps, input),
  };
}
