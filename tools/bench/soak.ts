import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { JsonRpcProvider } from 'ethers';
import type { Knex } from 'knex';
import { createKnex } from '../../db/connection';
import { eventually } from '../../test/support/poll';
import { exited, spawnWorker } from '../../test/support/worker';
import { Service } from '../prod/service';
import { startThrowawayStack, type Stack } from '../stack/stack';
import { createBody } from './create';
import { percentile, type Figure, printTable } from './report';
import { customerPayer, SETTLEMENT_CHAIN_ID } from './settlement';

const SOAK_MS = 10 * 60_000;
const CREATES_PER_SECOND = 10;
const PAYMENTS_EVERY_MS = 2_000;
const SAMPLE_EVERY_MS = 5_000;
/**
 * RSS is compared as the median of the samples from minute 1 to 2 (after start-up) and of those in the run's last
 * minute. A process with a garbage collector grows and shrinks by a hundred MB or more between collections (the
 * worker went from 478 to 689 MB and back to 512 within one soak, the API fell from 256 to 169 MB in one), so one
 * sample at each end, or the lowest, reads where the sawtooth happened to be. The last sample and the highest are
 * printed beside.
 */
const WINDOW_MS = 60_000;

/** A running worker's chain watchers have scanned every chain (the stack starts with no cursor). */
export async function workerRunning(knex: Knex, chains: number): Promise<void> {
  await eventually('the worker to scan every chain', 180_000, async () => {
    const [row] = await knex('chain_cursors').count<Array<{ count: string }>>('* as count');
    return Number(row?.count) >= chains ? true : undefined;
  }, 500);
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) / 1024;
}

async function create(stack: Stack, chainId: number): Promise<{ id: string; source: { receiverAddress: string } }> {
  const res = await fetch(stack.info.paymentApiUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': stack.info.demoMerchant.ordersKey },
    body: JSON.stringify(createBody(chainId)),
  });
  const body = (await res.json()) as { id: string; source: { receiverAddress: string } };
  if (res.status !== 201) throw new Error(`create: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * The stack's API in a process of its own, as in production (and `npm start`): the load a bench generates never
 * shares its event loop. Started means ready.
 */
export async function startApiProcess(stack: Stack, name: string): Promise<Service> {
  const listen = new URL(stack.info.paymentApiUrl);
  const api = new Service({
    name: 'api',
    entry: 'api/server.ts',
    env: { ...stack.apiEnv, HTTP_HOST: listen.hostname, HTTP_PORT: listen.port },
    healthUrl: listen.origin,
    logFile: path.join(tmpdir(), `payrail-${name}-api-${process.pid}.log`),
  });
  await api.start();
  return api;
}

/**
 * `npm run bench -- --soak`: SOAK_MS of steady creates and paid payments, with the API and the worker each in its own
 * process (as in production), so each RSS is that process's alone: the devnets and the load generator stay here.
 */
export async function soak(blockTimeMs: number, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<number> {
  const stack = await startThrowawayStack({ name: 'soak', blockTimeMs, env, worker: false, api: false });
  const api = await startApiProcess(stack, 'soak');
  const worker = spawnWorker(stack, stack.config.temporal.taskQueue);
  const knex = createKnex(stack.env.DATABASE_URL!, { max: 2 });
  const chain = stack.info.chains.find((c) => c.chainId === SETTLEMENT_CHAIN_ID)!;
  const provider = new JsonRpcProvider(chain.rpcUrl, SETTLEMENT_CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 });
  try {
    // Minute 1 is a minute of load on a worker that runs, not of its start-up.
    await workerRunning(knex, stack.info.chains.length);
    const payer = await customerPayer(stack, provider);
    const t0 = Date.now();
    const samples: Array<{ atMs: number; api: number; worker: number }> = [];
    const createLatencies: number[] = [];
    let paid = 0;
    const creates = (async () => {
      while (Date.now() - t0 < SOAK_MS) {
        const start = Date.now();
        await create(stack, 42161);
        createLatencies.push(Date.now() - start);
        await delay(Math.max(0, 1000 / CREATES_PER_SECOND - (Date.now() - start)));
      }
    })();
    const payments = (async () => {
      while (Date.now() - t0 < SOAK_MS) {
        const created = await create(stack, SETTLEMENT_CHAIN_ID);
        await payer.pay(created.source.receiverAddress);
        paid++;
        await delay(PAYMENTS_EVERY_MS);
      }
    })();
    const sampling = (async () => {
      while (Date.now() - t0 < SOAK_MS) {
        await delay(SAMPLE_EVERY_MS);
        const sample = { atMs: Date.now() - t0, api: await rssMb(await api.pid()), worker: await rssMb(worker.pid!) };
        samples.push(sample);
        log(`soak ${(sample.atMs / 1000).toFixed(0)} s: RSS API ${sample.api.toFixed(0)} MB, worker ${sample.worker.toFixed(0)} MB`);
      }
    })();
    await Promise.all([creates, payments, sampling]);
    const completed = await knex('payments').where({ source_chain_id: SETTLEMENT_CHAIN_ID, status: 'payment_completed' }).count<Array<{ count: string }>>('* as count');
    log(`soak: ${createLatencies.length} unpaid creates (p99 ${percentile(createLatencies, 99).toFixed(0)} ms), ${paid} payments paid, ${completed[0]!.count} completed`);
    const median = (key: 'api' | 'worker', fromMs: number, toMs: number) =>
      percentile(samples.filter((s) => s.atMs >= fromMs && s.atMs <= toMs).map((s) => s[key]), 50);
    const end = samples[samples.length - 1]!;
    const highest = (key: 'api' | 'worker') => Math.max(...samples.map((s) => s[key])).toFixed(0);
    log(`soak RSS: last sample API ${end.api.toFixed(0)} MB, worker ${end.worker.toFixed(0)} MB; highest API ${highest('api')} MB, worker ${highest('worker')} MB`);
    const figure = (name: string, key: 'api' | 'worker'): Figure => ({
      name: `RSS ${name}, median of minute ${SOAK_MS / WINDOW_MS - 1}–${SOAK_MS / WINDOW_MS}`,
      value: median(key, SOAK_MS - WINDOW_MS, SOAK_MS),
      unit: 'MB',
      against: { name: 'median of minute 1–2', value: median(key, WINDOW_MS, 2 * WINDOW_MS), unit: 'MB' },
      target: { kind: 'ratio', atMost: 1.2 },
    });
    return printTable([figure('API', 'api'), figure('worker', 'worker')]);
  } finally {
    provider.destroy();
    worker.kill('SIGTERM');
    await exited(worker);
    await api.stop();
    await knex.destroy();
    await stack.stop();
  }
}
