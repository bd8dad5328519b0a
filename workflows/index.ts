import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import type { VersioningBehavior } from '@temporalio/common';
import { chainWatcherWorkflow } from './chain-watcher';
import { depositAddressPoolWorkflow } from './deposit-address-pool';
import { latePayinWorkflow } from './late-payin';
import { ledgerReconcilerWorkflow } from './ledger-reconciler';
import { orderWorkflow } from './order';
import { paymentWorkflow } from './payment';
import { rebalanceWorkflow } from './rebalance';
import { rebalancerWorkflow } from './rebalancer';
import { paymentReconcilerWorkflow } from './reconciler';
import { refundWorkflow } from './refund';

export { paymentWorkflow, latePayinWorkflow, chainWatcherWorkflow, paymentReconcilerWorkflow, orderWorkflow, depositAddressPoolWorkflow, ledgerReconcilerWorkflow, refundWorkflow, rebalancerWorkflow, rebalanceWorkflow };

/**
 * Each workflow type's behaviour under Worker Versioning (docs/workflow-versioning.md). Runs that move money are
 * pinned: they finish on the build they started on. The long-running singletons continue as new and hold no business
 * state: they move to the current build. Declared only when the worker runs versioned (its deployment has a name);
 * an unversioned worker (the dev stack, the tests) may declare none.
 */
function versioning(workflow: (...args: never[]) => Promise<unknown>, behaviour: VersioningBehavior): void {
  setWorkflowOptions(() => ({ versioningBehavior: workflowInfo().currentDeploymentVersion?.deploymentName ? behaviour : undefined }), workflow);
}
versioning(paymentWorkflow, 'PINNED');
versioning(latePayinWorkflow, 'PINNED');
versioning(orderWorkflow, 'PINNED');
versioning(refundWorkflow, 'PINNED');
versioning(rebalanceWorkflow, 'PINNED');
versioning(chainWatcherWorkflow, 'AUTO_UPGRADE');
versioning(paymentReconcilerWorkflow, 'AUTO_UPGRADE');
versioning(depositAddressPoolWorkflow, 'AUTO_UPGRADE');
versioning(ledgerReconcilerWorkflow, 'AUTO_UPGRADE');
versioning(rebalancerWorkflow, 'AUTO_UPGRADE');
