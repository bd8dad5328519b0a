import { sleep } from '@temporalio/workflow';

/**
 * The floor's workflow: its first task starts one timer, the least a workflow that waits does (a payment's run waits
 * for payins until its expiry timer fires).
 */
export async function benchFloorWorkflow(): Promise<void> {
  await sleep('15 minutes');
}
