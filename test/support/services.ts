import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { createApp } from '../../api/app';
import { PAYMENT_API_PREFIX } from '../../api/app';
import { EvmChains } from '../../chains/evm';
import { ChainRegistry } from '../../chains/registry';
import { createKnex } from '../../db/connection';
import { createLogger } from '../../lib/logger';
import type { Stack } from '../../scripts/stack';

/** Direct handles on the stack's PostgreSQL, Temporal and chains, for assertions and for extra API instances. */
export interface StackServices {
  knex: Knex;
  client: Client;
  chains: EvmChains;
  close(): Promise<void>;
}

export async function connectServices(stack: Stack): Promise<StackServices> {
  const knex = createKnex(stack.env.DATABASE_URL!, { max: 4 });
  const connection = await Connection.connect({ address: stack.info.temporalAddress });
  const client = new Client({ connection, namespace: stack.config.temporal.namespace });
  const chains = new EvmChains(ChainRegistry.fromFile(stack.config.chainsFile));
  return {
    knex,
    client,
    chains,
    async close() {
      chains.destroy();
      await Promise.all([knex.destroy(), connection.close()]);
    },
  };
}

/**
 * A second API on the same services with different settings (a short TTL, another task queue), listening on a
 * free port. Returns its payment API URL.
 */
export async function startExtraApi(
  stack: Stack,
  services: StackServices,
  overrides: { paymentTtlSeconds?: number; taskQueue?: string },
): Promise<{ paymentApiUrl: string; close(): Promise<void> }> {
  const app = createApp({
    knex: services.knex,
    chains: services.chains,
    temporal: { client: services.client, taskQueue: overrides.taskQueue ?? stack.config.temporal.taskQueue },
    feeBps: stack.config.feeBps,
    paymentTtlSeconds: overrides.paymentTtlSeconds ?? stack.config.paymentTtlSeconds,
    latePayinWindowSeconds: stack.config.latePayinWindowSeconds,
    publicBaseUrl: stack.config.http.publicBaseUrl,
    log: createLogger('warn', 'test-api'),
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    paymentApiUrl: `http://127.0.0.1:${port}${PAYMENT_API_PREFIX}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
