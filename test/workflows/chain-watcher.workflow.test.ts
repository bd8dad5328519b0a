/** The chain watcher against a faked scan: caught-up waits, continue-as-new, and the range halving after timeouts. */
import assert from 'node:assert/strict';
import { WorkflowContinuedAsNewError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { chainWatcherWorkflow } from '../../workflows';
import { afterFailedScan } from '../../workflows/chain-watcher';
import { chainWatcherWorkflowId } from '../../workflows/ids';
import { eventually } from '../support/poll';
import { getTestEnv, getWorkflowBundle } from '../support/temporal';
import { FakeActivities, runWorkflow } from './harness';

describe('chain watcher workflow (faked scans, time-skipping server)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;
  let chainId = 900;

  before(async function () {
    this.timeout(180_000);
    [env, workflowBundle] = await Promise.all([getTestEnv(), getWorkflowBundle()]);
  });

  const watch = <T>(fakes: FakeActivities, body: Parameters<typeof runWorkflow<typeof chainWatcherWorkflow, T>>[0]['body']) => {
    const id = ++chainId;
    return runWorkflow<typeof chainWatcherWorkflow, T>({
      env,
      workflowBundle,
      fakes,
      workflowType: 'chainWatcherWorkflow',
      workflowId: chainWatcherWorkflowId(id),
      args: [{ chainId: id, pollIntervalMs: 1000, maxBlocks: 512 }],
      searchAttributes: false,
      body,
    });
  };

  it('runs its next scan activity at once, each one scanning on for a few seconds and pausing the poll interval itself', async () => {
    const fakes = new FakeActivities();
    fakes.scans.push({ caughtUp: false, payins: 3 }, { caughtUp: false, payins: 0 }, { caughtUp: true, payins: 1 });
    await watch(fakes, async () => {
      await eventually('five scans', 30_000, () => Promise.resolve(fakes.callsOf('scanChain').length >= 5 ? true : undefined));
    });
    const scans = fakes.callsOf('scanChain');
    assert.ok(scans.every((s) => s.maxBlocks === 512));
    // Each scan activity goes on scanning itself, pausing the poll interval when caught up.
    assert.ok(scans.every((s) => s.pollIntervalMs === 1000 && s.keepScanningMs === 5000), JSON.stringify(scans[0]));
  });

  it('halves its block range after scans the node refuses as too large, and grows it back after successes', async () => {
    const fakes = new FakeActivities();
    const tooLarge = () => ApplicationFailure.create({ message: 'query returned more than 10000 results' });
    fakes.scans.push(tooLarge(), tooLarge(), { caughtUp: false, payins: 0 }, { caughtUp: false, payins: 0 });
    // The pauses after the refused scans (5 s each) pass in real time: the server does not skip time while the
    // watcher's scans keep its worker busy.
    await watch(fakes, async () => {
      await eventually('the scans after two refusals and two successes', 60_000, () => Promise.resolve(fakes.callsOf('scanChain').length >= 5 ? true : undefined));
    });
    assert.deepEqual(fakes.callsOf('scanChain').slice(0, 5).map((s) => s.maxBlocks), [512, 256, 128, 256, 512]);
  });

  it('after a scan that timed out: half the range, and no pause (the node answered, too slowly)', () => {
    // Decided by one function, whatever failed; a real timeout is not staged on the shared test server, which does
    // not release its time-skipping lock for an activity that timed out while still running.
    assert.deepEqual(afterFailedScan(512, true), { blocks: 256, pause: false });
    assert.deepEqual(afterFailedScan(512, false), { blocks: 256, pause: true });
    assert.deepEqual(afterFailedScan(1, true), { blocks: 1, pause: false });
  });

  it('keeps going after a scan that fails (node or database away): tries again after a pause, never gives up', async () => {
    const fakes = new FakeActivities();
    fakes.scans.push(ApplicationFailure.create({ message: 'connection refused' }), { caughtUp: true, payins: 0 });
    await watch(fakes, async (handle) => {
      await eventually('a scan after the failed one and its pause', 30_000, () => Promise.resolve(fakes.callsOf('scanChain').length >= 2 ? true : undefined));
      assert.equal((await handle.describe()).status.name, 'RUNNING');
    });
  });

  it('continues as new after its scans per run, handing over only its settings: the cursor lives in PostgreSQL', async () => {
    const fakes = new FakeActivities();
    await watch(fakes, async (handle) => {
      // Waiting for the first run's result lets the test server skip the poll intervals between its scans.
      const firstRunId = (await handle.describe()).runId;
      await assert.rejects(env.client.workflow.getHandle(handle.workflowId, firstRunId, { followRuns: false }).result(), WorkflowContinuedAsNewError);
      const history = await env.client.workflow.getHandle(handle.workflowId, firstRunId).fetchHistory();
      const input = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0]?.data;
      assert.ok(input, 'the first run ended by continuing as new');
      assert.deepEqual(JSON.parse(Buffer.from(input).toString()), { chainId, pollIntervalMs: 1000, maxBlocks: 512 });
      // Counted in the first run's history: the next run scans on at once meanwhile.
      const scans = history.events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'scanChain').length ?? 0;
      assert.ok(scans > 1 && scans <= 500, `a run scans at most 500 times, or fewer when Temporal suggests a fresh history (${scans})`);
    });
  });
});
