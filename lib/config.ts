import { z } from 'zod';
import type { PricingPolicy, TokenAmountRule } from '../domain/payment-plan';
import type { TemporalEndpoint } from './temporal-connection';

const int = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);
/** Rate-limit windows are at most a day, so housekeeping can drop every window that started over a day ago. */
const windowSeconds = (fallback: number) => int(fallback).pipe(z.number().min(1).max(86_400));

/**
 * `[<chainId>:]<SYMBOL>=<decimal>` entries separated by commas, e.g. `USDC=1,8453:USDC=0.5`: an entry without a
 * chain applies on every chain, one naming the chain wins there.
 */
const tokenAmounts = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx): TokenAmountRule[] => {
      const rules: TokenAmountRule[] = [];
      for (const entry of text.split(',').map((e) => e.trim()).filter(Boolean)) {
        const match = /^(?:([0-9]+):)?([A-Z0-9.]{1,16})=((?:0|[1-9][0-9]*)(?:\.[0-9]+)?)$/.exec(entry);
        if (!match) {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is not [<chainId>:]<SYMBOL>=<decimal amount>` });
          return z.NEVER;
        }
        rules.push({ chainId: match[1] ? Number(match[1]) : null, symbol: match[2]!, amount: match[3]! });
      }
      return rules;
    });

/** The generic settings; each chain family reads its own keys (chains/<family>/index.ts `env`, services/chains.ts). */
const envSchema = z.object({
  HTTP_HOST: z.string().default('127.0.0.1'),
  HTTP_PORT: int(8080),
  /** Reverse proxies in front of the API that append to X-Forwarded-For; 0 trusts no header (client IP = socket). */
  HTTP_TRUSTED_PROXY_HOPS: int(0).pipe(z.number().max(10)),
  /** Origin merchants and customers reach the API at; payment links are built from it. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  DATABASE_URL: z.string().min(1),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('payrail'),
  /**
   * mTLS to a Temporal frontend that requires it (the production shape): the CA that signed the frontend's
   * certificate, and this process's client certificate and key, as PEM files; the name the frontend's certificate is
   * checked against, when it is not the host of TEMPORAL_ADDRESS. All three files or none.
   */
  TEMPORAL_TLS_CA: z.string().min(1).optional(),
  TEMPORAL_TLS_CERT: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  /** The Temporal Web UI; the dashboard links each payment to its workflow there. */
  TEMPORAL_UI_URL: z.string().url().optional(),
  /** The chains served (chains/registry.ts). */
  PAYRAIL_CHAINS_FILE: z.string().default('var/chains.json'),
  FEE_BPS: int(50).pipe(z.number().max(10_000)),
  /** The least fee per chain and token, in token units: what the treasury spends on gas for one payment. */
  PAYMENT_FIXED_FEES: tokenAmounts('USDC=0.1,USDT=0.1,ETH=0.00003'),
  /** The smallest payment per chain and token, in token units. */
  PAYMENT_MINIMUMS: tokenAmounts('USDC=1,USDT=1,ETH=0.0005'),
  PAYMENT_TTL_SECONDS: int(1800).pipe(z.number().min(1)),
  /** Time from creation until an unpaid legacy order expires (spec 8: 60 minutes for crypto payments). */
  ORDER_TTL_SECONDS: int(3600).pipe(z.number().min(1)),
  /** How long a deposit address stays watched after expiry or completion, so late payins are refunded. */
  LATE_PAYIN_WINDOW_SECONDS: int(7 * 24 * 3600),
  /** Days a refund's claim link waits for its customer before the merchant may send the refund to the payment's sender. */
  REFUND_CLAIM_WINDOW_DAYS: int(30).pipe(z.number().min(1)),
  API_KEY_PREFIX: z.string().regex(/^[a-z]{1,8}_$/).default('pr_'),
  /** HS256 key for dashboard JWTs (at least 32 characters). */
  PAYRAIL_JWT_SECRET: z.string().min(32).optional(),
  /** 32-byte hex key sealing webhook secrets at rest. */
  PAYRAIL_SECRETS_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters').optional(),
  /** Outgoing mail (login codes, receipts), e.g. smtp://127.0.0.1:2525. */
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().default('Payrail <no-reply@payrail.local>'),
  /** The dev stack's mail sink, named on the dashboard's login page (never set in production). */
  DEV_MAIL_SINK_URL: z.string().url().optional(),
  /** Lets webhooks, callbacks and Iris (the devnet's stand-in) be private and loopback addresses over http: development and tests only. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(['true', 'false']).default('false'),
  /**
   * Failed authentications (bad API keys, legacy tokens, JWTs, login codes) per client (IPv4 address, IPv6 /64) and
   * window; 0 disables a limit. A request whose key or token verifies is never refused by it.
   */
  RATE_LIMIT_AUTH_FAILURES_PER_IP: int(100),
  RATE_LIMIT_AUTH_FAILURES_WINDOW_SECONDS: windowSeconds(900),
  /** Login-code e-mails per address and window. */
  RATE_LIMIT_LOGIN_CODES_PER_EMAIL: int(10),
  RATE_LIMIT_LOGIN_CODES_WINDOW_SECONDS: windowSeconds(3600),
  /** Login-code e-mails per client and window, whatever the addresses (no mail bombing through us). */
  RATE_LIMIT_LOGIN_CODES_PER_IP: int(30),
  /** Login-code e-mails of the whole deployment per window: the cap on what anyone can make us send. */
  RATE_LIMIT_LOGIN_CODES_GLOBAL: int(1000),
  /** Keyed payment creations (`POST {payment_api_url}` with X-API-Key) per merchant app and window. */
  RATE_LIMIT_PAYMENT_CREATES_PER_APP: int(3000),
  /** The window of every create limit (payments keyed and keyless, orders, per developer). */
  RATE_LIMIT_PAYMENT_CREATES_WINDOW_SECONDS: windowSeconds(60),
  /** Legacy order creations (`POST /v1/orders`) per merchant app and window. */
  RATE_LIMIT_ORDER_CREATES_PER_APP: int(3000),
  /** Keyed payment and order creations of all of a developer's apps together, per window: more apps buy no more. */
  RATE_LIMIT_CREATES_PER_DEVELOPER: int(6000),
  /** Merchant apps registered (`POST {merchant_api_url}/register`) per client and window, whatever the developer. */
  RATE_LIMIT_REGISTRATIONS_PER_IP: int(10),
  RATE_LIMIT_REGISTRATIONS_WINDOW_SECONDS: windowSeconds(86_400),
  /** Keyless creations (appId in the body) per app, per client and in all, per window: never the keyed budget. */
  RATE_LIMIT_KEYLESS_CREATES_PER_APP: int(600),
  RATE_LIMIT_KEYLESS_CREATES_PER_IP: int(30),
  RATE_LIMIT_KEYLESS_CREATES_GLOBAL: int(3000),
  /** Merchant apps per developer and live API keys per app; 0 is unlimited. */
  MAX_APPS_PER_DEVELOPER: int(20),
  MAX_API_KEYS_PER_APP: int(20),
  /** Bound on one webhook delivery (connect, TLS, request, response); its activity allows 30 s in all. */
  WEBHOOK_TIMEOUT_MS: int(10_000).pipe(z.number().min(100).max(20_000)),
  /**
   * Ready deposit addresses a worker keeps per chain whose addresses need the deposit seed (Solana, TON): refilled to
   * the size once fewer than the low-water mark are left (services/deposit-addresses.ts).
   */
  DEPOSIT_ADDRESS_POOL_SIZE: int(1000).pipe(z.number().min(1)),
  DEPOSIT_ADDRESS_POOL_LOW_WATER: int(250),
  /** The API's own port for /metrics (on HTTP_HOST), never its public HTTP_PORT; unset: its metrics are not served. */
  API_METRICS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /** A worker's own HTTP port for /livez, /readyz and /metrics; unset: none. */
  WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /** host:port where the Temporal SDK's Prometheus exporter serves a worker's SDK metrics (its own /metrics); unset: off. */
  TEMPORAL_METRICS_BIND_ADDRESS: z.string().regex(/^[^:]+:\d+$/, 'must be host:port').optional(),
  /** On SIGTERM a worker stops polling and gives in-flight activities this long before cancelling them. */
  WORKER_SHUTDOWN_GRACE_SECONDS: int(10),
  /** How often the rebalancer looks at the treasuries' floats (workflows/rebalancer.ts; at once on its `checkFloats` signal). */
  REBALANCE_INTERVAL_MS: int(60_000).pipe(z.number().min(1_000)),
  /**
   * How long a completed payment's payin waits at its deposit address before it is swept into its chain's treasury.
   * The merchant is paid from the float meanwhile; the sweep only refills the treasury, so a burst's payouts go first.
   */
  SWEEP_AFTER_SECONDS: int(30).pipe(z.number().max(86_400)),
  /**
   * The build a worker runs, under Temporal Worker Versioning (docs/workflow-versioning.md): set, the worker joins
   * the deployment WORKER_DEPLOYMENT_NAME as this build; unset, it runs unversioned.
   */
  WORKER_BUILD_ID: z.string().regex(/^[\w.+-]{1,255}$/, 'letters, digits, and . _ + - only').optional(),
  WORKER_DEPLOYMENT_NAME: z.string().regex(/^[\w-]{1,255}$/, 'letters, digits, _ and - only').default('payrail'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
}).refine((e) => [e.TEMPORAL_TLS_CA, e.TEMPORAL_TLS_CERT, e.TEMPORAL_TLS_KEY].every((v) => v === undefined) || [e.TEMPORAL_TLS_CA, e.TEMPORAL_TLS_CERT, e.TEMPORAL_TLS_KEY].every((v) => v !== undefined), {
  message: 'TEMPORAL_TLS_CA, TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together: set all three for mTLS, or none',
  path: ['TEMPORAL_TLS_CERT'],
});

export type Env = z.infer<typeof envSchema>;

export interface RateLimit {
  /** Events allowed per window; 0 means unlimited. */
  limit: number;
  windowSeconds: number;
}

export interface RateLimits {
  authFailuresPerIp: RateLimit;
  loginCodesPerEmail: RateLimit;
  loginCodesPerIp: RateLimit;
  loginCodesGlobal: RateLimit;
  paymentCreatesPerApp: RateLimit;
  orderCreatesPerApp: RateLimit;
  createsPerDeveloper: RateLimit;
  registrationsPerIp: RateLimit;
  keylessCreatesPerApp: RateLimit;
  keylessCreatesPerIp: RateLimit;
  keylessCreatesGlobal: RateLimit;
}

/** Caps on what one account may hold; 0 is unlimited. */
export interface AccountLimits {
  appsPerDeveloper: number;
  apiKeysPerApp: number;
}

export interface AppConfig {
  http: { host: string; port: number; publicBaseUrl?: string; trustedProxyHops: number; metricsPort?: number };
  databaseUrl: string;
  temporal: TemporalEndpoint & { namespace: string; taskQueue: string; uiUrl?: string };
  chainsFile: string;
  /** The environment this configuration was read from: each chain family reads its own keys from it (services/chains.ts). */
  env: Readonly<NodeJS.ProcessEnv>;
  feeBps: number;
  fixedFees: TokenAmountRule[];
  minimums: TokenAmountRule[];
  paymentTtlSeconds: number;
  orderTtlSeconds: number;
  latePayinWindowSeconds: number;
  refundClaimWindowDays: number;
  apiKeyPrefix: string;
  jwtSecret?: string;
  secretsKey?: string;
  smtpUrl?: string;
  mailFrom: string;
  devMailSinkUrl?: string;
  webhookAllowPrivateNetworks: boolean;
  rateLimits: RateLimits;
  accountLimits: AccountLimits;
  webhookTimeoutMs: number;
  logLevel: Env['LOG_LEVEL'];
  worker: {
    healthPort?: number;
    temporalMetricsBindAddress?: string;
    shutdownGraceSeconds: number;
    rebalanceIntervalMs: number;
    sweepAfterSeconds: number;
    deployment?: { name: string; buildId: string };
    depositAddressPool: { size: number; lowWater: number };
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    http: {
      host: e.HTTP_HOST,
      port: e.HTTP_PORT,
      // With HTTP_PORT=0 the port is known only once the server listens; startApi fills the default in then.
      publicBaseUrl: e.PUBLIC_BASE_URL ?? (e.HTTP_PORT === 0 ? undefined : `http://localhost:${e.HTTP_PORT}`),
      trustedProxyHops: e.HTTP_TRUSTED_PROXY_HOPS,
      metricsPort: e.API_METRICS_PORT,
    },
    databaseUrl: e.DATABASE_URL,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      tls: e.TEMPORAL_TLS_CA && e.TEMPORAL_TLS_CERT && e.TEMPORAL_TLS_KEY ? { caFile: e.TEMPORAL_TLS_CA, certFile: e.TEMPORAL_TLS_CERT, keyFile: e.TEMPORAL_TLS_KEY, serverName: e.TEMPORAL_TLS_SERVER_NAME } : undefined,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      uiUrl: e.TEMPORAL_UI_URL,
    },
    chainsFile: e.PAYRAIL_CHAINS_FILE,
    env: { ...env },
    feeBps: e.FEE_BPS,
    fixedFees: e.PAYMENT_FIXED_FEES,
    minimums: e.PAYMENT_MINIMUMS,
    paymentTtlSeconds: e.PAYMENT_TTL_SECONDS,
    orderTtlSeconds: e.ORDER_TTL_SECONDS,
    latePayinWindowSeconds: e.LATE_PAYIN_WINDOW_SECONDS,
    refundClaimWindowDays: e.REFUND_CLAIM_WINDOW_DAYS,
    apiKeyPrefix: e.API_KEY_PREFIX,
    jwtSecret: e.PAYRAIL_JWT_SECRET,
    secretsKey: e.PAYRAIL_SECRETS_KEY,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    devMailSinkUrl: e.DEV_MAIL_SINK_URL,
    webhookAllowPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
    rateLimits: {
      authFailuresPerIp: { limit: e.RATE_LIMIT_AUTH_FAILURES_PER_IP, windowSeconds: e.RATE_LIMIT_AUTH_FAILURES_WINDOW_SECONDS },
      loginCodesPerEmail: { limit: e.RATE_LIMIT_LOGIN_CODES_PER_EMAIL, windowSeconds: e.RATE_LIMIT_LOGIN_CODES_WINDOW_SECONDS },
      loginCodesPerIp: { limit: e.RATE_LIMIT_LOGIN_CODES_PER_IP, windowSeconds: e.RATE_LIMIT_LOGIN_CODES_WINDOW_SECONDS },
      loginCodesGlobal: { limit: e.RATE_LIMIT_LOGIN_CODES_GLOBAL, windowSeconds: e.RATE_LIMIT_LOGIN_CODES_WINDOW_SECONDS },
      paymentCreatesPerApp: { limit: e.RATE_LIMIT_PAYMENT_CREATES_PER_APP, windowSeconds: e.RATE_LIMIT_PAYMENT_CREATES_WINDOW_SECONDS },
      orderCreatesPerApp: { limit: e.RATE_LIMIT_ORDER_CREATES_PER_APP, windowSeconds: e.RATE_LIMIT_PAYMENT_CREATES_WINDOW_SECONDS },
      createsPerDeveloper: { limit: e.RATE_LIMIT_CREATES_PER_DEVELOPER, windowSeconds: e.RATE_LIMIT_PAYMENT_CREATES_WINDOW_SECONDS },
      registrationsPerIp: { limit: e.RATE_LIMIT_REGISTRATIONS_PER_IP, windowSeconds: e.RATE_LIMIT_REGISTRATIONS_WINDOW_SECONDS },
      keylessCreatesPerApp: { limit: e.RATE_LIMIT_KEYLESS_CREATES_PER_APP, windowSeconds: e.RATE_LIMIT_PAYMENT_CREATES_WINDOW_SECONDS },
      keylessCreatesPerIp: { limit: e.RATE_LIMIT_KEYLESS_CREATES_PER_IP, windowSeconds: e.RATE_LIMIT_PAYMENT_CREATES_WINDOW_SECONDS },
      keylessCreatesGlobal: { limit: e.RATE_LIMIT_KEYLESS_CREATES_GLOBAL, windowSeconds: e.RATE_LIMIT_PAYMENT_CREATES_WINDOW_SECONDS },
    },
    accountLimits: { appsPerDeveloper: e.MAX_APPS_PER_DEVELOPER, apiKeysPerApp: e.MAX_API_KEYS_PER_APP },
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    worker: {
      healthPort: e.WORKER_HEALTH_PORT,
      temporalMetricsBindAddress: e.TEMPORAL_METRICS_BIND_ADDRESS,
      shutdownGraceSeconds: e.WORKER_SHUTDOWN_GRACE_SECONDS,
      rebalanceIntervalMs: e.REBALANCE_INTERVAL_MS,
      sweepAfterSeconds: e.SWEEP_AFTER_SECONDS,
      deployment: e.WORKER_BUILD_ID === undefined ? undefined : { name: e.WORKER_DEPLOYMENT_NAME, buildId: e.WORKER_BUILD_ID },
      depositAddressPool: { size: e.DEPOSIT_ADDRESS_POOL_SIZE, lowWater: Math.min(e.DEPOSIT_ADDRESS_POOL_LOW_WATER, e.DEPOSIT_ADDRESS_POOL_SIZE) },
    },
  };
}

/** The pricing policy of this deployment (domain/payment-plan.ts applies it). */
export const pricingPolicy = (config: Pick<AppConfig, 'feeBps' | 'fixedFees' | 'minimums'>): PricingPolicy => ({
  feeBps: config.feeBps,
  fixedFees: config.fixedFees,
  minimums: config.minimums,
});
