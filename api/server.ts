import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { createKnex } from '../db/connection';
import { loadConfig, pricingPolicy, type AppConfig } from '../lib/config';
import { createLogger, type Logger } from '../lib/logger';
import { connectClient } from '../lib/temporal-connection';
import { createApiMetrics, createRegistry, serveMetrics } from '../lib/metrics';
import { Mailer } from '../lib/mail';
import { SecretBox } from '../lib/secrets';
import { createApp, type ApiDeps } from './app';
import { startHousekeeping } from './housekeeping';
import { loadChains, signingVariablesIn, type ChainAdapters } from '../services/chains';
import { RateLimiter } from '../services/rate-limits';

export interface RunningApi {
  url: string;
  /** Where /metrics answers (API_METRICS_PORT), when it is served. */
  metricsPort?: number;
  /** Origin of payment links (PUBLIC_BASE_URL, or localhost on the bound port). */
  publicBaseUrl: string;
  close(): Promise<void>;
}

/** The app's dependencies from the configuration, on connections the caller owns (the API process, or a test's extra API). */
export function apiDeps(
  config: AppConfig,
  shared: { knex: Knex; chains: ChainAdapters; client: Client; log: Logger; publicBaseUrl: string },
): ApiDeps {
  const { knex, chains, client, log, publicBaseUrl } = shared;
  const required = (value: string | undefined, name: string): string => {
    if (!value) throw new Error(`${name} must be set to run the API`);
    return value;
  };
  return {
    knex,
    chains,
    log,
    temporal: { client, taskQueue: config.temporal.taskQueue },
    pricing: pricingPolicy(config),
    paymentTtlSeconds: config.paymentTtlSeconds,
    latePayinWindowSeconds: config.latePayinWindowSeconds,
    refundClaimWindowDays: config.refundClaimWindowDays,
    orderTtlSeconds: config.orderTtlSeconds,
    publicBaseUrl,
    trustedProxyHops: config.http.trustedProxyHops,
    apiKeyPrefix: config.apiKeyPrefix,
    jwtSecret: required(config.jwtSecret, 'PAYRAIL_JWT_SECRET'),
    secretBox: new SecretBox(required(config.secretsKey, 'PAYRAIL_SECRETS_KEY')),
    mailer: new Mailer({ smtpUrl: required(config.smtpUrl, 'SMTP_URL'), from: config.mailFrom }),
    rateLimiter: new RateLimiter(knex, config.rateLimits),
    accountLimits: config.accountLimits,
    webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks,
    metrics: createApiMetrics(createRegistry({ process: 'api' })),
    lifecycle: { draining: false },
    webhookTimeoutMs: config.webhookTimeoutMs,
    temporalUi: config.temporal.uiUrl ? { url: config.temporal.uiUrl, namespace: config.temporal.namespace } : undefined,
    devMailSinkUrl: config.devMailSinkUrl,
  };
}

/** In-flight requests get this long to finish when the API stops; then their connections are cut. */
const DRAIN_TIMEOUT_MS = 10_000;

export async function startApi(config: AppConfig): Promise<RunningApi> {
  // The API is the process the internet reaches: it holds no key that can move money (deposit seeds, treasury keys).
  const held = signingVariablesIn(config.env);
  if (held.length > 0) throw new Error(`the API holds no signing key: ${held.join(', ')} belong to the worker only; remove them from the API's environment`);
  const log = createLogger(config.logLevel, 'api');
  const knex = createKnex(config.databaseUrl, { max: 20 });
  const chains = loadChains(config, 'deposits');
  const connection = await connectClient(config.temporal, log);
  const client = new Client({ connection, namespace: config.temporal.namespace });
  // Listen before building the app, so a free port chosen by the OS (HTTP_PORT=0) can appear in payment links.
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject).listen(config.http.port, config.http.host));
  const { port } = server.address() as AddressInfo;
  const publicBaseUrl = config.http.publicBaseUrl ?? `http://localhost:${port}`;
  const deps = apiDeps(config, { knex, chains, client, log, publicBaseUrl });
  const handle = createApp(deps).callback();
  server.on('request', (req, res) => void handle(req, res));
  const housekeeping = startHousekeeping({ knex, log });
  // Prometheus scrapes a port of its own: the public one serves the interfaces only.
  const metrics = config.http.metricsPort === undefined ? undefined : await serveMetrics({ host: config.http.host, port: config.http.metricsPort, registry: deps.metrics.registry });
  log.info({ port, metricsPort: metrics?.port }, 'api listening');
  return {
    url: `http://${config.http.host}:${port}`,
    metricsPort: metrics?.port,
    publicBaseUrl,
    async close() {
      // Drain: no new connections, idle keep-alive ones closed now, busy ones once their response is sent.
      deps.lifecycle.draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
      await Promise.all([closed.finally(() => clearTimeout(cut)), housekeeping.stop(), metrics?.close()]);
      chains.destroy();
      await Promise.all([knex.destroy(), connection.close()]);
    },
  };
}

if (require.main === module) {
  startApi(loadConfig())
    .then((api) => {
      const stop = () => void api.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
