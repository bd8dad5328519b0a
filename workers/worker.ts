import { NativeConnection, Worker } from '@temporalio/worker';
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
}

/** Short activities (signing, read models, webhooks) in flight at once per worker process. */
const WRITE_SLOTS = 100;
/** Chain waits in flight at once per worker process: they heartbeat and sleep, so many fit beside each other. */
const WAIT_SLOTS = 500;

/**
 * Workflow tasks in progress at once per worker process. A payment's steps are local activities that run inside its
 * workflow task, so the task holds its slot while its sweep and payout are signed and sent. With the SDK's default
 * (40), only 40 payments of a burst moved at a time (the bench's 100 paid in the same blocks: payin final → payout
 * broadcast up to 7–8 s; with 100 slots 4–5 s). More than a burst's worth buys it nothing and lets the first tasks
 * of a flood of creates take the CPU from the API (create p99 2.4–3.1× the floor with 200, 1.6× with 100 or 40).
 */
const WORKFLOW_TASK_SLOTS = 100;
/** Local activities in flight at once per worker process: a payment's workflow task runs up to a few at once (sweep and payout beside each other). */
const LOCAL_STEP_SLOTS = 300;

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
  };
  return Promise.all([
    Worker.create({
      ...base,
      taskQueue: options.taskQueue,
      workflowsPath: require.resolve('../workflows'),
      activities: createActivities(options.deps),
      maxConcurrentActivityTaskExecutions: WRITE_SLOTS,
      maxCachedWorkflows: CACHED_WORKFLOWS,
      maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASK_SLOTS,
      maxConcurrentLocalActivityExecutions: LOCAL_STEP_SLOTS,
    }),
    Worker.create({
      ...base,
      taskQueue: chainWaitsTaskQueue(options.taskQueue),
      activities: createChainWaitActivities(options.deps),
      maxConcurrentActivityTaskExecutions: WAIT_SLOTS,
    }),
  ]);
}
