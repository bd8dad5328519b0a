import type { PayinIdentity } from '../domain/payins';

/** Workflow ids are business keys, so an operator can find any payment, order, payin or watcher by what it is. */
export const paymentWorkflowId = (paymentId: string): string => `payment-${paymentId}`;
export const orderWorkflowId = (orderId: string): string => `order-${orderId}`;
/** The short run that refunds a payin reaching a closed payment's deposit address: keyed by the payin itself. */
export const latePayinWorkflowId = (p: PayinIdentity): string => `late-payin-${p.chainId}-${p.txHash}-${p.logIndex}`;
/** A merchant's refund of a payment: keyed by the refund. */
export const refundWorkflowId = (refundId: string): string => `refund-${refundId}`;
export const chainWatcherWorkflowId = (chainId: number): string => `chain-watcher-${chainId}`;
export const depositAddressPoolWorkflowId = (chainId: number): string => `deposit-address-pool-${chainId}`;
export const PAYMENT_RECONCILER_WORKFLOW_ID = 'payment-workflow-reconciler';
export const LEDGER_RECONCILER_WORKFLOW_ID = 'ledger-reconciler';
/** The one rebalancer, which opens rebalances when a treasury's float runs short. */
export const REBALANCER_WORKFLOW_ID = 'treasury-rebalancer';
/** One rebalance between treasuries: keyed by the rebalance. */
export const rebalanceWorkflowId = (rebalanceId: string): string => `rebalance-${rebalanceId}`;
