import { createRequire } from 'node:module';
import { ensureWebBuilt } from '../../tools/build-web';
import { stopStack } from '../support/stack';
import { quietSdkLogs, stopTestEnv } from '../support/temporal';

/**
 * `npm test` runs mocha with `--parallel`: each worker process runs one test file after another, and root hooks run
 * around each file rather than once. A worker's stack is shared by the files it runs, so it stops when the worker
 * ends; the time-skipping server is each file's own, so no file's leftover runs can hold another file's clock.
 */
const PARALLEL_WORKER = process.env.MOCHA_WORKER_ID !== undefined;
/** How long a worker's stack may take to stop when the worker ends. */
const STOP_LIMIT_MS = 120_000;

export const mochaHooks = {
  /** The SDK runtime is process-wide: set it up quiet before any suite's worker starts it with its defaults. */
  beforeAll() {
    quietSdkLogs();
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await Promise.all([PARALLEL_WORKER ? undefined : stopStack(), stopTestEnv()]);
  },
};

/**
 * Runs once in the main mocha process, before any worker starts: the stacks of the parallel workers serve the
 * browser bundles (tools/build-web.ts), which must not be made twice at the same time.
 */
export async function mochaGlobalSetup(): Promise<void> {
  await ensureWebBuilt();
}

if (PARALLEL_WORKER) stopStackWhenWorkerEnds();

/**
 * The worker pool ends a worker by a message, then by SIGTERM a second later: the stack (PostgreSQL, Temporal, the
 * devnets) is stopped in order before the worker exits either way. (Its parts would not outlive the worker anyway:
 * each dies with its parent; this leaves no data behind.)
 */
function stopStackWhenWorkerEnds(): void {
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= Promise.race([
      Promise.all([stopStack(), stopTestEnv()]).then(() => undefined, (err: unknown) => console.error('stopping the test stack failed', err)),
      // A stack that cannot stop (a run's activity that never ends) must not keep the whole test run from ending.
      new Promise<void>((resolve) => setTimeout(() => (console.error(`the test stack did not stop within ${STOP_LIMIT_MS / 1000} s; the worker exits without it`), resolve()), STOP_LIMIT_MS).unref()),
    ]));
  // mocha's own workerpool, which runs this process: its onTerminate is awaited before the worker exits.
  const workerpool = createRequire(require.resolve('mocha'))('workerpool') as {
    worker(methods: Record<string, never>, options: { onTerminate: () => Promise<void> }): void;
  };
  workerpool.worker({}, { onTerminate: stop });
  process.once('SIGTERM', () => void stop().finally(() => process.exit(0)));
}
