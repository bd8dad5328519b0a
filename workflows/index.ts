export { paymentWorkflow } from './payment';
export { chainWatcherWorkflow } from './chain-watcher';
export { paymentReconcilerWorkflow } from './reconciler';
export { orderWorkflow } from './order';
