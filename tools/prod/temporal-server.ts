/**
 * The production Temporal server on PostgreSQL (not the CLI's dev server), plus the Temporal UI.
 *
 * All four services (frontend, history, matching, worker) run in one `temporal-server start` process,
 * configured exactly as the temporalio/server image is: by environment variables read by the config
 * template embedded in the binary (DB=postgres12, POSTGRES_SEEDS, …), so docker-compose.yml can use
 * the same settings. Schemas are created and updated with Temporal's own `temporal-sql-tool` and the
 * schemas embedded in it, as temporalio/admin-tools does: the default store in `temporal`, advanced
 * visibility (custom search attributes, SQL-like list queries; PostgreSQL 12+) in `temporal_visibility`.
 *
 * Every port binds 127.0.0.1: the frontend gRPC and UI ports are the caller's, the internal ones (frontend
 * HTTP, the other services' gRPC, the four membership ports) are free ports picked at start and kept for
 * restarts. Each child runs under tools/stack/supervise.ts, so it cannot outlive this process.
 *
 * The frontend requires mTLS (TEMPORAL_TLS_REQUIRE_CLIENT_AUTH): a CA made once in the data directory
 * (tools/prod/tls.ts) signs the server's certificate and a client certificate each for Payrail and the UI; a client
 * without one is refused at the handshake. The UI is read-only (`disableWriteActions`) unless the operator turns its
 * write actions on.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporalTlsOptions, type TemporalTls } from '../../lib/temporal-connection';
import { customSearchAttributes } from '../../workflows/search-attributes';
import { ensureSearchAttributes } from '../stack/temporal';
import { freePort } from '../stack/ports';
import { supervise, type SupervisedProcess } from '../stack/supervise';
import { resolveTemporalServer, type TemporalServerBinaries } from '../provision/temporal-server';
import { ensureTemporalCertificates, payrailTls, type TemporalCertificates } from './tls';

const execFileAsync = promisify(execFile);

export interface TemporalServerOptions {
  /** PostgreSQL 12+ as a URL (postgres://user:password@host:port/db); the user must be allowed to create databases. */
  databaseUrl: string;
  frontendPort: number;
  /** Omit → no UI. */
  uiPort?: number;
  /** Dynamic config, UI config and the server's pid file go here. */
  dataDir: string;
  /** Server output (schema tool runs included); the UI logs to `<logFile without .log>-ui.log`. */
  logFile: string;
  /** Registered if absent, with Payrail's custom search attributes; default 'default'. */
  namespace?: string;
  /** Default: resolveTemporalServer() (builds once into the per-user cache). */
  binaries?: TemporalServerBinaries;
  /** The operator's switch: lets the UI signal, cancel, terminate, reset and start workflows. Default: read-only. */
  uiWriteActions?: boolean;
}

export interface TemporalServerHandle {
  /** Frontend gRPC, host:port. */
  address: string;
  /** Payrail's client certificate for the frontend, which refuses clients without one (lib/temporal-connection.ts). */
  tls: TemporalTls;
  /** The same as the environment Payrail's processes read (TEMPORAL_TLS_*, lib/config.ts). */
  clientEnv: Record<string, string>;
  /** Every certificate and key of the frontend's mTLS, by role. */
  certificates: TemporalCertificates;
  uiUrl?: string;
  namespace: string;
  stop(): Promise<void>;
  /** kill -9 the server, start it again on the same ports and databases, and wait until it serves again. */
  restart(): Promise<void>;
}

export const TEMPORAL_DATABASE = 'temporal';
export const TEMPORAL_VISIBILITY_DATABASE = 'temporal_visibility';
/** Embedded schema directories of temporal-sql-tool (`--schema-name`). */
const SCHEMAS: ReadonlyArray<{ database: string; schemaName: string }> = [
  { database: TEMPORAL_DATABASE, schemaName: 'postgresql/v12/temporal' },
  { database: TEMPORAL_VISIBILITY_DATABASE, schemaName: 'postgresql/v12/visibility' },
];

const HOST = '127.0.0.1';
/** The name the server's certificate is issued to and clients check it against. */
const SERVER_NAME = 'localhost';
// First start on a 2-core CI box: four services, shard acquisition and namespace registry loads.
const START_TIMEOUT_MS = 180_000;
const SCHEMA_TOOL_TIMEOUT_MS = 120_000;
// Graceful shutdown drains shards and leaves the membership ring; bounded in case it wedges.
const STOP_GRACE_MS = 20_000;
// Closed workflows stay listable (UI, visibility queries) this long.
const NAMESPACE_RETENTION = '7 days';
// grpc.status.ALREADY_EXISTS (@grpc/grpc-js is only an indirect dependency).
const GRPC_ALREADY_EXISTS = 6;

