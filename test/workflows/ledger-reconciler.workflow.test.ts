/** The ledger reconciler against a faked activity: it compares the ledger with the chains every interval, for ever. */
import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { WorkflowContinuedAsNewError } from '@temporalio/client';
import type { ledgerReconcilerWorkflow } from '../../workflows';
import { getTestEnv, getWorkflowBundle } from '../support/temporal';
import { FakeActivities, runWorkflow } from './harness';

describe('ledger reconciler workflow (faked activity, time-skipping server)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;

  before(async function () {
    this.timeout(180_000);
    [env, workflowBundle] = await Promise.all([getTestEnv(), getWorkflowBundle()]);
  });

  it('reconciles every interval, goes on after a round that found a difference, and continues as new after its rounds', async () => {
    const fakes = new FakeActivities();
    await runWorkflow<typeof ledgerReconcilerWorkflow, void>({
      env,
      workflowBundle,
      fakes,
      workflowType: 'ledgerReconcilerWorkflow',
      workflowId: `ledger-reconciler-test-${Date.now()}`,
      args: [{ intervalMs: 60_000, roundsPerRun: 5 }],
      searchAttributes: false,
      body: async (handle) => {
        const first = env.client.workflow.getHandle(handle.workflowId, (await handle.describe()).runId, { followRuns: false });
        await assert.rejects(first.result(), WorkflowContinuedAsNewError);
      },
    });
    assert.ok(fakes.callsOf('reconcileBooks').length >= 5, 'a round every minute until the run continued as new, the failing second one included');
  });
});
