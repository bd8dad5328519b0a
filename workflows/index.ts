export { paymentWorkflow } from './payment';
export { latePayinWorkflow } from './late-payin';
export { chainWatcherWorkflow } from './chain-watcher';
export { paymentReconcilerWorkflow } from './reconciler';
export { orderWorkflow } from './order';