export async function startTemporalServer(opts: TemporalServerOptions): Promise<TemporalServerHandle> {
  const namespace = opts.namespace ?? 'default';
  const dataDir = path.resolve(opts.dataDir);
  const logFile = path.resolve(opts.logFile);
  const db = parseDatabaseUrl(opts.databaseUrl);
  const binaries = opts.binaries ?? (await resolveTemporalServer());
  await mkdir(dataDir, { recursive: true });
  await mkdir(path.dirname(logFile), { recursive: true });

  await setUpSchemas(binaries.sqlTool, db, logFile);
  const certificates = await ensureTemporalCertificates(path.join(dataDir, 'tls'), [SERVER_NAME, HOST]);
  const tls = payrailTls(certificates, SERVER_NAME);

  const dynamicConfigFile = path.join(dataDir, 'dynamicconfig.yaml');
  // The server refuses to start without the file; its defaults suit us (updates are on, etc.).
  await writeFile(dynamicConfigFile, '# Temporal dynamic config (https://docs.temporal.io/references/dynamic-configuration); server defaults apply.\n{}\n');
  const env = await serverEnv(db, opts.frontendPort, dynamicConfigFile, certificates);
  const address = `${HOST}:${opts.frontendPort}`;
  const pidFile = path.join(dataDir, 'temporal-server.pid');
  const startServer = async (): Promise<SupervisedProcess> => {
    await rm(pidFile, { force: true });
    return supervise({
      // The shell records its pid, then becomes the server: restart() can SIGKILL exactly the server.
      command: '/bin/sh',
      args: ['-c', 'echo $$ > "$0" && exec "$@"', pidFile, binaries.server, 'start'],
      env,
      cwd: dataDir,
      stopSignal: 'SIGTERM',
      graceMs: STOP_GRACE_MS,
      logFile,
    });
  };

  let server = await startServer();
  let ui: SupervisedProcess | undefined;
  try {
    const connection = await waitForFrontend(address, tls, server);
    try {
      await ensureNamespace(connection, namespace);
      await ensureSearchAttributes(connection, namespace);
      await waitForSearchAttributes(connection, namespace);
    } finally {
      await connection.close();
    }
    if (opts.uiPort !== undefined) {
      ui = await startTemporalUi({
        uiServer: binaries.uiServer,
        root: path.join(dataDir, 'ui'),
        logFile: uiLogFile(logFile),
        frontend: address,
        certificates,
        port: opts.uiPort,
        namespace,
        writeActions: opts.uiWriteActions ?? false,
      });
    }
  } catch (err) {
    await server.stop();
    throw err;
  }

  // stop() and restart() run one at a time, in call order.
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = (fn: () => Promise<void>) => (): Promise<void> => {
    const run = queue.then(fn);
    queue = run.catch(() => undefined);
    return run;
  };
  let stopped = false;
  return {
    address,
    tls,
    clientEnv: { TEMPORAL_TLS_CA: tls.caFile, TEMPORAL_TLS_CERT: tls.certFile, TEMPORAL_TLS_KEY: tls.keyFile, TEMPORAL_TLS_SERVER_NAME: SERVER_NAME },
    certificates,
    uiUrl: opts.uiPort === undefined ? undefined : `http://${HOST}:${opts.uiPort}`,
    namespace,
    stop: serialized(async () => {
      stopped = true;
      await Promise.all([ui?.stop(), server.stop()]);
    }),
    restart: serialized(async () => {
      if (stopped) throw new Error('Temporal server was stopped');
      // A server that already died on its own just starts again (its pid may belong to someone else by now).
      if (!server.hasExited()) {
        try {
          process.kill(Number.parseInt(await readFile(pidFile, 'utf8'), 10), 'SIGKILL');
        } catch (err) {
          // ESRCH: it died in the meantime.
          if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        }
      }
      await server.exited;
      server = await startServer();
      await (await waitForFrontend(address, tls, server)).close();
    }),
  };
}

interface DatabaseConfig {
  host: string;
  port: number;
  user: string;
  password: string;
  /** The database in the URL: an existing one to connect to while creating Temporal's. */
  adminDatabase: string;
}

