/** The reconciler against a faked activity: it looks for orphaned rows every interval, for ever. */
import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { paymentReconcilerWorkflow } from '../../workflows';
import { WorkflowContinuedAsNewError } from '@temporalio/client';
import { getTestEnv, getWorkflowBundle } from '../support/temporal';
import { FakeActivities, runWorkflow } from './harness';

describe('payment reconciler workflow (faked activity, time-skipping server)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;

  before(async function () {
    this.timeout(180_000);
    [env, workflowBundle] = await Promise.all([getTestEnv(), getWorkflowBundle()]);
  });

  it('starts orphaned workflows every interval, and continues as new after its rounds with the same settings', async () => {
    const fakes = new FakeActivities();
    await runWorkflow<typeof paymentReconcilerWorkflow, void>({
      env,
      workflowBundle,
      fakes,
      workflowType: 'paymentReconcilerWorkflow',
      workflowId: `reconciler-test-${Date.now()}`,
      args: [{ intervalMs: 15_000, graceMs: 10_000 }],
      searchAttributes: false,
      body: async (handle) => {
        // Waiting for the first run's result lets the test server skip its 100 rounds of 15 s.
        const first = env.client.workflow.getHandle(handle.workflowId, (await handle.describe()).runId, { followRuns: false });
        await assert.rejects(first.result(), WorkflowContinuedAsNewError);
      },
    });
    const calls = fakes.callsOf('startOrphanedWorkflows');
    assert.ok(calls.length >= 100, `a round every 15 s until the run continued as new (${calls.length})`);
    assert.ok(calls.every((c) => c.olderThanMs === 10_000));
  });
});
