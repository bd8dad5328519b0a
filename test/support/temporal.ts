/**
 * The Temporal test server of a test file: Temporal's time-skipping test server (so a workflow's hour-long expiry or
 * week-long window passes in moments), with Payrail's search attributes registered, shared by the file's workflow
 * tests and stopped by the root hook after it (in a parallel run; once at the end of a serial one), so no file's
 * leftover runs can hold another's clock. The workflow bundle is built once per process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, bundleWorkflowCode, makeTelemetryFilterString, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { freePort } from '../../tools/stack/ports';
import { resolveTemporalTestServer } from '../../tools/provision/temporal-test-server';
import { customSearchAttributes } from '../../workflows/search-attributes';
import { eventually } from './poll';

export const WORKFLOWS_PATH = require.resolve('../../workflows');

let env: Promise<TestWorkflowEnvironment> | undefined;
let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/**
 * Worker lifecycle chatter (INFO) would drown the test output. The SDK runtime is process-wide and can only be
 * configured before it first starts; if another suite in this mocha process already started it, keep its settings.
 */
export function quietSdkLogs(): void {
  try {
    // The test server does not advertise every capability the SDK core asks about; its warnings are noise here.
    Runtime.install({
      logger: new DefaultLogger('WARN'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR', other: 'ERROR' }) } },
    });
  } catch {
    // Already running with someone else's options.
  }
}

/**
 * The SDK's own launcher gives the server 5 s to open its port, which a cold JVM on a loaded two-core machine can
 * miss; so the server is started here, given a minute, and the environment connects to it as a time-skipping one.
 */
let server: ChildProcess | undefined;

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

async function startTestServer(): Promise<string> {
  const port = await freePort();
  const child = spawn(await resolveTemporalTestServer(), [String(port)], { stdio: 'ignore' });
  server = child;
  process.once('exit', () => child.kill('SIGKILL'));
  await eventually('the Temporal test server to accept connections', 60_000, async () => {
    if (child.exitCode !== null) throw new Error(`the Temporal test server exited with ${child.exitCode}`);
    return (await accepts(port)) || undefined;
  });
  return `127.0.0.1:${port}`;
}

/** `createTimeSkipping` with a server this module started: the SDK's `create` behind it, which it keeps private. */
const connectTimeSkipping = (address: string) =>
  (TestWorkflowEnvironment as unknown as {
    create(opts: { server: { type: 'existing' }; address: string; namespace: string; supportsTimeSkipping: true }): Promise<TestWorkflowEnvironment>;
  }).create({ server: { type: 'existing' }, address, namespace: 'default', supportsTimeSkipping: true });

async function startEnv(): Promise<TestWorkflowEnvironment> {
  quietSdkLogs();
  const started = await connectTimeSkipping(await startTestServer());
  await started.connection.operatorService.addSearchAttributes({
    namespace: started.namespace ?? 'default',
    searchAttributes: Object.fromEntries(customSearchAttributes.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
  });
  return started;
}

export function getTestEnv(): Promise<TestWorkflowEnvironment> {
  env ??= startEnv();
  return env;
}

export function getWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflows(WORKFLOWS_PATH);
  return bundle;
}

/** Bundles the workflows in `workflowsPath` (webpack: slow, so bundle once per run and reuse). */
export function bundleWorkflows(workflowsPath: string): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: quietLogger });
}

export async function stopTestEnv(): Promise<void> {
  if (!env) return;
  const running = await env;
  env = undefined;
  await running.teardown();
  const stopping = server;
  server = undefined;
  if (stopping && stopping.exitCode === null) {
    const exited = new Promise((resolve) => stopping.once('exit', resolve));
    stopping.kill('SIGTERM');
    await exited;
  }
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: Record<string, unknown>) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: Record<string, unknown>) => console.error(message, meta ?? ''),
};
