/** The deposit address pool keeper against a faked activity: it tops the chain's pool up every interval, for ever. */
import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { WorkflowContinuedAsNewError } from '@temporalio/client';
import type { depositAddressPoolWorkflow } from '../../workflows';
import { depositAddressPoolWorkflowId } from '../../workflows/ids';
import { getTestEnv, getWorkflowBundle } from '../support/temporal';
import { FakeActivities, runWorkflow } from './harness';

describe('deposit address pool workflow (faked activity, time-skipping server)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;

  before(async function () {
    this.timeout(180_000);
    [env, workflowBundle] = await Promise.all([getTestEnv(), getWorkflowBundle()]);
  });

  it("refills its chain's pool every interval, and continues as new after its rounds with the same settings", async () => {
    const fakes = new FakeActivities();
    const input = { chainId: 607, intervalMs: 2_000 };
    let continuedWith: unknown;
    await runWorkflow<typeof depositAddressPoolWorkflow, void>({
      env,
      workflowBundle,
      fakes,
      workflowType: 'depositAddressPoolWorkflow',
      workflowId: `${depositAddressPoolWorkflowId(607)}-test-${Date.now()}`,
      args: [input],
      searchAttributes: false,
      body: async (handle) => {
        // Waiting for the first run's result lets the test server skip its 100 rounds of 2 s.
        const first = env.client.workflow.getHandle(handle.workflowId, (await handle.describe()).runId, { followRuns: false });
        await assert.rejects(first.result(), WorkflowContinuedAsNewError);
        const history = await first.fetchHistory();
        const continued = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes;
        continuedWith = JSON.parse(Buffer.from(continued?.input?.payloads?.[0]?.data ?? []).toString());
      },
    });
    const calls = fakes.callsOf('refillDepositAddressPool');
    assert.ok(calls.length >= 100, `a refill every 2 s until the run continued as new (${calls.length})`);
    assert.ok(calls.every((c) => c.chainId === 607), 'always its own chain');
    assert.deepEqual(continuedWith, input, 'the next run keeps the settings');
  });
});
