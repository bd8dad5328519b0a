/**
 * End-to-end check of the dev/test infrastructure: `npx tsx tools/stack/smoke-infra.ts`.
 * Exits non-zero on failure and prints how long each start/stop took.
 */
import { execFile, spawn } from 'node:child_process';
import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import knex from 'knex';
import { customSearchAttributes } from '../../workflows/search-attributes';
import { resolveTemporalCli } from '../provision/temporal-cli';
import { freePort } from './ports';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './postgres';
import { startTemporalDevServer, type TemporalDevServer } from './temporal';

const execFileAsync = promisify(execFile);
const timings: Array<[string, number]> = [];

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  const ms = performance.now() - started;
  timings.push([label, ms]);
  console.log(`  ${label}: ${(ms / 1000).toFixed(2)}s`);
  return result;
}

async function query<T>(databaseUrl: string, sql: string): Promise<T[]> {
  const db = knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  try {
    return (await db.raw<{ rows: T[] }>(sql)).rows;
  } finally {
    await db.destroy();
  }
}

async function withConnection<T>(server: TemporalDevServer, fn: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: server.address });
  try {
    return await fn(connection);
  } finally {
    await connection.close();
  }
}

async function assertSearchAttributes(server: TemporalDevServer): Promise<void> {
  const { customAttributes } = await withConnection(server, (c) => c.operatorService.listSearchAttributes({ namespace: server.namespace }));
  for (const key of customSearchAttributes) {
    assert.ok(customAttributes?.[key.name] !== undefined, `search attribute ${key.name} missing on ${server.address}`);
  }
}

interface ProcessInfo {
  pid: number;
  pgid: number;
  args: string;
}

async function processes(): Promise<ProcessInfo[]> {
  const { stdout } = await execFileAsync('ps', ['-eo', 'pid=,pgid=,args=']);
  return stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), pgid: Number(m[2]), args: m[3] ?? '' }));
}

/** Process groups of the servers whose command line mentions any of `markers`. */
async function serverGroups(markers: readonly string[]): Promise<Set<number>> {
  const ours = (await processes()).filter((p) => p.pid !== process.pid && markers.some((m) => p.args.includes(m)));
  return new Set(ours.map((p) => p.pgid));
}

async function waitUntilGone(groups: Set<number>, markers: readonly string[], timeoutMs: number): Promise<ProcessInfo[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = (await processes()).filter((p) => p.pid !== process.pid && (groups.has(p.pgid) || markers.some((m) => p.args.includes(m))));
    if (left.length === 0 || Date.now() > deadline) return left;
    await delay(200);
  }
}

/**
 * Child mode for the parent-death check: start both servers, report, then idle until SIGKILLed.
 */
