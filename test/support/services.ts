import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { createApp, MERCHANT_API_PREFIX, PAYMENT_API_PREFIX } from '../../api/app';
import { apiDeps } from '../../api/server';
import { loadChains, type ChainAdapters } from '../../services/chains';
import { createKnex } from '../../db/connection';
import type { AccountLimits, AppConfig, RateLimits } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { temporalTlsOptions } from '../../lib/temporal-connection';
import type { Stack } from '../../tools/stack/stack';
import type { ActivityDeps } from '../../activities';
import { createRegistry, createWorkerMetrics } from '../../lib/metrics';
import type { PaymentStatus } from '../../domain/payment';
import { paymentWorkflowId } from '../../workflows/ids';

/** Direct handles on the stack's PostgreSQL, Temporal and chains, for assertions and for extra API instances. */
export interface StackServices {
  knex: Knex;
  client: Client;
  chains: ChainAdapters;
  close(): Promise<void>;
}

export async function connectServices(stack: Stack): Promise<StackServices> {
  const knex = createKnex(stack.env.DATABASE_URL!, { max: 4 });
  const connection = await Connection.connect({ address: stack.info.temporalAddress, tls: temporalTlsOptions(stack.config.temporal.tls) });
  const client = new Client({ connection, namespace: stack.config.temporal.namespace });
  const chains = loadChains(stack.config, 'worker');
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
 * The payment's run's result, once it ended: after its sweep landed, which starts when the payment completed. What
 * is read from then on (the deposit, the payment's transactions, the ledger) holds the sweep.
 */
export function paymentRunEnded(services: StackServices, paymentId: string): Promise<PaymentStatus> {
  return services.client.workflow.getHandle(paymentWorkflowId(paymentId)).result();
}

/** Settings an extra API may change from the stack's; rate limits not named keep the stack's. */
export interface ExtraApiOverrides {
  paymentTtlSeconds?: number;
  orderTtlSeconds?: number;
  taskQueue?: string;
  webhookAllowPrivateNetworks?: boolean;
  trustedProxyHops?: number;
  smtpUrl?: string;
  /** `warn` by default; a test that provokes an error on purpose may silence it. */
  logLevel?: AppConfig['logLevel'];
  rateLimits?: Partial<RateLimits>;
  accountLimits?: Partial<AccountLimits>;
  /** Fixed fees and minimum payments; the stack's when left out. */
  pricing?: Partial<Pick<AppConfig, 'fixedFees' | 'minimums'>>;
}

export interface ExtraApi {
  /** The legacy interface and the hosted pages live at the origin itself. */
  origin: string;
  paymentApiUrl: string;
  merchantApiUrl: string;
  close(): Promise<void>;
}

/**
 * A second API on the same services with different settings (a short TTL, another task queue, low rate
 * limits, …), listening on a free port.
 */
export async function startExtraApi(stack: Stack, services: StackServices, overrides: ExtraApiOverrides): Promise<ExtraApi> {
  const base = stack.config;
  const config: AppConfig = {
    ...base,
    http: { ...base.http, trustedProxyHops: overrides.trustedProxyHops ?? base.http.trustedProxyHops },
    temporal: { ...base.temporal, taskQueue: overrides.taskQueue ?? base.temporal.taskQueue },
    paymentTtlSeconds: overrides.paymentTtlSeconds ?? base.paymentTtlSeconds,
    orderTtlSeconds: overrides.orderTtlSeconds ?? base.orderTtlSeconds,
    webhookAllowPrivateNetworks: overrides.webhookAllowPrivateNetworks ?? base.webhookAllowPrivateNetworks,
    smtpUrl: overrides.smtpUrl ?? base.smtpUrl,
    rateLimits: { ...base.rateLimits, ...overrides.rateLimits },
    accountLimits: { ...base.accountLimits, ...overrides.accountLimits },
    ...overrides.pricing,
  };
  const log = createLogger(overrides.logLevel ?? 'warn', 'test-api');
  const app = createApp(
    apiDeps(config, { knex: services.knex, chains: services.chains, client: services.client, log, publicBaseUrl: stack.publicBaseUrl }),
  );
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    paymentApiUrl: `${origin}${PAYMENT_API_PREFIX}`,
    merchantApiUrl: `${origin}${MERCHANT_API_PREFIX}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** What the worker gives its activities, on the test stack's services (silent logs, private webhook targets allowed). */
export function activityDeps(stack: Stack, services: StackServices, latePayinWindowMs: number): ActivityDeps {
  return {
    knex: services.knex,
    chains: services.chains,
    temporal: { client: services.client, taskQueue: stack.config.temporal.taskQueue },
    latePayinWindowMs,
    sweepAfterMs: 0,
    refundClaimWindowDays: stack.config.refundClaimWindowDays,
    depositAddressPool: stack.config.worker.depositAddressPool,
    log: createLogger('silent', 'test'),
    metrics: createWorkerMetrics(createRegistry({ process: 'test' })),
    webhooks: { allowPrivateNetworks: true, timeoutMs: 2_000 },
    orders: { pricing: { feeBps: 50, fixedFees: [], minimums: [] }, publicBaseUrl: stack.publicBaseUrl, allowPrivateCallbackTargets: true },
  };
}