function parseDatabaseUrl(databaseUrl: string): DatabaseConfig {
  const url = new URL(databaseUrl);
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new Error(`databaseUrl must be a postgres:// URL, not ${url.protocol}`);
  // TLS and the like would have to be mapped onto Temporal's own settings (SQL_TLS_*), which we don't do yet.
  if (url.search !== '') throw new Error(`databaseUrl query parameters (${url.search}) are not supported for the Temporal server`);
  return {
    host: url.hostname,
    port: url.port === '' ? 5432 : Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    adminDatabase: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
  };
}

/**
 * What temporalio/admin-tools runs (and auto-setup ran): create the database, set up the version table,
 * then apply every versioned schema update up to the tool's own release. Each step is idempotent.
 */
async function setUpSchemas(sqlTool: string, db: DatabaseConfig, logFile: string): Promise<void> {
  for (const { database, schemaName } of SCHEMAS) {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      SQL_PLUGIN: 'postgres12',
      SQL_HOST: db.host,
      SQL_PORT: String(db.port),
      SQL_USER: db.user,
      SQL_PASSWORD: db.password,
      SQL_DATABASE: database,
    };
    for (const args of [['create-database', '--defaultdb', db.adminDatabase], ['setup-schema', '-v', '0.0'], ['update-schema', '--schema-name', schemaName]]) {
      const command = `temporal-sql-tool ${args.join(' ')} (${database})`;
      try {
        const { stdout, stderr } = await execFileAsync(sqlTool, args, { env, timeout: SCHEMA_TOOL_TIMEOUT_MS });
        await writeFile(logFile, `== ${command}\n${stdout}${stderr}`, { flag: 'a' });
      } catch (err) {
        const { stdout = '', stderr = '', message } = err as { stdout?: string; stderr?: string; message: string };
        await writeFile(logFile, `== ${command} FAILED\n${stdout}${stderr}`, { flag: 'a' });
        throw new Error(`${command} failed: ${message}\n${stdout}${stderr}`);
      }
    }
  }
}

/** The embedded config template's variables (common/config/config_template_embedded.yaml in go.temporal.io/server). */
async function serverEnv(db: DatabaseConfig, frontendPort: number, dynamicConfigFile: string, certs: TemporalCertificates): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {
    // Nothing else from our environment: the template reads many variables (DB, ENABLE_ES, LOG_LEVEL, …).
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    DB: 'postgres12',
    POSTGRES_SEEDS: db.host,
    DB_PORT: String(db.port),
    POSTGRES_USER: db.user,
    POSTGRES_PWD: db.password,
    DBNAME: TEMPORAL_DATABASE,
    VISIBILITY_DBNAME: TEMPORAL_VISIBILITY_DATABASE,
    BIND_ON_IP: HOST,
    FRONTEND_GRPC_PORT: String(frontendPort),
    DYNAMIC_CONFIG_FILE_PATH: dynamicConfigFile,
    // mTLS on the frontend and between the services: a client without a certificate the CA signed is refused. Every
    // client that has one may do anything (no authorizer): the CA signs for Payrail, the UI and the server alone.
    TEMPORAL_TLS_REQUIRE_CLIENT_AUTH: 'true',
    TEMPORAL_TLS_SERVER_CA_CERT: certs.caFile,
    TEMPORAL_TLS_SERVER_CERT: certs.server.certFile,
    TEMPORAL_TLS_SERVER_KEY: certs.server.keyFile,
    TEMPORAL_TLS_INTERNODE_SERVER_NAME: SERVER_NAME,
    TEMPORAL_TLS_FRONTEND_CERT: certs.server.certFile,
    TEMPORAL_TLS_FRONTEND_KEY: certs.server.keyFile,
    TEMPORAL_TLS_CLIENT1_CA_CERT: certs.caFile,
    TEMPORAL_TLS_CLIENT2_CA_CERT: certs.caFile,
    TEMPORAL_TLS_FRONTEND_SERVER_NAME: SERVER_NAME,
  };
  // freePort's ports fit the SMALLINT Temporal's schema keeps membership ports in.
  for (const name of ['FRONTEND_HTTP_PORT', 'HISTORY_GRPC_PORT', 'MATCHING_GRPC_PORT', 'WORKER_GRPC_PORT', 'FRONTEND_MEMBERSHIP_PORT', 'HISTORY_MEMBERSHIP_PORT', 'MATCHING_MEMBERSHIP_PORT', 'WORKER_MEMBERSHIP_PORT']) {
    env[name] = String(await freePort());
  }
  return env;
}

