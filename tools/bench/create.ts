import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import readline from 'node:readline';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { Client, Connection } from '@temporalio/client';
import Koa from 'koa';
import { createKnex } from '../../db/connection';
import { typeScriptEntryArgs } from '../prod/service';
import type { Stack } from '../stack/stack';
import { percentile, type Figure } from './report';

export const CONCURRENCY = 16;
/**
 * Each handler runs this long per round. Every round runs each handler once, and every other round runs them in
 * reverse order (A B C D, D C B A, …): the server slows as the workflows started in the run pile up, and a handler
 * that always ran later in a round would pay for that drift. Each handler's round starts on a quiet machine
 * (`quiet`): the work a round leaves behind (the first tasks of the workflows it started, which the workers and
 * the server run after it) would otherwise be charged to the next handler.
 */
const ROUND_MS = 6_000;
const ROUNDS = 2;
/**
 * The floor's workflows run, as Payrail's do: a worker in its own process runs each one's first task (one timer).
 * A start that no worker ever runs is printed beside it, for reference: on a machine whose cores the Temporal server
 * shares with the workers, that start costs the server about half of one that runs.
 */
const FLOOR_TASK_QUEUE = 'bench-floor';
const UNPOLLED_TASK_QUEUE = 'bench-floor-unpolled';

interface LoadResult {
  perSecond: number;
  p50: number;
  p99: number;
}

/** The machine's busy CPU time and wall time, in clock ticks, from /proc/stat. */
function cpuTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  // idle and iowait
  return { busy: total - fields[3]! - fields[4]!, total };
}

/** The fraction of the machine busy over the next `ms`. */
async function busyFraction(ms: number): Promise<number> {
  const a = cpuTicks();
  await sleep(ms);
  const b = cpuTicks();
  return (b.busy - a.busy) / Math.max(1, b.total - a.total);
}

/**
 * Waits until the machine is as busy as it was idle (`baseline`, plus a margin), at most 30 s: the processes'
 * idle load (chain watchers, devnets) stays, a previous round's deferred work is done.
 */
async function quiet(baseline: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline && (await busyFraction(500)) > baseline + 0.1);
}

/** `CONCURRENCY` clients POST back to back for `durationMs`; every answer must be a 201. */
async function drive(url: string, headers: Record<string, string>, body: () => unknown, durationMs: number): Promise<{ count: number; elapsedMs: number; latencies: number[] }> {
  const latencies: number[] = [];
  const t0 = performance.now();
  const deadline = t0 + durationMs;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const start = performance.now();
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body()) });
        const text = await res.text();
        if (res.status !== 201) throw new Error(`POST ${url}: HTTP ${res.status} ${text}`);
        latencies.push(performance.now() - start);
      }
    }),
  );
  return { count: latencies.length, elapsedMs: performance.now() - t0, latencies };
}

/** The floor's worker process, once it polls `FLOOR_TASK_QUEUE`. */
async function startFloorWorker(stack: Stack): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...typeScriptEntryArgs(path.join(__dirname, 'floor/worker.ts')), stack.info.temporalAddress, FLOOR_TASK_QUEUE], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(readline.createInterface({ input: child.stdout }), 'line')) as [string];
  if (line !== 'polling') throw new Error(`floor worker: ${line}`);
  return child;
}

/**
 * The floor: bare Koa handlers against the same PostgreSQL and Temporal as Payrail, in the same process (so they share
 * its CPU): one that inserts a row, and ones that insert a row and start a workflow (run by a worker, or never run).
 */
