import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { EvmChains } from '../chains/evm';
import { ChainRegistry } from '../chains/registry';
import { createKnex } from '../db/connection';
import { loadConfig, type AppConfig } from '../lib/config';
import { createLogger } from '../lib/logger';
import { createApp } from './app';

export interface RunningApi {
  url: string;
  close(): Promise<void>;
}

export async function startApi(config: AppConfig): Promise<RunningApi> {
  const log = createLogger(config.logLevel, 'api');
  const knex = createKnex(config.databaseUrl, { max: 20 });
  const chains = new EvmChains(ChainRegistry.fromFile(config.chainsFile));
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const app = createApp({
    knex,
    chains,
    temporal: { client, taskQueue: config.temporal.taskQueue },
    feeBps: config.feeBps,
    paymentTtlSeconds: config.paymentTtlSeconds,
    orderTtlSeconds: config.orderTtlSeconds,
    latePayinWindowSeconds: config.latePayinWindowSeconds,
    publicBaseUrl: config.http.publicBaseUrl,
    log,
  });
  const server = app.listen(config.http.port, config.http.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  log.info({ port }, 'api listening');
  return {
    url: `http://${config.http.host}:${port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
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
