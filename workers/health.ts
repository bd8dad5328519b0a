/**
 * A worker's own small HTTP port: /livez (the process and its Temporal workers run), /readyz (and PostgreSQL and
 * Temporal answer), /metrics (Payrail's series; the SDK's own are on TEMPORAL_METRICS_BIND_ADDRESS).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import { checkReadiness } from '../services/health';

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export async function startHealthServer(options: { host: string; port: number; workers: Worker[]; knex: Knex; client: Client; registry: Registry }): Promise<HealthServer> {
  const { workers } = options;
  const running = () => workers.every((w) => w.getState() === 'RUNNING');
  const server: Server = createServer((req, res) => {
    const reply = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const route = async () => {
      if (req.method !== 'GET') return reply(405, { error: 'method_not_allowed' });
      switch (req.url) {
        case '/livez':
          return running() ? reply(200, { status: 'ok' }) : reply(503, { status: workers.map((w) => w.getState()).join(',') });
        case '/readyz': {
          const readiness = await checkReadiness({ knex: options.knex, client: options.client });
          const ready = readiness.ready && running();
          return reply(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', workers: workers.map((w) => w.getState()), checks: readiness.checks });
        }
        case '/metrics':
          return reply(200, await options.registry.metrics(), options.registry.contentType);
        default:
          return reply(404, { error: 'not_found' });
      }
    };
    route().catch((err: unknown) => reply(500, { error: 'internal_error', message: String(err) }));
  });
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject).listen(options.port, options.host));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
