/** Workflow ids are business keys, so an operator can find any payment or watcher by what it is. */
export const paymentWorkflowId = (paymentId: string): string => `payment-${paymentId}`;
export const chainWatcherWorkflowId = (chainId: number): string => `chain-watcher-${chainId}`;
export const PAYMENT_RECONCILER_WORKFLOW_ID = 'payment-workflow-reconciler';
export const orderWorkflowId = (orderId: string): string => `order-${orderId}`;
