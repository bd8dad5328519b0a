/**
 * The production topology on one machine, without Docker: PostgreSQL (embedded, or external by DATABASE_URL), the
 * Temporal server on it (its frontend requiring mTLS) with its UI (read-only unless the operator turns writes on), the
 * devnet chains and mail sink of the dev stack, and Payrail as separate OS processes: N APIs on their own ports (and
 * /metrics on a port of its own each) and M workers, each with its own log file and health port; the APIs hold no
 * signing key. Every process is started only once the ones before it are ready. docker-compose.yml runs the same
 * processes with the same settings.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { startOnPort } from '../stack/ports';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../stack/postgres';
import type { DevnetPorts } from '../devnets/families';
import { startStack, type DevStackInfo, type Stack } from '../stack/stack';
import { Service } from './service';
import { startTemporalServer, type TemporalServerHandle } from './temporal-server';

export interface ProdStackOptions {
  varDir: string;
  /** Keep PostgreSQL's data (Payrail's and Temporal's) across runs. */
  persistent: boolean;
  ports: {
    /**
     * One API process per entry: its public port and its /metrics port. The API and worker ports are probed ones: a
     * restarted process keeps its port.
     */
    apis: Array<{ http: number; metrics: number }>;
    /** One worker process per entry: its /livez, /readyz, /metrics port and the Temporal SDK's metrics port. */
    workers: Array<{ health: number; sdkMetrics: number }>;
    /** 0: any free port (probed; the start is tried again should it be taken first). */
    postgres: number;
    temporal: number;
    temporalUi: number;
    /** Each devnet's ports by family; absent: any free ones, bound by the devnets themselves. */
    devnets?: DevnetPorts;
    mailSink: { smtp: number; http: number };
  };
  blockTimeMs: number;
  /** The operator's switch: the Temporal UI may signal, cancel, terminate, reset and start workflows (default: read-only). */
  temporalUiWriteActions?: boolean;
  /** `DATABASE_URL` selects an external PostgreSQL; other keys override Payrail's settings. */
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

export interface ProdStack {
  info: DevStackInfo;
  /** The chains, mail sink, seeded data and the environment every Payrail process gets. */
  stack: Stack;
  temporal: TemporalServerHandle;
  /** Absent with an external DATABASE_URL. */
  postgres?: EmbeddedPostgresHandle;
  apis: Service[];
  workers: Service[];
  logDir: string;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

export async function startProdStack(options: ProdStackOptions): Promise<ProdStack> {
  const { log } = options;
  const logDir = path.join(options.varDir, 'logs');
  await mkdir(logDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const fn of stops.splice(0).reverse()) await fn().catch((err: unknown) => log(`stop failed: ${String(err)}`));
  };
  try {
    let databaseUrl = options.env.DATABASE_URL;
    let postgres: EmbeddedPostgresHandle | undefined;
    if (!databaseUrl) {
      log('starting PostgreSQL (embedded)…');
      const pg = await startOnPort(options.ports.postgres, (port) => startEmbeddedPostgres({ dataDir: path.join(options.varDir, 'postgres'), port, logFile: path.join(logDir, 'postgres.log') }));
      stops.push(() => pg.stop());
      postgres = pg;
      databaseUrl = pg.databaseUrl;
    }

    log('starting the Temporal server on PostgreSQL (and its UI)…');
    const temporal = await startTemporalServer({
      databaseUrl,
      frontendPort: options.ports.temporal,
      uiPort: options.ports.temporalUi,
      dataDir: path.join(options.varDir, 'temporal'),
      logFile: path.join(logDir, 'temporal.log'),
      uiWriteActions: options.temporalUiWriteActions,
    });
    stops.push(() => temporal.stop());

    const [firstApi] = options.ports.apis;
    if (firstApi === undefined) throw new Error('the production stack needs at least one API port');
    const stack = await startStack({
      varDir: options.varDir,
      persistent: options.persistent,
      api: false,
      worker: false,
      ports: { http: firstApi.http, postgres: options.ports.postgres, temporal: options.ports.temporal, devnets: options.ports.devnets, mailSink: options.ports.mailSink },
      blockTimeMs: options.blockTimeMs,
      // Every Payrail process reaches the frontend with the client certificate the server's CA signed.
      env: { ...options.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporal.address, ...temporal.clientEnv },
      log,
    });
    stops.push(() => stack.stop());

    const apis = options.ports.apis.map(
      (ports, i) =>
        new Service({
          name: `api-${i + 1}`,
          entry: 'api/server.ts',
          env: { ...stack.apiEnv, HTTP_HOST: HOST, HTTP_PORT: String(ports.http), API_METRICS_PORT: String(ports.metrics) },
          healthUrl: `http://${HOST}:${ports.http}`,
          metricsUrl: `http://${HOST}:${ports.metrics}/metrics`,
          logFile: path.join(logDir, `api-${i + 1}.log`),
        }),
    );
    const workers = options.ports.workers.map(
      (ports, i) =>
        new Service({
          name: `worker-${i + 1}`,
          entry: 'workers/main.ts',
          env: { ...stack.env, HTTP_HOST: HOST, WORKER_HEALTH_PORT: String(ports.health), TEMPORAL_METRICS_BIND_ADDRESS: `${HOST}:${ports.sdkMetrics}` },
          healthUrl: `http://${HOST}:${ports.health}`,
          metricsUrl: `http://${HOST}:${ports.health}/metrics`,
          logFile: path.join(logDir, `worker-${i + 1}.log`),
        }),
    );
    // Stopped in reverse: APIs first (no new payments), then workers (their activities drain), then the services.
    stops.push(() => Promise.all(workers.map((w) => w.stop())).then(() => undefined));
    stops.push(() => Promise.all(apis.map((a) => a.stop())).then(() => undefined));
    log(`starting ${apis.length} API and ${workers.length} worker processes…`);
    await Promise.all([...apis, ...workers].map((service) => service.start()));

    return { info: stack.info, stack, temporal, postgres, apis, workers, logDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
