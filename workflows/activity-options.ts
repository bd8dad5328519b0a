/**
 * Named activity option sets and the task queues they run on. Short writes (signing, read models, webhooks) run on
 * the workflow's own task queue; long, heartbeating chain waits on a queue of their own, with their own slot limit,
 * so waits can never starve writes (workers/worker.ts serves both).
 */
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/workflow';

/** The chain-waits queue that goes with a workflow task queue. */
export const chainWaitsTaskQueue = (taskQueue: string): string => `${taskQueue}-chain-waits`;

/**
 * The workflow task timeout of every run whose chain waits run as local activities inside its workflow task
 * (workflows/chain-steps.ts: payments, refunds, rebalances; `localChainWaitOptions`, up to 30 s). The SDK heartbeats a
 * task whose local activities outlast 80 % of this timeout. With the server's default (10 s), a burst's busy worker
 * now and then sent that heartbeat more than 2 s late: the server had timed the task out, the run's finished local
 * steps were lost and run again, and the payment lost 10 s or more (22 tasks in the bench's burst of 100). With 30 s,
 * local waits rarely last until the first heartbeat (24 s), and a heartbeat has 6 s to arrive. A worker that dies
 * mid-task leaves the task to another after 30 s.
 */
export const LOCAL_WAITS_WORKFLOW_TASK_TIMEOUT = '30 seconds';

/** Keeps retrying, backing off to 30 s: for work on our own systems, which comes back. */
export const retryUntilDone: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' };

/** Postgres read-model writes: quick, retried until they land. */
export const readModelOptions: ActivityOptions = { startToCloseTimeout: '10 seconds', retry: retryUntilDone };

/**
 * Signing and broadcasting: each call is keyed by an intent, so a retry re-broadcasts the same transaction. Short
 * timeout: a worker that dies mid-call is replaced by a retry within seconds.
 */
export const chainWriteOptions: ActivityOptions = {
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/** Waiting on the chain: long-running, heartbeating, so a dead worker is noticed within the heartbeat timeout. */
export const chainWaitOptions: ActivityOptions = {
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/**
 * A chain wait run inside the payment's own workflow task (workflows/chain-steps.ts). Most waits end
 * within a few blocks; as activity tasks each cost a task-queue round trip and two workflow tasks. A wait not done
 * within this (a stalled chain, a transaction being replaced), or failing once, is handed to a chain-waits activity
 * task, which heartbeats and shows in the Temporal UI as the run's pending activity.
 */
export const localChainWaitOptions: LocalActivityOptions = { startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } };

/**
 * Webhook deliveries are at most once by construction: the activity claims the event (a unique row) before it
 * sends, and an attempt that finds the claim taken sends nothing. So retrying is safe; it covers a failure before
 * the claim (database unreachable: nothing was sent yet) and a worker that died mid-delivery (the retry closes its
 * claim as `exhausted` without sending). The timeout covers one POST (WEBHOOK_TIMEOUT_MS, at most 20 s) and the
 * database writes around it. Attempts are bounded (about a quarter of an hour) so a lasting database outage cannot
 * hold a settled payment's run open.
 */
export const webhookOptions: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
};

/**
 * One scan of a block range: heartbeats between its reads. A scan that fails or times out is not retried here but by
 * the watcher, on half the range.
 */
export const chainScanOptions: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
};
