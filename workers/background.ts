import type { Client } from '@temporalio/client';
import type { ChainRegistry } from '../chains/registry';
import type { chainWatcherWorkflow, paymentReconcilerWorkflow } from '../workflows';
import { PAYMENT_RECONCILER_WORKFLOW_ID, chainWatcherWorkflowId } from '../workflows/ids';

/** Starts the long-running workflows (a watcher per chain, the payment reconciler) unless they already run. */
export async function ensureBackgroundWorkflows(client: Client, taskQueue: string, registry: ChainRegistry): Promise<void> {
  for (const chain of registry.chains) {
    await client.workflow.start<typeof chainWatcherWorkflow>('chainWatcherWorkflow', {
      workflowId: chainWatcherWorkflowId(chain.chainId),
      taskQueue,
      args: [{ chainId: chain.chainId, pollIntervalMs: chain.pollIntervalMs, cursor: null }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      memo: { chain: `${chain.name} (${chain.chainId})` },
    });
  }
  await client.workflow.start<typeof paymentReconcilerWorkflow>('paymentReconcilerWorkflow', {
    workflowId: PAYMENT_RECONCILER_WORKFLOW_ID,
    taskQueue,
    args: [{ intervalMs: 15_000, graceMs: 10_000 }],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}
