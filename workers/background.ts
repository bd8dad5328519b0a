import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { scanRangeBlocks, type ChainRegistry } from '../chains/registry';
import type { chainWatcherWorkflow, paymentReconcilerWorkflow } from '../workflows';
import { PAYMENT_RECONCILER_WORKFLOW_ID, chainWatcherWorkflowId } from '../workflows/ids';

/**
 * Version of the long-running workflows' code. Bump it with any change to the chain watcher or the reconciler:
 * a worker that starts finds a running one of another version and restarts it (their state lives in PostgreSQL,
 * so a restart resumes where the old run stopped).
 */
export const BACKGROUND_WORKFLOWS_VERSION = '3';

/** Starts `workflowId` unless a run of this code version already runs; replaces a run of another version. */
async function ensureSingleton(client: Client, workflowId: string, start: () => Promise<unknown>): Promise<void> {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    if (description.status.name === 'RUNNING') {
      if (description.memo?.version === BACKGROUND_WORKFLOWS_VERSION) return;
      await client.workflow.getHandle(workflowId).terminate(`replaced by version ${BACKGROUND_WORKFLOWS_VERSION} of its code`);
    }
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  await start();
}

/** Starts the long-running workflows (a watcher per chain, the reconciler) unless they already run. */
export async function ensureBackgroundWorkflows(client: Client, taskQueue: string, registry: ChainRegistry): Promise<void> {
  for (const chain of registry.chains) {
    const workflowId = chainWatcherWorkflowId(chain.chainId);
    await ensureSingleton(client, workflowId, () =>
      client.workflow.start<typeof chainWatcherWorkflow>('chainWatcherWorkflow', {
        workflowId,
        taskQueue,
        args: [{ chainId: chain.chainId, pollIntervalMs: chain.pollIntervalMs, maxBlocks: scanRangeBlocks(chain) }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        memo: { chain: `${chain.name} (${chain.chainId})`, version: BACKGROUND_WORKFLOWS_VERSION },
      }),
    );
  }
  await ensureSingleton(client, PAYMENT_RECONCILER_WORKFLOW_ID, () =>
    client.workflow.start<typeof paymentReconcilerWorkflow>('paymentReconcilerWorkflow', {
      workflowId: PAYMENT_RECONCILER_WORKFLOW_ID,
      taskQueue,
      args: [{ intervalMs: 15_000, graceMs: 10_000 }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      memo: { version: BACKGROUND_WORKFLOWS_VERSION },
    }),
  );
}
