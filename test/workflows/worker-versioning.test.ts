/**
 * Worker Versioning on the Temporal dev server the stack runs (docs/workflow-versioning.md): two builds of the worker
 * in one deployment, as a release runs them side by side. A payment started on build A finishes on build A after
 * build B became the deployment's current version, while new payments start and finish on build B; the reconciler,
 * which continues as new and holds no business state, moves to build B. The workers take the options of the
 * production wiring (`workerDeploymentOptions`, workers/worker.ts) and the real workflow bundle, with faked activities.
 */
import assert from 'node:assert/strict';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import type { paymentReconcilerWorkflow, paymentWorkflow } from '../../workflows';
import { chainWaitsTaskQueue } from '../../workflows/activity-options';
import { paymentWorkflowId } from '../../workflows/ids';
import { payinDetectedSignal } from '../../workflows/messages';
import { PaymentStatusKey } from '../../workflows/search-attributes';
import { workerDeploymentOptions } from '../../workers/worker';
import { resolveTemporalCli } from '../../tools/provision/temporal-cli';
import { freePort } from '../../tools/stack/ports';
import { startTemporalDevServer, type TemporalDevServer } from '../../tools/stack/temporal';
import { eventually } from '../support/poll';
import { getWorkflowBundle, quietSdkLogs } from '../support/temporal';
import { FakeActivities, detectedPayin, paymentTerms } from './harness';

const DEPLOYMENT = 'payrail';
const TASK_QUEUE = 'versioning';

