import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { chainFamily } from '../chains/families';
import { scanRangeBlocks, type ChainRegistry } from '../chains/registry';
import type { chainWatcherWorkflow, depositAddressPoolWorkflow, ledgerReconcilerWorkflow, paymentReconcilerWorkflow, rebalancerWorkflow } from '../workflows';
import { LEDGER_RECONCILER_WORKFLOW_ID, PAYMENT_RECONCILER_WORKFLOW_ID, REBALANCER_WORKFLOW_ID, chainWatcherWorkflowId, depositAddressPoolWorkflowId } from '../workflows/ids';

/**
 * Version of the long-running workflows' code. Bump it with any change to the chain watcher or the reconciler:
 * a worker that starts finds a running one of another version and restarts it (their state lives in PostgreSQL,
 * so a restart resumes where the old run stopped).
 */
export const BACKGROUND_WORKFLOWS_VERSION = '5';

/** How often a pooled chain's deposit address pool is looked at (and topped up when low). */
const DEPOSIT_ADDRESS_POOL_INTERVAL_MS = 2_000;

/** How often the ledger reconciler compares the ledger with the chains. */
const LEDGER_RECONCILE_INTERVAL_MS = 60_000;

/** Chains whose deposit addresses the worker makes ahead (chains/family.ts `depositAddresses: 'pooled'`). */
const pooledChains = (registry: ChainRegistry) => registry.chains.filter((c) => chainFamily(c.family).depositAddresses === 'pooled');

/** How often the rebalancer looks at the floats unless configured (REBALANCE_INTERVAL_MS). */
const REBALANCE_INTERVAL_MS = 60_000;

/** The ids of the long-running workflows a worker keeps running: one watcher per chain, one pool keeper per pooled chain, the reconcilers, the rebalancer. */
export const backgroundWorkflowIds = (registry: ChainRegistry): string[] => [
  ...registry.chains.map((c) => chainWatcherWorkflowId(c.chainId)),
  ...pooledChains(registry).map((c) => depositAddressPoolWorkflowId(c.chainId)),
  PAYMENT_RECONCILER_WORKFLOW_ID,
  LEDGER_RECONCILER_WORKFLOW_ID,
  REBALANCER_WORKFLOW_ID,
];

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

/**
 * Starts the long-running workflows (a watcher per chain, a deposit address pool keeper per pooled chain, the
 * payment and ledger reconcilers, the rebalancer) unless they already run.
 */
export async function ensureBackgroundWorkflows(
  client: Client,
  taskQueue: string,
  registry: ChainRegistry,
  settings: { rebalanceIntervalMs: number } = { rebalanceIntervalMs: REBALANCE_INTERVAL_MS },
): Promise<void> {
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
  for (const chain of pooledChains(registry)) {
    const workflowId = depositAddressPoolWorkflowId(chain.chainId);
    await ensureSingleton(client, workflowId, () =>
      client.workflow.start<typeof depositAddressPoolWorkflow>('depositAddressPoolWorkflow', {
        workflowId,
        taskQueue,
        args: [{ chainId: chain.chainId, intervalMs: DEPOSIT_ADDRESS_POOL_INTERVAL_MS }],
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
  await ensureSingleton(client, LEDGER_RECONCILER_WORKFLOW_ID, () =>
    client.workflow.start<typeof ledgerReconcilerWorkflow>('ledgerReconcilerWorkflow', {
      workflowId: LEDGER_RECONCILER_WORKFLOW_ID,
      taskQueue,
      args: [{ intervalMs: LEDGER_RECONCILE_INTERVAL_MS }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      memo: { version: BACKGROUND_WORKFLOWS_VERSION },
    }),
  );
  await ensureSingleton(client, REBALANCER_WORKFLOW_ID, () =>
    client.workflow.start<typeof rebalancerWorkflow>('rebalancerWorkflow', {
      workflowId: REBALANCER_WORKFLOW_ID,
      taskQueue,
      args: [{ intervalMs: settings.rebalanceIntervalMs }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      memo: { version: BACKGROUND_WORKFLOWS_VERSION },
    }),
  );
}
