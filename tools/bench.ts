import { createKnex } from '../db/connection';
import { exited, spawnWorker } from '../test/support/worker';
import { benchCreate } from './bench/create';
import { benchDashboard } from './bench/dashboard';
import { printTable, type Figure } from './bench/report';
import { benchOutside } from './bench/outside';
import { benchSettlement } from './bench/settlement';
import { soak, startApiProcess, workerRunning } from './bench/soak';
import { benchSolanaScan } from './bench/solana';
import { benchDevTemporal } from './bench/temporal';
import { benchTonScan } from './bench/ton';
import { benchTronScan } from './bench/tron';
import { benchStellarScan } from './bench/stellar';
import { benchWatcher } from './bench/watcher';
import { startThrowawayStack } from './stack/stack';

/**
 * `npm run bench`: every speed target as a ratio to a floor measured in the same run on the same machine (the
 * issue "Performance"); exits non-zero when one is missed. `npm run bench -- --soak` runs the memory soak instead.
 * Not in the test suite, where timing would make tests flaky.
 */
const BLOCK_TIME_MS = 1000;
/** High enough never to refuse a bench request; the limiter still counts every create, as in production. */
const BENCH_ENV = {
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PAYMENT_CREATES_PER_APP: '10000000',
  // The dashboard section's app names a local webhook receiver, as a developer's would.
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
};

const SECTIONS = ['temporal', 'create', 'settlement', 'outside', 'dashboard', 'watcher', 'solana', 'ton', 'tron', 'stellar'] as const;

const log = (line: string) => console.log(line);

/** `--only create,settlement` runs some sections (while working on one); the default is all. */
function sections(argv: string[]): Set<string> {
  const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const wanted = only ? only.split(',') : [...SECTIONS];
  const unknown = wanted.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`unknown bench section(s) ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
  return new Set(wanted);
}

async function bench(run: Set<string>): Promise<number> {
  const figures: Figure[] = [];
  if (run.has('temporal')) figures.push(...(await benchDevTemporal(log)));
  // The API and the worker each in its own process, as in production: neither shares an event loop with the other or
  // with the load this process generates, as merchants' and customers' clients never do.
  const stack = await startThrowawayStack({ name: 'bench', blockTimeMs: BLOCK_TIME_MS, env: BENCH_ENV, worker: false, api: false });
  const api = await startApiProcess(stack, 'bench');
  const worker = spawnWorker(stack, stack.config.temporal.taskQueue);
  const knex = createKnex(stack.env.DATABASE_URL!, { max: 4 });
  try {
    await workerRunning(knex, stack.info.chains.length);
    if (run.has('create')) figures.push(...(await benchCreate(stack, log)));
    if (run.has('settlement')) figures.push(...(await benchSettlement(stack, knex, { blockTimeMs: BLOCK_TIME_MS, batch: 100 }, log)));
    if (run.has('outside')) figures.push(...(await benchOutside(stack, knex, log)));
    if (run.has('dashboard')) figures.push(...(await benchDashboard(stack)));
    // The scan benches move the watchers' cursors and fill the table of watched addresses: the worker stops first.
    worker.kill('SIGTERM');
    await exited(worker);
    if (run.has('watcher')) figures.push(...(await benchWatcher(stack, knex, log)));
    if (run.has('solana')) figures.push(...(await benchSolanaScan(stack, knex, log)));
    if (run.has('ton')) figures.push(...(await benchTonScan(stack, knex, log)));
    if (run.has('tron')) figures.push(...(await benchTronScan(stack, knex, log)));
    if (run.has('stellar')) figures.push(...(await benchStellarScan(stack, knex, log)));
  } finally {
    worker.kill('SIGTERM');
    await exited(worker);
    await api.stop();
    await knex.destroy();
    await stack.stop();
  }
  return printTable(figures);
}

async function main(): Promise<void> {
  const missed = process.argv.includes('--soak') ? await soak(BLOCK_TIME_MS, BENCH_ENV, log) : await bench(sections(process.argv));
  if (missed > 0) console.log(`\n${missed} target(s) missed`);
  process.exit(missed > 0 ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