describe('worker versioning (Temporal dev server): a run finishes on the build it started on', function () {
  this.timeout(180_000);
  let server: TemporalDevServer;
  let connection: NativeConnection;
  let client: Client;
  let workflowBundle: WorkflowBundleWithSourceMap;
  const running: Array<{ worker: Worker; done: Promise<void> }> = [];

  before(async function () {
    quietSdkLogs();
    [server, workflowBundle] = await Promise.all([
      (async () => startTemporalDevServer({ cliPath: await resolveTemporalCli(), port: await freePort() }))(),
      getWorkflowBundle(),
    ]);
    connection = await NativeConnection.connect({ address: server.address });
    client = new Client({ connection: await Connection.connect({ address: server.address }) });
  });

  after(async () => {
    for (const { worker } of running) if (worker.getState() === 'RUNNING') worker.shutdown();
    await Promise.all(running.map((r) => r.done));
    await connection?.close();
    await client?.connection.close();
    await server?.stop();
  });

  /** One build's worker process: the workflow queue and its chain-waits queue, as `createWorkers` runs them. */
  async function startBuild(buildId: string, fakes: FakeActivities): Promise<void> {
    const options = { connection, workflowBundle, activities: fakes.activities, identity: `build-${buildId}`, workerDeploymentOptions: workerDeploymentOptions({ name: DEPLOYMENT, buildId }) };
    for (const taskQueue of [TASK_QUEUE, chainWaitsTaskQueue(TASK_QUEUE)]) {
      const worker = await Worker.create({ ...options, taskQueue });
      running.push({ worker, done: worker.run() });
    }
  }

  /** The operator's switch (`temporal worker deployment set-current-version`): new runs start on this build. */
  const makeCurrent = (buildId: string) =>
    eventually(`build ${buildId} to become the current version`, 30_000, () =>
      client.workflowService.setWorkerDeploymentCurrentVersion({ namespace: 'default', deploymentName: DEPLOYMENT, buildId, identity: 'test' }).then(
        () => true,
        // The deployment and its version exist once the build's workers have polled.
        () => undefined,
      ),
    );

  const events = async (handle: WorkflowHandle) => (await handle.fetchHistory()).events ?? [];
  /** The build that completed each of the run's workflow tasks. */
  const taskBuilds = (history: temporal.api.history.v1.IHistoryEvent[]) =>
    history.flatMap((e) => (e.workflowTaskCompletedEventAttributes ? [e.workflowTaskCompletedEventAttributes.deploymentVersion?.buildId] : []));
  const calledFor = (fakes: FakeActivities, paymentId: string) => fakes.calls.filter((c) => JSON.stringify(c.input).includes(paymentId)).map((c) => c.name);

  it('payment A finishes on build A after build B became current; payment B runs on build B; the reconciler moves to B', async () => {
    const fakes = { A: new FakeActivities(), B: new FakeActivities() };
    const terms = ['pay_on_a', 'pay_on_b'].map((paymentId) => paymentTerms({ paymentId, now: Date.now() }));
    for (const f of Object.values(fakes)) for (const t of terms) f.terms.set(t.paymentId, t);
    const startPayment = (paymentId: string, expiresAt: string) =>
      client.workflow.start<typeof paymentWorkflow>('paymentWorkflow', {
        workflowId: paymentWorkflowId(paymentId),
        taskQueue: TASK_QUEUE,
        args: [{ paymentId, expiresAt }],
        typedSearchAttributes: [{ key: PaymentStatusKey, value: 'payment_unpaid' }],
      });

    await startBuild('A', fakes.A);
    await makeCurrent('A');
    const onA = await startPayment(terms[0]!.paymentId, terms[0]!.expiresAt);
    const reconciler = await client.workflow.start<typeof paymentReconcilerWorkflow>('paymentReconcilerWorkflow', {
      workflowId: 'versioning-reconciler',
      taskQueue: TASK_QUEUE,
      args: [{ intervalMs: 500, graceMs: 10_000 }],
    });
    // Payment A's first task (its expiry timer) ran on A: the run is pinned there.
    await eventually('payment A to run its first task', 20_000, async () => (taskBuilds(await events(onA)).length > 0 ? true : undefined));

    await startBuild('B', fakes.B);
    await makeCurrent('B');
    const onB = await startPayment(terms[1]!.paymentId, terms[1]!.expiresAt);
    await onA.signal(payinDetectedSignal, detectedPayin({ tx: 'versioning-a' }));
    await onB.signal(payinDetectedSignal, detectedPayin({ tx: 'versioning-b' }));
    assert.equal(await onA.result(), 'payment_completed');
    assert.equal(await onB.result(), 'payment_completed');

    const buildsOfA = taskBuilds(await events(onA));
    assert.ok(buildsOfA.length >= 2, `payment A ran ${buildsOfA.length} workflow tasks`);
    assert.deepEqual(new Set(buildsOfA), new Set(['A']), 'every task of payment A, including those after B became current, ran on build A');
    assert.deepEqual(new Set(taskBuilds(await events(onB))), new Set(['B']), 'payment B ran on build B only');
    assert.ok(calledFor(fakes.A, 'pay_on_a').includes('payOutFromTreasury'), 'build A paid payment A out');
    assert.deepEqual(calledFor(fakes.B, 'pay_on_a'), [], 'build B ran no activity of payment A');
    assert.ok(calledFor(fakes.B, 'pay_on_b').includes('payOutFromTreasury'), 'build B paid payment B out');
    assert.deepEqual(calledFor(fakes.A, 'pay_on_b'), [], 'build A ran no activity of payment B');
    for (const [handle, buildId] of [[onA, 'A'], [onB, 'B']] as const) {
      const versioning = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
      assert.deepEqual([versioning?.behavior, versioning?.deploymentVersion?.buildId], [1, buildId], `${handle.workflowId} is pinned to build ${buildId}`);
    }

    // Auto-upgrade: the reconciler's next task after the switch runs on build B.
    await eventually('the reconciler to move to build B', 20_000, async () => (taskBuilds(await events(reconciler)).at(-1) === 'B' ? true : undefined));
    assert.equal(taskBuilds(await events(reconciler))[0], 'A', 'the reconciler started on build A');
    assert.equal((await reconciler.describe()).raw.workflowExecutionInfo?.versioningInfo?.behavior, 2, 'AUTO_UPGRADE');
    await reconciler.terminate('test finished');
  });
});