async function waitForFrontend(address: string, tls: TemporalTls, proc: SupervisedProcess): Promise<Connection> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (proc.hasExited()) {
      throw new Error(`temporal-server exited during start-up (status ${await proc.exited}):\n${await proc.logTail()}`);
    }
    // Not Connection.connect(): it leaks the gRPC channel when the first call fails.
    const connection = Connection.lazy({ address, tls: temporalTlsOptions(tls), connectTimeout: 2_000 });
    try {
      await connection.ensureConnected();
      // Answers once the frontend has loaded the namespace registry from the database.
      await connection.workflowService.describeNamespace({ namespace: 'temporal-system' });
      return connection;
    } catch (err) {
      await connection.close();
      lastError = err;
    }
    await delay(250);
  }
  throw new Error(`Temporal server at ${address} not ready after ${START_TIMEOUT_MS / 1000}s (${String(lastError)}):\n${await proc.logTail()}`);
}

async function ensureNamespace(connection: Connection, namespace: string): Promise<void> {
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION) });
  } catch (err) {
    if (!(isGrpcServiceError(err) && (err.code as number) === GRPC_ALREADY_EXISTS)) throw err;
  }
}

/**
 * On SQL visibility a custom search attribute is a namespace alias, which each service learns when it
 * next refreshes its namespace registry (every 2 s by default). Waits until the frontend accepts a list
 * query over all of them; the other services refresh on the same schedule.
 */
async function waitForSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const query = customSearchAttributes.map((key) => `${key.name} = 'probe'`).join(' AND ');
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      await connection.workflowService.listWorkflowExecutions({ namespace, query, pageSize: 1 });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`namespace ${namespace} does not accept its search attributes yet: ${String(err)}`);
    }
    await delay(250);
  }
}

function uiLogFile(serverLogFile: string): string {
  return `${serverLogFile.replace(/\.log$/, '')}-ui.log`;
}

/**
 * The Temporal UI server on `port`, reaching the frontend with its own client certificate. Read-only unless
 * `writeActions` (`disableWriteActions` of ui-server, TEMPORAL_DISABLE_WRITE_ACTIONS of its image): its API then
 * refuses every write (signal, cancel, terminate, reset, start, batch) with 405 and serves reads and queries.
 */
export async function startTemporalUi(opts: {
  uiServer: string;
  root: string;
  logFile: string;
  frontend: string;
  certificates: TemporalCertificates;
  port: number;
  namespace: string;
  writeActions: boolean;
}): Promise<SupervisedProcess> {
  const { root, certificates } = opts;
  await mkdir(path.join(root, 'config'), { recursive: true });
  await writeFile(
    path.join(root, 'config', 'payrail.yaml'),
    [
      `temporalGrpcAddress: ${opts.frontend}`,
      `host: ${HOST}`,
      `port: ${opts.port}`,
      'enableUi: true',
      `defaultNamespace: ${opts.namespace}`,
      'distribution: server',
      `disableWriteActions: ${!opts.writeActions}`,
      'tls:',
      `  caFile: ${certificates.caFile}`,
      `  certFile: ${certificates.ui.certFile}`,
      `  keyFile: ${certificates.ui.keyFile}`,
      `  serverName: ${SERVER_NAME}`,
      '  enableHostVerification: true',
      // Served over plain HTTP: a Secure CSRF cookie would not come back, and the UI's write actions would fail.
      'cors:',
      '  cookieInsecure: true',
      '',
    ].join('\n'),
  );
  const proc = await supervise({
    command: opts.uiServer,
    args: ['--root', root, '--config', 'config', '--env', 'payrail', 'start'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cwd: root,
    stopSignal: 'SIGTERM',
    graceMs: STOP_GRACE_MS,
    logFile: opts.logFile,
  });
  const url = `http://${HOST}:${opts.port}/healthz`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (proc.hasExited()) throw new Error(`Temporal UI server exited during start-up (status ${await proc.exited}):\n${await proc.logTail()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return proc;
      lastError = `HTTP ${response.status}`;
    } catch (err) {
      lastError = err;
    }
    await delay(250);
  }
  await proc.stop();
  throw new Error(`Temporal UI at ${url} not ready after ${START_TIMEOUT_MS / 1000}s (${String(lastError)}):\n${await proc.logTail()}`);
}
