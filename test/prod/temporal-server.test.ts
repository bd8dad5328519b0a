import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { readFile } from 'node:fs/promises';
import { Client, Connection, type TLSConfig, type WorkflowExecutionInfo } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { temporalTlsOptions } from '../../lib/temporal-connection';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../tools/stack/postgres';
import { freePort } from '../../tools/stack/ports';
import type { SupervisedProcess } from '../../tools/stack/supervise';
import { startTemporalServer, startTemporalUi, type TemporalServerHandle } from '../../tools/prod/temporal-server';
import { ensureTemporalCertificates } from '../../tools/prod/tls';
import { resolveTemporalServer, type TemporalServerBinaries } from '../../tools/provision/temporal-server';
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
  let binaries: TemporalServerBinaries;
  const taskQueue = `prod-server-${randomUUID()}`;
  const workflowId = `restart-probe-${randomUUID()}`;

  before(async function () {
    this.timeout(BUILD_TIMEOUT_MS + 300_000);
    const buildStarted = Date.now();
    binaries = await resolveTemporalServer({ log: (msg) => console.log(`      [temporal-server build] ${msg}`) });
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

    connection = await Connection.connect({ address: temporal.address, tls: temporalTlsOptions(temporal.tls) });
    client = new Client({ connection, namespace: temporal.namespace });
    quietSdkLogs();
    const activities: ProbeActivities = { echo: (text) => Promise.resolve(text) };
    workerConnection = await NativeConnection.connect({ address: temporal.address, tls: temporalTlsOptions(temporal.tls) });
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

  /** Whether the frontend serves a client connecting with `tls` (a call answered), or refuses it. */
  async function served(tls: TLSConfig | undefined): Promise<boolean> {
    const attempt = Connection.lazy({ address: temporal!.address, tls, connectTimeout: 5_000 });
    try {
      await attempt.ensureConnected();
      await attempt.workflowService.describeNamespace({ namespace: temporal!.namespace });
      return true;
    } catch {
      return false;
    } finally {
      await attempt.close();
    }
  }

  it('requires mTLS: refuses plaintext, a client without a certificate and one another CA signed; serves one ours signed', async () => {
    const { tls } = temporal!;
    const trusted = { serverRootCACertificate: await readFile(tls.caFile), serverNameOverride: tls.serverName };
    assert.equal(await served(undefined), false, 'plaintext');
    assert.equal(await served(trusted), false, 'TLS without a client certificate');
    const stranger = await ensureTemporalCertificates(path.join(tmp, 'another-ca'));
    assert.equal(await served({ ...trusted, clientCertPair: { crt: await readFile(stranger.payrail.certFile), key: await readFile(stranger.payrail.keyFile) } }), false, 'a certificate of another CA');
    assert.equal(await served(temporalTlsOptions(tls)), true, "Payrail's certificate");
  });

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

  /** The UI's write of terminating `id`: with the CSRF cookie its own GET hands out and the token header it wants. */
  async function terminateThroughUi(uiUrl: string, id: string): Promise<Response> {
    const settings = await fetch(`${uiUrl}/api/v1/settings`);
    const token = /_csrf=([^;]+)/.exec(settings.headers.get('set-cookie') ?? '')?.[1];
    assert.ok(token, 'the UI hands out its CSRF token');
    return fetch(`${uiUrl}/api/v1/namespaces/${temporal!.namespace}/workflows/${id}/terminate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `_csrf=${token}`, 'x-csrf-token': token },
      body: JSON.stringify({ reason: 'through the UI' }),
    });
  }
  const uiSettings = async (uiUrl: string) => (await (await fetch(`${uiUrl}/api/v1/settings`)).json()) as { DisableWriteActions?: boolean };

  it('the UI is read-only: it refuses a write (terminate) and the workflow runs on; the operator switch turns writes on', async () => {
    const id = `ui-write-${randomUUID()}`;
    const handle = await client.workflow.start<typeof restartProbe>('restartProbe', { taskQueue, workflowId: id });
    const readOnly = temporal!.uiUrl!;
    assert.equal((await uiSettings(readOnly)).DisableWriteActions, true);
    const refused = await terminateThroughUi(readOnly, id);
    assert.equal(refused.status, 405, await refused.text());
    assert.equal((await handle.describe()).status.name, 'RUNNING', 'the refused write changed nothing');

    // The operator turns writes on (TEMPORAL_DISABLE_WRITE_ACTIONS=false): a UI of the same server then terminates.
    let writable: SupervisedProcess | undefined;
    try {
      const port = await freePort();
      writable = await startTemporalUi({
        uiServer: binaries.uiServer,
        root: path.join(tmp, 'ui-writable'),
        logFile: path.join(tmp, 'ui-writable.log'),
        frontend: temporal!.address,
        certificates: temporal!.certificates,
        port,
        namespace: temporal!.namespace,
        writeActions: true,
      });
      const uiUrl = `http://127.0.0.1:${port}`;
      assert.equal((await uiSettings(uiUrl)).DisableWriteActions, false);
      const done = await terminateThroughUi(uiUrl, id);
      assert.equal(done.status, 200, await done.text());
      assert.equal((await handle.describe()).status.name, 'TERMINATED');
    } finally {
      await writable?.stop();
    }
  });
});
