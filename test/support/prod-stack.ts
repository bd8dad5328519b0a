import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../tools/stack/ports';
import { startProdStack, type ProdStack } from '../../tools/prod/stack';
import { destroyProviders } from './chain';
import { TEST_STACK_ENV } from './stack';

export interface TestProdStack {
  prod: ProdStack;
  /** Stops every process, closes the test's chain providers and removes the stack's directory. */
  stop(): Promise<void>;
}

/**
 * The production topology for a test (2 APIs, 3 workers, the Temporal server on embedded PostgreSQL, the devnets),
 * on free ports in a throwaway directory, with the settings every end-to-end test shares (and `env`'s).
 */
export async function startTestProdStack(name: string, env: Record<string, string> = {}): Promise<TestProdStack> {
  const dir = await mkdtemp(path.join(tmpdir(), `payrail-${name}-`));
  try {
    const workers = [];
    for (let i = 0; i < 3; i++) workers.push({ health: await freePort(), sdkMetrics: await freePort() });
    const prod = await startProdStack({
      varDir: dir,
      persistent: false,
      ports: {
        apis: [
          { http: await freePort(), metrics: await freePort() },
          { http: await freePort(), metrics: await freePort() },
        ],
        workers,
        postgres: 0,
        temporal: await freePort(),
        temporalUi: await freePort(),
        mailSink: { smtp: 0, http: 0 },
      },
      blockTimeMs: 500,
      env: { ...TEST_STACK_ENV, LOG_LEVEL: 'info', ...env },
      log: () => undefined,
    });
    return {
      prod,
      async stop() {
        destroyProviders();
        await prod.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
