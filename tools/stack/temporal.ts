import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
// Not re-exported from the package index; the SDK exports it for tests that register search attributes.
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { customSearchAttributes } from '../../workflows/search-attributes';
import { supervise, type SupervisedProcess } from './supervise';

export interface TemporalDevServerOptions {
  cliPath: string;
  /** Persisted sqlite file (dev stack: var/temporal/temporal.db); omit → in-memory (tests). */
  dbFile?: string;
  /** SQLite pragmas for a persisted file (default DEV_SQLITE_PRAGMAS; `[]` keeps SQLite's own settings). */
  sqlitePragmas?: readonly string[];
  /** Default 127.0.0.1. */
  ip?: string;
  /** Frontend gRPC port. */
  port: number;
  /** Omit → --headless. */
  uiPort?: number;
  /** Default 'default'. */
  namespace?: string;
  /** Server output goes here (default: discard). */
  logFile?: string;
}

export interface TemporalDevServer {
  address: string;
  uiUrl?: string;
  namespace: string;
  stop(): Promise<void>;
}

// 2-core CI boxes running tests in parallel can take a while to bring up all services.
const START_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 10_000;

/** `temporal server start-dev --search-attribute KEY=TYPE` type names (CLI v1.5.1). */
const CLI_TYPE_NAMES: Record<SearchAttributeType, string> = {
  TEXT: 'Text',
  KEYWORD: 'Keyword',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

/**
 * The dev server's SQLite file in WAL mode, synced at checkpoints rather than at every commit: about twice the
 * workflow starts per second of SQLite's defaults (`npm run bench` measures both). A power loss can lose the last
 * commits; the file stays consistent (docs/operations.md). Production runs Temporal on PostgreSQL.
 */
export const DEV_SQLITE_PRAGMAS: readonly string[] = ['journal_mode=wal', 'synchronous=normal', 'busy_timeout=5000'];

export async function startTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const ip = opts.ip ?? '127.0.0.1';
  const namespace = opts.namespace ?? 'default';
  const host = ip.includes(':') ? `[${ip}]` : ip;
  const address = `${host}:${opts.port}`;

  const args = ['server', 'start-dev', '--ip', ip, '--port', String(opts.port), '--log-level', 'warn'];
  args.push(...(opts.uiPort === undefined ? ['--headless'] : ['--ui-port', String(opts.uiPort)]));
  if (opts.dbFile !== undefined) {
    const dbFile = path.resolve(opts.dbFile);
    await mkdir(path.dirname(dbFile), { recursive: true });
    args.push('--db-filename', dbFile);
    for (const pragma of opts.sqlitePragmas ?? DEV_SQLITE_PRAGMAS) args.push('--sqlite-pragma', pragma);
  }
  // "default" always exists; --namespace creates extra ones.
  if (namespace !== 'default') args.push('--namespace', namespace);
  for (const key of customSearchAttributes) args.push('--search-attribute', `${key.name}=${CLI_TYPE_NAMES[key.type]}`);

  const proc = await supervise({
    command: opts.cliPath,
    args,
    env: process.env,
    stopSignal: 'SIGTERM',
    graceMs: STOP_GRACE_MS,
    logFile: opts.logFile,
  });
  try {
    const connection = await waitForFrontend(address, namespace, proc);
    try {
      await ensureSearchAttributes(connection, namespace);
    } finally {
      await connection.close();
    }
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return {
    address,
    uiUrl: opts.uiPort === undefined ? undefined : `http://${host}:${opts.uiPort}`,
    namespace,
    stop: () => proc.stop(),
  };
}

async function waitForFrontend(address: string, namespace: string, proc: SupervisedProcess): Promise<Connection> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (proc.hasExited()) {
      throw new Error(`temporal server exited during start-up (status ${await proc.exited}):\n${await proc.logTail()}`);
    }
    // Not Connection.connect(): it leaks the gRPC channel when the first call fails.
    const connection = Connection.lazy({ address, connectTimeout: 2_000 });
    try {
      await connection.ensureConnected();
      await connection.workflowService.describeNamespace({ namespace });
      return connection;
    } catch (err) {
      await connection.close();
      lastError = err;
    }
    await delay(250);
  }
  throw new Error(`Temporal dev server at ${address} not ready after ${START_TIMEOUT_MS / 1000}s (${String(lastError)}):\n${await proc.logTail()}`);
}

/**
 * start-dev applies --search-attribute only when it creates a namespace; for a namespace that
 * already exists in a persisted db file it silently does nothing (sqlite CreateNamespaces is a
 * no-op then). So keys added to workflows/search-attributes.ts after the dev db was created would
 * be missing: register whatever is absent through the operator API.
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing: Record<string, number> = {};
  for (const key of customSearchAttributes) {
    const wanted = encodeSearchAttributeIndexedValueType(key.type);
    if (wanted === undefined) throw new Error(`unknown search attribute type ${key.type}`);
    const actual = customAttributes?.[key.name];
    if (actual === undefined) {
      missing[key.name] = wanted;
    } else if (actual !== wanted) {
      throw new Error(`search attribute ${key.name} exists in namespace ${namespace} with another type (${actual}); expected ${key.type}`);
    }
  }
  if (Object.keys(missing).length > 0) {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  }
}
