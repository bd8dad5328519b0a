import { NativeConnection, Worker, type WorkerOptions as SdkWorkerOptions } from '@temporalio/worker';
import { createActivities, createChainWaitActivities, type ActivityDeps } from '../activities';
import { chainWaitsTaskQueue } from '../workflows/activity-options';
import { logContextInterceptor } from './log-context';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** How long in-flight activities may finish after shutdown() before they are cancelled. */
  shutdownGraceSeconds: number;
  /** The worker deployment and build this process runs under Worker Versioning; unset, it runs unversioned. */
  deployment?: WorkerDeployment;
}

export interface WorkerDeployment {
  name: string;
  buildId: string;
}

/**
 * A versioned worker's options (docs/workflow-versioning.md): it takes only the tasks of its own build, whose runs
 * stay on it (pinned) unless their type moves to the current build (workflows/index.ts). Which build new runs start
 * on is the deployment's current version, set by the operator (`temporal worker deployment set-current-version`).
 */
export function workerDeploymentOptions(deployment: WorkerDeployment): SdkWorkerOptions['workerDeploymentOptions'] {
  return { useWorkerVersioning: true, version: { deploymentName: deployment.name, buildId: deployment.buildId }, defaultVersioningBehavior: 'PINNED' };
}

/** Short activities (signing, read models, webhooks) in flight at once per worker process. */
const WRITE_SLOTS = 100;
/** Chain waits in flight at once per worker process: they heartbeat and sleep, so many fit beside each other. */
const WAIT_SLOTS = 500;

/**
 * Workflow tasks in progress at once per worker process. A payment's steps are local activities that run inside its
 * workflow task, and so are its first waits for blocks (workflows/chain-steps.ts): the task holds its slot for the
 * seconds of its confirmations, sweep and payout, so a slot is a payment in flight. With
 * the SDK's default (40) only 40 payments of a burst moved at a time; with 100, a burst of 100 local-waiting runs
 * left the chain watchers' tasks and the next payins queueing for one (payin mined → payment_started p99 13.8 s in
 * the bench's burst, 4.4–5.0 s with 200 or more). At most `CACHED_WORKFLOWS`: a task in progress keeps its run in
 * the cache.
 */
const WORKFLOW_TASK_SLOTS = 200;
/** Local activities in flight at once per worker process: a payment's workflow task runs up to three at once (its sweep, its payout and a wait). */
const LOCAL_STEP_SLOTS = 600;

/**
 * Workflow runs kept in memory per worker process. The SDK's default grows with the heap limit; every open payment
 * is a run, so a worker's RSS kept growing with open payments (the bench's soak: 620 MB after 7 minutes, 775 MB
 * after 10; with this bound, 590 MB after 6 and after 10). Runs beyond it are evicted and replayed from their
 * history when they next wake.
 */
const CACHED_WORKFLOWS = 250;

/**
 * One worker process serves both task queues: the workflow queue (every workflow, and the short activities) and
 * its chain-waits queue (long waits), each with its own slots, so waits can never starve writes. Run as many
 * processes as load needs.
 */
export async function createWorkers(options: WorkerOptions): Promise<Worker[]> {
  const base = {
    connection: options.connection,
    namespace: options.namespace,
    shutdownGraceTime: options.shutdownGraceSeconds * 1000,
    interceptors: { activity: [logContextInterceptor(options.deps.log)] },
    // Both queues are the build's: a pinned run's activity tasks go to its own build's workers.
    ...(options.deployment ? { workerDeploymentOptions: workerDeploymentOptions(options.deployment) } : {}),
  };
  // The waits run in both: as local activities of the workflow queue's tasks, and as activity tasks of their own queue.
  const waits = createChainWaitActivities(options.deps);
  return Promise.all([
    Worker.create({
      ...base,
      taskQueue: options.taskQueue,
      workflowsPath: require.resolve('../workflows'),
      activities: { ...createActivities(options.deps), ...waits },
      maxConcurrentActivityTaskExecutions: WRITE_SLOTS,
      maxCachedWorkflows: CACHED_WORKFLOWS,
      maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASK_SLOTS,
      maxConcurrentLocalActivityExecutions: LOCAL_STEP_SLOTS,
    }),
    Worker.create({
      ...base,
      taskQueue: chainWaitsTaskQueue(options.taskQueue),
      activities: waits,
      maxConcurrentActivityTaskExecutions: WAIT_SLOTS,
    }),
  ]);
}
