import { Client } from '@temporalio/client';
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, Runtime, type LogLevel, type Worker } from '@temporalio/worker';
import type { ActivityDeps } from '../activities';
import { loadChains } from '../services/chains';
import { createKnex } from '../db/connection';
import { loadConfig, pricingPolicy, type AppConfig } from '../lib/config';
import { createLogger } from '../lib/logger';
import { connectClient, connectWorker } from '../lib/temporal-connection';
import { createRegistry, createWorkerMetrics } from '../lib/metrics';
import { registerStateGauges } from '../services/metrics';
import { startHealthServer } from './health';
import { SecretBox } from '../lib/secrets';
import { Mailer } from '../lib/mail';
import { ensureBackgroundWorkflows } from './background';
import { createWorkers } from './worker';

export interface RunningWorker {
  workers: Worker[];
  /** Resolves when the worker has stopped (after `shutdown`, or on a fatal error). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/** Crash tests set this to a chain-transaction purpose; the worker then dies right after broadcasting one. */
const CRASH_AFTER_BROADCAST_ENV = 'PAYRAIL_FAULT_CRASH_AFTER_BROADCAST';
/** Crash tests set this to a webhook event type; the worker then dies right after claiming its delivery. */
const CRASH_AFTER_WEBHOOK_CLAIM_ENV = 'PAYRAIL_FAULT_CRASH_AFTER_WEBHOOK_CLAIM';

const SDK_LOG_LEVELS: Record<AppConfig['logLevel'], LogLevel> = {
  fatal: 'ERROR',
  error: 'ERROR',
  warn: 'WARN',
  info: 'INFO',
  debug: 'DEBUG',
  trace: 'TRACE',
  silent: 'ERROR',
};

/**
 * Seconds a workflow task lasts before the SDK's core warns of it ([TMPRL1104]; 5 by default). A payment's, refund's
 * or rebalance's chain waits run inside its workflow task (workflows/chain-steps.ts), which lasts until they end or
 * until the SDK heartbeats it at 80 % of its 30 s timeout (`LOCAL_WAITS_WORKFLOW_TASK_TIMEOUT`): at 5 s, core warned
 * of nearly every payment. A task past 25 s is one whose heartbeat is late, close to losing its local steps.
 */
const WORKFLOW_TASK_DURATION_WARN_SECONDS = '25';

/**
 * The SDK's runtime is process-wide and can be set up once, before the first connection. A process that hosts
 * other Temporal code (the test suite) may have set it up already; then its settings stay. With a bind address the
 * SDK serves its own worker metrics (task slots, poll and schedule-to-start latencies, …) for Prometheus there.
 */
function installRuntime(config: AppConfig): void {
  const bindAddress = config.worker.temporalMetricsBindAddress;
  // Core reads it at its first long task; an operator's own setting stays.
  process.env.TEMPORAL_WORKFLOW_TASK_DURATION_WARN_SECONDS ??= WORKFLOW_TASK_DURATION_WARN_SECONDS;
  try {
    Runtime.install({
      logger: new DefaultLogger(SDK_LOG_LEVELS[config.logLevel]),
      telemetryOptions: bindAddress ? { metrics: { prometheus: { bindAddress, countersTotalSuffix: true }, metricPrefix: 'temporal_' } } : undefined,
    });
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
}

/** Callbacks and receipts link to the hosted page, so a worker must know the API's public origin. */
function requirePublicBaseUrl(config: AppConfig): string {
  if (!config.http.publicBaseUrl) throw new Error('PUBLIC_BASE_URL must be set for a worker when HTTP_PORT is 0');
  return config.http.publicBaseUrl;
}

export async function startWorker(config: AppConfig, env: NodeJS.ProcessEnv = process.env): Promise<RunningWorker> {
  installRuntime(config);
  const log = createLogger(config.logLevel, 'worker');
  const knex = createKnex(config.databaseUrl);
  const chains = loadChains(config, 'worker');
  const nativeConnection = await connectWorker(config.temporal, log);
  const clientConnection = await connectClient(config.temporal, log);
  const client = new Client({ connection: clientConnection, namespace: config.temporal.namespace });
  const metrics = createWorkerMetrics(createRegistry({ process: 'worker' }));
  registerStateGauges(metrics.registry, { knex, chains });
  const crashAfter = env[CRASH_AFTER_BROADCAST_ENV];
  const crashAfterClaim = env[CRASH_AFTER_WEBHOOK_CLAIM_ENV];

  const deps: ActivityDeps = {
    knex,
    chains,
    temporal: { client, taskQueue: config.temporal.taskQueue },
    latePayinWindowMs: config.latePayinWindowSeconds * 1000,
    sweepAfterMs: config.worker.sweepAfterSeconds * 1000,
    refundClaimWindowDays: config.refundClaimWindowDays,
    depositAddressPool: config.worker.depositAddressPool,
    log,
    metrics,
    secrets: config.secretsKey ? new SecretBox(config.secretsKey) : undefined,
    webhooks: { allowPrivateNetworks: config.webhookAllowPrivateNetworks, timeoutMs: config.webhookTimeoutMs },
    afterBroadcast: crashAfter
      ? (purpose) => {
          if (purpose === crashAfter) process.kill(process.pid, 'SIGKILL');
        }
      : undefined,
    afterWebhookClaim: crashAfterClaim
      ? (eventType) => {
          if (eventType === crashAfterClaim) process.kill(process.pid, 'SIGKILL');
        }
      : undefined,
    orders: {
      pricing: pricingPolicy(config),
      publicBaseUrl: requirePublicBaseUrl(config),
      allowPrivateCallbackTargets: config.webhookAllowPrivateNetworks,
      mailer: config.smtpUrl ? new Mailer({ smtpUrl: config.smtpUrl, from: config.mailFrom }) : undefined,
    },
  };
  const workers = await createWorkers({
    connection: nativeConnection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    deps,
    shutdownGraceSeconds: config.worker.shutdownGraceSeconds,
    deployment: config.worker.deployment,
  });
  await ensureBackgroundWorkflows(client, config.temporal.taskQueue, chains.registry, { rebalanceIntervalMs: config.worker.rebalanceIntervalMs });
  const running = Promise.all(workers.map((w) => w.run()));
  const health =
    config.worker.healthPort === undefined
      ? undefined
      : await startHealthServer({ host: config.http.host, port: config.worker.healthPort, workers, knex, client, registry: metrics.registry });
  const done = running.then(() => undefined).finally(async () => {
    await health?.close();
    chains.destroy();
    await Promise.all([knex.destroy(), nativeConnection.close(), clientConnection.close()]);
  });
  log.info({ taskQueue: config.temporal.taskQueue, healthPort: health?.port }, 'worker running');
  return {
    workers,
    done,
    async shutdown() {
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

if (require.main === module) {
  startWorker(loadConfig())
    .then((running) => {
      const stop = () => void running.shutdown();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return running.done;
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