async function startFloorServer(stack: Stack): Promise<{ url: string; stop(): Promise<void> }> {
  const knex = createKnex(stack.env.DATABASE_URL!, { max: 20 });
  await knex.schema.createTable('bench_floor_rows', (t) => {
    t.uuid('id').primary();
    t.jsonb('body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  const connection = await Connection.connect({ address: stack.info.temporalAddress });
  const client = new Client({ connection });
  const insert = async (body: unknown) => {
    const id = randomUUID();
    await knex('bench_floor_rows').insert({ id, body: JSON.stringify(body) });
    return id;
  };
  const router = new Router();
  router.post('/insert', async (ctx) => {
    ctx.status = 201;
    ctx.body = { id: await insert(ctx.request.body) };
  });
  const insertStart = (taskQueue: string) => async (ctx: Koa.Context) => {
    const id = await insert(ctx.request.body);
    await client.workflow.start('benchFloorWorkflow', { workflowId: `bench-floor-${id}`, taskQueue });
    ctx.status = 201;
    ctx.body = { id };
  };
  router.post('/insert-start', insertStart(FLOOR_TASK_QUEUE));
  router.post('/insert-start-unpolled', insertStart(UNPOLLED_TASK_QUEUE));
  const worker = await startFloorWorker(stack);
  const app = new Koa().use(bodyParser()).use(router.routes());
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      worker.kill('SIGTERM');
      await Promise.all([knex.destroy(), connection.close(), once(worker, 'exit')]);
    },
  };
}

export function createBody(sourceChainId: number, amount = '1.25', tokenSymbol = 'USDC'): unknown {
  return {
    type: 'exactIn',
    orderId: `bench-${randomUUID()}`,
    display: { name: 'bench' },
    source: { chainId: String(sourceChainId), tokenSymbol, amount },
  };
}

/** Payrail's create next to the two floors, at CONCURRENCY clients, alternating in rounds. */
export async function benchCreate(stack: Stack, log: (line: string) => void): Promise<Figure[]> {
  const floor = await startFloorServer(stack);
  try {
    const handlers = {
      insert: { url: `${floor.url}/insert`, headers: {} },
      insertStart: { url: `${floor.url}/insert-start`, headers: {} },
      insertStartUnpolled: { url: `${floor.url}/insert-start-unpolled`, headers: {} },
      payrail: { url: stack.info.paymentApiUrl, headers: { 'x-api-key': stack.info.demoMerchant.ordersKey } },
    };
    const body = () => createBody(42161);
    const samples = Object.fromEntries(Object.keys(handlers).map((name) => [name, [] as number[]])) as Record<keyof typeof handlers, number[]>;
    const totals = Object.fromEntries(Object.keys(handlers).map((name) => [name, { count: 0, ms: 0 }])) as Record<keyof typeof handlers, { count: number; ms: number }>;
    // Warm-up: connections, pools, JIT.
    for (const h of Object.values(handlers)) await drive(h.url, h.headers, body, 1_000);
    // The machine's idle load: the least busy of a few seconds, once the warm-up's work is done.
    await sleep(5_000);
    const baseline = Math.min(await busyFraction(1_000), await busyFraction(1_000), await busyFraction(1_000));
    for (let round = 0; round < ROUNDS; round++) {
      const order = Object.keys(handlers) as Array<keyof typeof handlers>;
      for (const name of round % 2 === 0 ? order : order.reverse()) {
        await quiet(baseline);
        const r = await drive(handlers[name].url, handlers[name].headers, body, ROUND_MS);
        samples[name].push(...r.latencies);
        totals[name].count += r.count;
        totals[name].ms += r.elapsedMs;
      }
    }
    const result = (name: keyof typeof handlers): LoadResult => ({
      perSecond: totals[name].count / (totals[name].ms / 1000),
      p50: percentile(samples[name], 50),
      p99: percentile(samples[name], 99),
    });
    const [insert, insertStart, unpolled, payrail] = [result('insert'), result('insertStart'), result('insertStartUnpolled'), result('payrail')];
    const lines = { 'floor: insert': insert, 'floor: insert + start': insertStart, '(start never run)': unpolled, 'Payrail create': payrail };
    for (const [name, r] of Object.entries(lines)) {
      log(`${name.padEnd(24)} ${r.perSecond.toFixed(1).padStart(7)} /s   p50 ${r.p50.toFixed(0).padStart(5)} ms   p99 ${r.p99.toFixed(0).padStart(5)} ms`);
    }
    log(`Payrail create vs a start never run: ${(payrail.perSecond / unpolled.perSecond).toFixed(2)}× the throughput, ${(payrail.p99 / unpolled.p99).toFixed(2)}× the p99`);
    return [
      {
        name: `create throughput, ${CONCURRENCY} clients`,
        value: payrail.perSecond,
        unit: '/s',
        against: { name: 'insert + start', value: insertStart.perSecond, unit: '/s' },
        target: { kind: 'ratio', atLeast: 0.8 },
      },
      {
        name: `create p99, ${CONCURRENCY} clients`,
        value: payrail.p99,
        unit: 'ms',
        against: { name: 'insert + start', value: insertStart.p99, unit: 'ms' },
        target: { kind: 'ratio', atMost: 1.5 },
      },
      {
        name: 'insert + start throughput (Temporal floor)',
        value: insertStart.perSecond,
        unit: '/s',
        against: { name: 'insert alone', value: insert.perSecond, unit: '/s' },
        target: { kind: 'ratio' },
      },
    ];
  } finally {
    await floor.stop();
  }
}