async function orphanChild(root: string, cliPath: string): Promise<void> {
  await startEmbeddedPostgres({ dataDir: path.join(root, 'orphan-pg'), port: await freePort() });
  await startTemporalDevServer({ cliPath, port: await freePort(), dbFile: path.join(root, 'orphan-temporal', 'temporal.db') });
  console.log('READY');
  setInterval(() => undefined, 60_000);
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), 'payrail-smoke-'));
  const started: Array<{ stop(): Promise<void> }> = [];
  const markers = [root];
  // Process groups of every server we started, so the final check also sees renamed children
  // (postgres backends show up as "postgres: checkpointer" etc.).
  const groups = new Set<number>();
  const track = async (): Promise<void> => {
    for (const group of await serverGroups(markers)) groups.add(group);
  };
  try {
    console.log(`workspace ${root}`);

    console.log('postgres');
    const pgDir = path.join(root, 'pg');
    let pg: EmbeddedPostgresHandle = await timed('postgres first start (initdb)', async () =>
      startEmbeddedPostgres({ dataDir: pgDir, port: await freePort(), logFile: path.join(root, 'pg.log') }),
    );
    started.push(pg);
    await track();
    assert.match(pg.databaseUrl, /^postgres:\/\/postgres:[0-9a-f]+@127\.0\.0\.1:\d+\/payrail$/);
    const db = knex({ client: 'pg', connection: pg.databaseUrl });
    try {
      assert.deepEqual((await db.raw<{ rows: unknown[] }>('select 1 as one')).rows, [{ one: 1 }]);
      await db.raw("create table smoke (note text); insert into smoke values ('kept')");
      // With the pool still connected, as in a test suite's after() hook.
      await timed('postgres stop (client connected)', () => pg.stop());
    } finally {
      await db.destroy();
    }
    await pg.stop(); // idempotent

    pg = await timed('postgres restart (same data dir)', async () => startEmbeddedPostgres({ dataDir: pgDir, port: await freePort() }));
    started.push(pg);
    await track();
    assert.deepEqual(await query(pg.databaseUrl, 'select note from smoke'), [{ note: 'kept' }]);

    // A run killed hard leaves postmaster.pid behind; here its pid even belongs to a live process of the
    // same user (pid reuse after a container restart), which plain postgres refuses to start over.
    const postmasterPid = (await readFile(path.join(pgDir, 'postmaster.pid'), 'utf8')).split('\n')[0] ?? '';
    process.kill(Number(postmasterPid), 'SIGKILL');
    await pg.stop();
    const { uid, gid } = await stat(pgDir); // the OS user postgres runs as
    const impostor = spawn('sleep', ['60'], { stdio: 'ignore', ...(process.getuid?.() === 0 ? { uid, gid } : {}) });
    try {
      await writeFile(path.join(pgDir, 'postmaster.pid'), `${impostor.pid}\n${pgDir}\n`);
      pg = await timed('postgres start over stale postmaster.pid', async () => startEmbeddedPostgres({ dataDir: pgDir, port: await freePort() }));
      started.push(pg);
      await track();
      assert.deepEqual(await query(pg.databaseUrl, 'select note from smoke'), [{ note: 'kept' }]);
      await pg.stop();
    } finally {
      impostor.kill();
    }

    console.log('temporal');
    const cliPath = await timed('resolve temporal CLI', () => resolveTemporalCli());
    const memPort = await freePort();
    markers.push(`--port ${memPort} `);
    const mem = await timed('temporal in-memory start', () => startTemporalDevServer({ cliPath, port: memPort }));
    started.push(mem);
    await track();
    await assertSearchAttributes(mem);
    await timed('temporal in-memory stop', () => mem.stop());
    await mem.stop(); // idempotent

    const dbFile = path.join(root, 'temporal', 'temporal.db');
    const uiPort = await freePort();
    let persisted = await timed('temporal persisted first start (+UI)', async () =>
      startTemporalDevServer({ cliPath, port: await freePort(), uiPort, dbFile, logFile: path.join(root, 'temporal.log') }),
    );
    started.push(persisted);
    await track();
    await assertSearchAttributes(persisted);
    assert.equal(persisted.uiUrl, `http://127.0.0.1:${uiPort}`);
    assert.equal((await fetch(persisted.uiUrl)).status, 200);
    // Simulate a db created before a key was added to workflows/search-attributes.ts.
    const dropped = customSearchAttributes[customSearchAttributes.length - 1]?.name ?? '';
    await withConnection(persisted, (c) => c.operatorService.removeSearchAttributes({ namespace: persisted.namespace, searchAttributes: [dropped] }));
    await assert.rejects(assertSearchAttributes(persisted));
    await timed('temporal persisted stop', () => persisted.stop());

    persisted = await timed('temporal persisted restart (same db file)', async () =>
      startTemporalDevServer({ cliPath, port: await freePort(), dbFile, logFile: path.join(root, 'temporal.log') }),
    );
    started.push(persisted);
    await track();
    await assertSearchAttributes(persisted);
    await timed('temporal persisted stop (2)', () => persisted.stop());

    console.log('parent death');
    const child = spawn(process.execPath, [...process.execArgv, __filename, '--orphan-child', root, cliPath], { stdio: ['ignore', 'pipe', 'inherit'] });
    const childExited = new Promise((resolve) => child.once('exit', resolve));
    const lines = createInterface({ input: child.stdout });
    await timed('child: postgres + temporal start', async () => {
      for await (const line of lines) if (line === 'READY') return;
      throw new Error('orphan child exited before READY');
    });
    const orphanGroups = await serverGroups([path.join(root, 'orphan-')]);
    assert.equal(orphanGroups.size, 2, 'expected one postgres and one temporal process group');
    child.kill('SIGKILL');
    await childExited;
    const survivors = await timed('servers gone after parent SIGKILL', () => waitUntilGone(orphanGroups, [path.join(root, 'orphan-')], 30_000));
    assert.deepEqual(survivors, [], 'servers outlived their parent');

    const leftovers = await waitUntilGone(groups, markers, 5_000);
    assert.deepEqual(leftovers, [], 'processes of ours still running');
    console.log('\nOK');
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--orphan-child') {
  orphanChild(process.argv[3] ?? '', process.argv[4] ?? '').catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().then(
    () => {
      console.log('\ntimings:');
      for (const [label, ms] of timings) console.log(`  ${label.padEnd(42)} ${(ms / 1000).toFixed(2)}s`);
    },
    (err: unknown) => {
      console.error('\nFAILED:', err);
      process.exitCode = 1;
    },
  );
}
