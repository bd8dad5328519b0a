import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { createKnex } from '../db/connection';
import { loadConfig, type AppConfig } from '../lib/config';
import { createLogger, type Logger } from '../lib/logger';
import { Mailer } from '../lib/mail';
import { SecretBox } from '../lib/secrets';
import { createApp, type ApiDeps } from './app';
import { startHousekeeping } from './housekeeping';
import { depositKeys, loadChainAdapters, type ChainAdapters } from '../services/chains';
import { RateLimiter } from '../services/rate-limits';

export interface RunningApi {
  url: string;
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
    feeBps: config.feeBps,
    paymentTtlSeconds: config.paymentTtlSeconds,
    latePayinWindowSeconds: config.latePayinWindowSeconds,
    orderTtlSeconds: config.orderTtlSeconds,
    publicBaseUrl,
    trustedProxyHops: config.http.trustedProxyHops,
    apiKeyPrefix: config.apiKeyPrefix,
    jwtSecret: required(config.jwtSecret, 'PAYRAIL_JWT_SECRET'),
    secretBox: new SecretBox(required(config.secretsKey, 'PAYRAIL_SECRETS_KEY')),
    mailer: new Mailer({ smtpUrl: required(config.smtpUrl, 'SMTP_URL'), from: config.mailFrom }),
    rateLimiter: new RateLimiter(knex, config.rateLimits),
    webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks,
  };
}

export async function startApi(config: AppConfig): Promise<RunningApi> {
  const log = createLogger(config.logLevel, 'api');
  const knex = createKnex(config.databaseUrl, { max: 20 });
  const chains = loadChainAdapters(config.chainsFile, depositKeys(config));
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  // Listen before building the app, so a free port chosen by the OS (HTTP_PORT=0) can appear in payment links.
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject).listen(config.http.port, config.http.host));
  const { port } = server.address() as AddressInfo;
  const publicBaseUrl = config.http.publicBaseUrl ?? `http://localhost:${port}`;
  const handle = createApp(apiDeps(config, { knex, chains, client, log, publicBaseUrl })).callback();
  server.on('request', (req, res) => void handle(req, res));
  const housekeeping = startHousekeeping({ knex, log });
  log.info({ port }, 'api listening');
  return {
    url: `http://${config.http.host}:${port}`,
    publicBaseUrl,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([closed, housekeeping.stop()]);
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
