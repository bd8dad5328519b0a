/**
 * The one Temporal test server of a mocha run: Temporal's time-skipping test server (so a workflow's hour-long
 * expiry or week-long window passes in moments), with Payrail's search attributes registered, shared by every
 * workflow test and stopped by the root hook. The workflow bundle is built once too.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, bundleWorkflowCode, makeTelemetryFilterString, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { resolveTemporalTestServer } from '../../scripts/provision/temporal-test-server';
import { customSearchAttributes } from '../../workflows/search-attributes';

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

async function startEnv(): Promise<TestWorkflowEnvironment> {
  quietSdkLogs();
  const started = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: await resolveTemporalTestServer() } },
  });
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
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: Record<string, unknown>) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: Record<string, unknown>) => console.error(message, meta ?? ''),
};
