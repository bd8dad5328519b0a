import { NativeConnection, Worker } from '@temporalio/worker';
import type { PaymentActivities } from '../activities';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: PaymentActivities;
}

/** One worker runs every Payrail workflow and activity; run as many as load needs, all on the same task queue. */
export async function createWorker(options: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: options.activities,
    // Chain waits heartbeat and sleep; many can run side by side without using a core each.
    maxConcurrentActivityTaskExecutions: 200,
  });
}
