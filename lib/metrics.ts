/**
 * Prometheus metrics (prom-client). Each process (an API, a worker) owns one registry, served at its /metrics on a
 * port of its own (never the API's public port: the series name routes, rates and balances nobody outside needs).
 * Series that describe shared state (payments by status, watcher lag, balances) are read from PostgreSQL and the
 * chains when scraped, so every process reports the same values: aggregate them with max(), not sum().
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const METRIC_PREFIX = 'payrail_';

export function createRegistry(labels: { process: string }): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return registry;
}

/** A running /metrics listener. */
export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `registry` at `GET /metrics` on `host:port` (0: any free port), and nothing else. */
export async function serveMetrics(options: { host: string; port: number; registry: Registry }): Promise<MetricsServer> {
  const { registry } = options;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      (err: unknown) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'internal_error', message: String(err) })),
    );
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

export interface ApiMetrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  paymentsCreated: Counter<'interface'>;
}

export function createApiMetrics(registry: Registry): ApiMetrics {
  const metrics: ApiMetrics = {
    registry,
    httpDuration: new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'HTTP request latency by route (the matched pattern, not the raw path) and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    paymentsCreated: new Counter({
      name: `${METRIC_PREFIX}payments_created_total`,
      help: 'Payments created through the API (a repeated create of the same order is not counted)',
      labelNames: ['interface'],
      registers: [registry],
    }),
  };
  // Present (at 0) from the start, so rates work from the first create on.
  for (const name of ['payment', 'legacy']) metrics.paymentsCreated.inc({ interface: name }, 0);
  return metrics;
}

export interface WorkerMetrics {
  registry: Registry;
  payinDetectionLag: Histogram<'chain'>;
}

export function createWorkerMetrics(registry: Registry): WorkerMetrics {
  return {
    registry,
    payinDetectionLag: new Histogram({
      name: `${METRIC_PREFIX}payin_detection_lag_seconds`,
      help: "Time from a payin's block to the watcher handing it to its payment's run",
      labelNames: ['chain'],
      buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
      registers: [registry],
    }),
  };
}
