import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../stack/ports';
import { DEV_SQLITE_PRAGMAS, startTemporalDevServer } from '../stack/temporal';
import { resolveTemporalCli } from '../provision/temporal-cli';
import { CONCURRENCY } from './create';
import { percentile, type Figure } from './report';

const DURATION_MS = 6_000;

/** Workflow starts per second from a bare client at CONCURRENCY, against a fresh dev server on a SQLite file. */
async function startsPerSecond(cliPath: string, sqlitePragmas: readonly string[]): Promise<{ perSecond: number; p99: number }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'payrail-bench-temporal-'));
  const server = await startTemporalDevServer({ cliPath, dbFile: path.join(dir, 'temporal.db'), sqlitePragmas, port: await freePort() });
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection });
    const latencies: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() - t0 < DURATION_MS) {
          const start = performance.now();
          await client.workflow.start('benchFloorWorkflow', { workflowId: `bench-${randomUUID()}`, taskQueue: 'bench-floor' });
          latencies.push(performance.now() - start);
        }
      }),
    );
    return { perSecond: latencies.length / ((performance.now() - t0) / 1000), p99: percentile(latencies, 99) };
  } finally {
    await connection.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The dev server's SQLite settings (tools/stack/temporal.ts) against SQLite's defaults, on the same machine. */
export async function benchDevTemporal(log: (line: string) => void): Promise<Figure[]> {
  const cliPath = await resolveTemporalCli({ log: () => undefined });
  const defaults = await startsPerSecond(cliPath, []);
  const tuned = await startsPerSecond(cliPath, DEV_SQLITE_PRAGMAS);
  log(`dev Temporal, SQLite defaults:        ${defaults.perSecond.toFixed(1)} starts/s, p99 ${defaults.p99.toFixed(0)} ms`);
  log(`dev Temporal, ${DEV_SQLITE_PRAGMAS.join(' ')}: ${tuned.perSecond.toFixed(1)} starts/s, p99 ${tuned.p99.toFixed(0)} ms`);
  return [
    {
      name: `dev Temporal workflow starts, ${CONCURRENCY} clients`,
      value: tuned.perSecond,
      unit: '/s',
      against: { name: 'SQLite defaults', value: defaults.perSecond, unit: '/s' },
      target: { kind: 'ratio', atLeast: 2 },
    },
  ];
}
