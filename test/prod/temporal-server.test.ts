import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../tools/stack/postgres';
import { freePort } from '../../tools/stack/ports';
import { startTemporalServer, type TemporalServerHandle } from '../../tools/prod/temporal-server';
import { resolveTemporalServer } from '../../tools/provision/temporal-server';
import { PaymentStatusKey } from '../../workflows/search-attributes';
import { bundleWorkflows, quietSdkLogs } from '../support/temporal';
import { finishSignal, type ProbeActivities, type restartProbe } from './restart-workflow';

// On a fresh machine the first run builds the server and the UI with `go install` (tens of minutes on 2 cores).
const BUILD_TIMEOUT_MS = 75 * 60_000;

describe('the production Temporal server on PostgreSQL', function () {
  this.timeout(180_000);
  let tmp: string;
  let postgres: EmbeddedPostgresHandle | undefined;
  let temporal: TemporalServerHandle | undefined;
  let connection: Connection | undefined;
  let client: Client;
  let workerConnection: NativeConnection | undefined;
  let worker: Worker | undefined;
  let workerRun: Promise<void> | undefined;
  const taskQueue = `prod-server-${randomUUID()}`;
  const workflowId = `restart-probe-${randomUUID()}`;

  before(async function () {
    this.timeout(BUILD_TIMEOUT_MS + 300_000);
    const buildStarted = Date.now();
    const binaries = await resolveTemporalServer({ log: (msg) => console.log(`      [temporal-server build] ${msg}`) });
    console.log(`      binaries ready after ${Math.round((Date.now() - buildStarted) / 1000)}s`);

    tmp = await mkdtemp(path.join(tmpdir(), 'payrail-temporal-server-'));
    postgres = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'postgres'), port: await freePort(), logFile: path.join(tmp, 'postgres.log') });
    const serverStarted = Date.now();
    temporal = await startTemporalServer({
      databaseUrl: postgres.databaseUrl,
      frontendPort: await freePort(),
      uiPort: await freePort(),
      dataDir: path.join(tmp, 'temporal'),
      logFile: path.join(tmp, 'temporal.log'),
      binaries,
    });
    console.log(`      server ready (schemas, namespace, search attributes, UI) after ${Math.round((Date.now() - serverStarted) / 1000)}s`);

    connection = await Connection.connect({ address: temporal.address });
    client = new Client({ connection, namespace: temporal.namespace });
    quietSdkLogs();
    const activities: ProbeActivities = { echo: (text) => Promise.resolve(text) };
    workerConnection = await NativeConnection.connect({ address: temporal.address });
    worker = await Worker.create({
      connection: workerConnection,
      namespace: temporal.namespace,
      taskQueue,
      workflowBundle: await bundleWorkflows(require.resolve('./restart-workflow')),
      activities,
    });
    workerRun = worker.run();
  });

  after(async function () {
    this.timeout(120_000);
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await workerRun;
    await workerConnection?.close();
    await connection?.close();
    await temporal?.stop();
    await postgres?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  /** Polls a visibility query until it lists exactly our workflow. */
  async function findByQuery(query: string): Promise<WorkflowExecutionInfo> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const found: WorkflowExecutionInfo[] = [];
      for await (const info of client.workflow.list({ query })) found.push(info);
      if (found.length === 1 && found[0]?.workflowId === workflowId) return found[0];
      assert.ok(found.length === 0, `unexpected matches for ${query}: ${found.map((info) => info.workflowId).join(', ')}`);
      assert.ok(Date.now() < deadline, `no workflow matched ${query} within 60s`);
      await delay(250);
    }
  }

  it('lists a workflow by the custom search attribute it upserted', async () => {
    await client.workflow.start<typeof restartProbe>('restartProbe', { taskQueue, workflowId });
    const info = await findByQuery(`WorkflowId = '${workflowId}' AND ${PaymentStatusKey.name} = 'waiting'`);
    assert.equal(info.typedSearchAttributes.get(PaymentStatusKey), 'waiting');
    assert.equal(info.status.name, 'RUNNING');
  });

  it('completes that workflow after the server is killed with -9 and restarted', async () => {
    const restartStarted = Date.now();
    await temporal!.restart();
    console.log(`      restarted in ${Math.round((Date.now() - restartStarted) / 1000)}s`);
    const handle = client.workflow.getHandle<typeof restartProbe>(workflowId);
    await handle.signal(finishSignal);
    assert.equal(await handle.result(), 'after restart');
    const info = await findByQuery(`WorkflowId = '${workflowId}' AND ${PaymentStatusKey.name} = 'done' AND ExecutionStatus = 'Completed'`);
    assert.equal(info.typedSearchAttributes.get(PaymentStatusKey), 'done');
  });

  it('serves the Temporal UI, whose API reaches this server', async () => {
    const uiUrl = temporal!.uiUrl;
    assert.ok(uiUrl, 'the UI server was started');
    const page = await fetch(uiUrl);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await page.text(), /<html/i);

    const query = encodeURIComponent(`WorkflowId = '${workflowId}'`);
    const api = await fetch(`${uiUrl}/api/v1/namespaces/${temporal!.namespace}/workflows?query=${query}`);
    assert.equal(api.status, 200);
    const body = (await api.json()) as { executions?: Array<{ execution?: { workflowId?: string } }> };
    assert.deepEqual(body.executions?.map((execution) => execution.execution?.workflowId), [workflowId]);
  });
});
