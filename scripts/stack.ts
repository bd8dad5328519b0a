import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChainRegistryFile } from '../chains/registry';
import { startDevnet, type Devnet } from '../chains/devnet/devnet';
import { startSolanaDevnet, type SolanaDevnet } from '../chains/devnet/solana';
import { devnetKey } from '../chains/devnet/solana/keys';
import { startStellarDevnet, type StellarDevnet } from '../chains/devnet/stellar';
import { startTronDevnet, type TronDevnet } from '../chains/devnet/tron';
import { createKnex, migrateLatest } from '../db/connection';
import { deleteChainCursors } from '../db/queries/chain-cursors';
import { resetSignerNonces } from '../db/queries/chain-txs';
import { loadConfig, type AppConfig } from '../lib/config';
import { startApi, type RunningApi } from '../api/server';
import { MERCHANT_API_PREFIX, PAYMENT_API_PREFIX } from '../api/app';
import { startWorker, type RunningWorker } from '../workers/main';
import { startMailSink } from './dev/mail-sink';
import { freePort } from './dev/ports';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './dev/postgres';
import { startTemporalDevServer, type TemporalDevServer } from './dev/temporal';
import { resolveTemporalCli } from './provision/temporal-cli';
import { seedDemoMerchant, type DemoMerchant } from './seed-demo';

export const DEVNET_CHAINS = [
  { chainId: 42161, name: 'Arbitrum (devnet)' },
  { chainId: 8453, name: 'Base (devnet)' },
] as const;

export interface StackOptions {
  /** Data, logs and generated config live here. */
  varDir: string;
  /** Keep PostgreSQL data and Temporal history in `varDir` across runs (the dev stack); tests start clean. */
  persistent: boolean;
  ports: {
    http: number;
    postgres: number;
    temporal: number;
    temporalUi?: number;
    chains: [number, number];
    /** The Solana devnet's JSON-RPC (and websocket) port. */
    solana: number;
    /** The Tron devnet's full-node HTTP API port. */
    tron: number;
    /** The Stellar devnet's Horizon port. */
    stellar: number;
    /** The local mail sink's SMTP and HTTP ports, 0 for any free one (unused when `SMTP_URL` selects a real mail server). */
    mailSink: { smtp: number; http: number };
  };
  blockTimeMs?: number;
  /** `DATABASE_URL` / `TEMPORAL_ADDRESS` select external services; other keys override Payrail's settings. */
  env?: NodeJS.ProcessEnv;
  /** Run a worker inside this process (tests that kill workers start their own instead). */
  worker: boolean;
  log?: (line: string) => void;
}

export interface DevStackEvmChain {
  family: 'evm';
  chainId: number;
  name: string;
  rpcUrl: string;
  tokens: Record<'USDC' | 'USDT', { address: string; decimals: number }>;
  multiSend: string;
}

export interface DevStackSolanaChain {
  family: 'solana';
  chainId: number;
  name: string;
  rpcUrl: string;
  wsUrl: string;
  /** The mints: USDC (SPL Token) and PYUSD (Token-2022). */
  tokens: Record<'USDC' | 'PYUSD', { address: string; decimals: number; tokenProgram: string }>;
}

export interface DevStackTronChain {
  family: 'tron';
  chainId: number;
  name: string;
  /** The full-node HTTP API (tronweb's `fullHost`). */
  rpcUrl: string;
  tokens: Record<'USDT', { address: string; decimals: number }>;
}

export interface DevStackStellarChain {
  family: 'stellar';
  chainId: number;
  name: string;
  /** Horizon. */
  rpcUrl: string;
  networkPassphrase: string;
  /** The one account payments are paid into, each with its memo. */
  receivingAccount: string;
  /** `address` is `CODE:ISSUER`. */
  tokens: Record<'USDC', { address: string; decimals: number }>;
}

/** SLIP-44 coin types: the non-EVM chains' ids here (docs/chains.md). */
export const SOLANA_CHAIN_ID = 501;
export const TRON_CHAIN_ID = 195;
export const STELLAR_CHAIN_ID = 148;

/** The stack's Solana devnet chain. */
export function solanaChain(info: DevStackInfo): DevStackSolanaChain {
  const chain = info.chains.find((c): c is DevStackSolanaChain => c.family === 'solana');
  if (!chain) throw new Error('the stack has no Solana devnet');
  return chain;
}

/** What `var/dev-stack.json` holds: everything a developer or a test needs to talk to the running stack. */
export interface DevStackInfo {
  paymentApiUrl: string;
  merchantApiUrl: string;
  legacyApiUrl: string;
  dashboardUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | null;
  /** The local mail sink (`GET <url>/messages?to=<address>`); null when mail goes to an external `SMTP_URL`. */
  mailSinkUrl: string | null;
  chains: Array<DevStackEvmChain | DevStackSolanaChain | DevStackTronChain | DevStackStellarChain>;
  /** Funded on every devnet: an EVM key, a Solana key (64-byte secret, seed then public key), a Tron key (hex), a Stellar secret. */
  customer: {
    privateKey: string;
    address: string;
    solana: { secretKey: number[]; address: string };
    tron: { privateKey: string; address: string };
    stellar: { secret: string; address: string };
  };
  demoMerchant: DemoMerchant;
}

export interface Stack {
  info: DevStackInfo;
  config: AppConfig;
  /** The environment a separately started worker or API process needs to join this stack. */
  env: Record<string, string>;
  devnet: Devnet;
  solana: SolanaDevnet;
  tron: TronDevnet;
  stellar: StellarDevnet;
  api: RunningApi;
  worker?: RunningWorker;
  stop(): Promise<void>;
}

/** Starts the whole system: PostgreSQL, Temporal, the two-chain devnet, the mail sink, the worker and the API. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const log = options.log ?? (() => undefined);
  const env = options.env ?? {};
  const logDir = path.join(options.varDir, 'logs');
  await mkdir(logDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const fn of stops.splice(0).reverse()) await fn().catch((err: unknown) => log(`stop failed: ${String(err)}`));
  };

  try {
    let databaseUrl = env.DATABASE_URL;
    if (!databaseUrl) {
      log('starting PostgreSQL (embedded)…');
      const pg: EmbeddedPostgresHandle = await startEmbeddedPostgres({
        dataDir: path.join(options.varDir, 'postgres'),
        port: options.ports.postgres,
        logFile: path.join(logDir, 'postgres.log'),
      });
      stops.push(() => pg.stop());
      databaseUrl = pg.databaseUrl;
    }

    let temporalAddress = env.TEMPORAL_ADDRESS;
    let temporalUiUrl: string | null = null;
    if (!temporalAddress) {
      log('starting Temporal dev server…');
      const temporal: TemporalDevServer = await startTemporalDevServer({
        cliPath: await resolveTemporalCli({ log }),
        dbFile: options.persistent ? path.join(options.varDir, 'temporal', 'temporal.db') : undefined,
        port: options.ports.temporal,
        uiPort: options.ports.temporalUi,
        logFile: path.join(logDir, 'temporal.log'),
      });
      stops.push(() => temporal.stop());
      temporalAddress = temporal.address;
      temporalUiUrl = temporal.uiUrl ?? null;
    }

    log('starting the two-chain devnet…');
    const devnet = await startDevnet({
      chains: DEVNET_CHAINS.map((c, i) => ({ ...c, port: options.ports.chains[i]! })),
      blockTimeMs: options.blockTimeMs ?? 1000,
      logDir,
    });
    stops.push(() => devnet.stop());
    log('starting the Solana devnet…');
    const solana = await startSolanaDevnet({
      port: options.ports.solana,
      // litesvm's state is saved at stop and loaded at start: the dev stack's Solana ledger survives restarts.
      stateFile: options.persistent ? path.join(options.varDir, 'solana', 'state.json') : undefined,
      logFile: path.join(logDir, 'solana.log'),
    });
    stops.push(() => solana.stop());
    log('starting the Tron devnet…');
    // A fresh chain on every start, like the EVM devnets.
    const tron = await startTronDevnet({ port: options.ports.tron, blockTimeMs: options.blockTimeMs ?? 1000, logDir });
    stops.push(() => tron.stop());
    log('starting the Stellar devnet…');
    const stellar = await startStellarDevnet({
      port: options.ports.stellar,
      stateFile: options.persistent ? path.join(options.varDir, 'stellar', 'state.json') : undefined,
      ledgerTimeMs: options.blockTimeMs ?? 1000,
      logFile: path.join(logDir, 'stellar.log'),
    });
    stops.push(() => stellar.stop());
    const chainsFile = path.join(options.varDir, 'chains.json');
    await writeFile(chainsFile, JSON.stringify(devnetRegistry(devnet, solana, tron, stellar), null, 2));

    let mailSink: { smtpUrl: string; url: string } | undefined;
    if (!env.SMTP_URL) {
      log('starting the mail sink…');
      const sink = await startMailSink({ smtpPort: options.ports.mailSink.smtp, httpPort: options.ports.mailSink.http });
      stops.push(() => sink.stop());
      mailSink = sink;
    }

    const processEnv: Record<string, string> = {
      ...(await stackSecrets(options.varDir, options.persistent)),
      ...(mailSink ? { SMTP_URL: mailSink.smtpUrl } : {}),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      PAYRAIL_CHAINS_FILE: chainsFile,
      TREASURY_PRIVATE_KEY: devnet.treasury.privateKey,
      SOLANA_TREASURY_SECRET_KEY: JSON.stringify(solana.treasury.secretKey),
      SOLANA_DEVNET_MINT_AUTHORITIES: JSON.stringify(await solanaMintAuthorities(solana)),
      TRON_TREASURY_PRIVATE_KEY: tron.treasury.privateKey,
      STELLAR_TREASURY_SECRET: stellar.treasury.secret,
      STELLAR_RECEIVING_SECRET: stellar.receiving.secret,
      HTTP_PORT: String(options.ports.http),
      ...definedEntries(env),
    };
    const apiConfig = loadConfig(processEnv);

    const knex = createKnex(databaseUrl, { max: 2 });
    let demoMerchant: DemoMerchant;
    try {
      await migrateLatest(knex);
      // The devnet chains start from block 0 on every run: their nonces and watcher cursors start over too.
      const freshChains = [...devnet.chains.map((c) => c.chainId), TRON_CHAIN_ID];
      await resetSignerNonces({ knex, chainIds: freshChains });
      await deleteChainCursors({ knex, chainIds: freshChains });
      demoMerchant = await seedDemoMerchant({
        knex,
        apiKeyPrefix: apiConfig.apiKeyPrefix,
        payout: { chainId: 8453, tokenSymbol: 'USDC', address: devnet.merchantPayout.address },
        keys: options.persistent ? await previousDemoKeys(options.varDir) : undefined,
      });
    } finally {
      await knex.destroy();
    }

    log('starting the API…');
    const api = await startApi(apiConfig);
    stops.push(() => api.close());
    // Workers link callbacks and receipts to the hosted page: they learn where the API really listens.
    processEnv.PUBLIC_BASE_URL = api.publicBaseUrl;
    const config = loadConfig(processEnv);

    let worker: RunningWorker | undefined;
    if (options.worker) {
      log('starting the worker…');
      const running = await startWorker(config, {});
      stops.push(() => running.shutdown());
      worker = running;
    }

    const base = api.publicBaseUrl;
    const info: DevStackInfo = {
      paymentApiUrl: `${base}${PAYMENT_API_PREFIX}`,
      merchantApiUrl: `${base}${MERCHANT_API_PREFIX}`,
      legacyApiUrl: base,
      dashboardUrl: `${base}/dashboard`,
      temporalAddress,
      temporalUiUrl,
      mailSinkUrl: mailSink?.url ?? null,
      chains: [
        ...devnet.chains.map((c) => ({ family: 'evm' as const, chainId: c.chainId, name: c.name, rpcUrl: c.rpcUrl, tokens: c.tokens, multiSend: c.multiSend })),
        { family: 'solana', chainId: SOLANA_CHAIN_ID, name: SOLANA_NAME, rpcUrl: solana.rpcUrl, wsUrl: solana.wsUrl, tokens: solana.mints },
        { family: 'tron', chainId: TRON_CHAIN_ID, name: TRON_NAME, rpcUrl: tron.fullHost, tokens: tron.tokens },
        {
          family: 'stellar',
          chainId: STELLAR_CHAIN_ID,
          name: STELLAR_NAME,
          rpcUrl: stellar.horizonUrl,
          networkPassphrase: stellar.networkPassphrase,
          receivingAccount: stellar.receiving.publicKey,
          tokens: { USDC: stellarUsdc(stellar) },
        },
      ],
      customer: {
        ...devnet.customer,
        solana: solana.customer,
        tron: tron.customer,
        stellar: { secret: stellar.customer.secret, address: stellar.customer.publicKey },
      },
      demoMerchant,
    };
    await writeFile(path.join(options.varDir, 'dev-stack.json'), JSON.stringify(info, null, 2), { mode: 0o600 });
    return { info, config, env: processEnv, devnet, solana, tron, stellar, api, worker, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The chain registry for the devnet: 2 confirmations so a reorg can be staged, finality at 4. */
function devnetRegistry(devnet: Devnet, solana: SolanaDevnet, tron: TronDevnet, stellar: StellarDevnet): ChainRegistryFile {
  return {
    chains: [...devnet.chains.map((c) => ({
      family: 'evm' as const,
      chainId: c.chainId,
      name: c.name,
      rpcUrl: c.rpcUrl,
      confirmations: 2,
      finalityDepth: 4,
      pollIntervalMs: 500,
      depositFactory: c.depositFactory,
      forwarderInitCodeHash: c.forwarderInitCodeHash,
      bridge: c.bridge,
      tokens: {
        USDC: { ...c.tokens.USDC, usdPegged: true },
        USDT: { ...c.tokens.USDT, usdPegged: true },
        CUSD: { ...c.tokens.CUSD, usdPegged: true },
      },
      // Legacy orders: native ETH priced by the devnet's ETH/USD feed (never updated, so a long age is allowed),
      // and the mainnet entries of the currency table that the two devnet chains stand in for.
      nativeCurrency: { symbol: 'ETH', decimals: 18, usdPriceFeed: c.priceFeeds.ETH_USD, maxPriceAgeSeconds: 7 * 24 * 3600 },
      servesChainIds: DEVNET_STAND_INS[c.chainId] ?? [],
    })),
    {
      family: 'solana',
      chainId: SOLANA_CHAIN_ID,
      name: SOLANA_NAME,
      rpcUrl: solana.rpcUrl,
      // One confirmed slot on top; finalized as the devnet finalizes (4 slots deep).
      confirmations: 1,
      finalityDepth: 4,
      pollIntervalMs: 500,
      tokens: {
        USDC: { ...solana.mints.USDC, usdPegged: true },
        PYUSD: { ...solana.mints.PYUSD, usdPegged: true },
      },
      bridge: 'devnet-mint-authority',
    },
    {
      family: 'tron',
      chainId: TRON_CHAIN_ID,
      name: TRON_NAME,
      rpcUrl: tron.fullHost,
      // Solidified as the devnet solidifies.
      confirmations: 1,
      finalityDepth: tron.solidityDepth,
      pollIntervalMs: 500,
      tokens: { USDT: { ...tron.tokens.USDT, usdPegged: true } },
      // The devnet burns a flat fee per contract call; the top-up covers it with room to spare.
      sweepTopUpSun: Number(tron.contractCallFeeSun) * 2,
      feeLimitSun: Number(tron.contractCallFeeSun) * 2,
    },
    {
      family: 'stellar',
      chainId: STELLAR_CHAIN_ID,
      name: STELLAR_NAME,
      rpcUrl: stellar.horizonUrl,
      networkPassphrase: stellar.networkPassphrase,
      receivingAccount: stellar.receiving.publicKey,
      // A closed ledger is final.
      confirmations: 1,
      finalityDepth: 1,
      pollIntervalMs: 500,
      tokens: { USDC: { ...stellarUsdc(stellar), usdPegged: true } },
    }],
  };
}

const SOLANA_NAME = 'Solana (devnet)';
const TRON_NAME = 'Tron (devnet)';
const STELLAR_NAME = 'Stellar (devnet)';

const stellarUsdc = (stellar: StellarDevnet) => ({ address: `${stellar.assets.USDC.code}:${stellar.assets.USDC.issuer}`, decimals: stellar.assets.USDC.decimals });

/** The devnet bridge stand-in mints on Solana with the devnet mints' authorities (fixed devnet keys). */
async function solanaMintAuthorities(solana: SolanaDevnet): Promise<Record<string, number[]>> {
  const usdc = await devnetKey('usdc-authority');
  const pyusd = await devnetKey('pyusd-authority');
  return { [solana.mints.USDC.address]: Array.from(usdc.secretKey), [solana.mints.PYUSD.address]: Array.from(pyusd.secretKey) };
}

/** Devnet chain → the mainnet chains of the legacy currency table it serves (docs/legacy-orders.md). */
const DEVNET_STAND_INS: Record<number, number[]> = { 42161: [1, 56], 8453: [137, 42220] };

async function previousDemoKeys(varDir: string): Promise<{ ordersKey: string; adminKey: string } | undefined> {
  const file = path.join(varDir, 'dev-stack.json');
  if (!existsSync(file)) return undefined;
  const previous = JSON.parse(await readFile(file, 'utf8')) as Partial<DevStackInfo>;
  return previous.demoMerchant;
}

type StackSecrets = Record<'PAYRAIL_JWT_SECRET' | 'PAYRAIL_SECRETS_KEY' | 'SOLANA_DEPOSIT_SEED' | 'TRON_DEPOSIT_SEED', string>;

/**
 * The JWT, secret-sealing and Solana and Tron deposit-seed keys of the dev stack: kept in `var/` (0600) so sessions, secrets
 * and deposit addresses survive restarts. A file from before a key existed gains it.
 */
async function stackSecrets(varDir: string, persistent: boolean): Promise<StackSecrets> {
  const file = path.join(varDir, 'secrets.json');
  const kept = persistent && existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as Partial<StackSecrets>) : {};
  const secrets: StackSecrets = {
    PAYRAIL_JWT_SECRET: kept.PAYRAIL_JWT_SECRET ?? randomBytes(32).toString('hex'),
    PAYRAIL_SECRETS_KEY: kept.PAYRAIL_SECRETS_KEY ?? randomBytes(32).toString('hex'),
    SOLANA_DEPOSIT_SEED: kept.SOLANA_DEPOSIT_SEED ?? randomBytes(32).toString('hex'),
    TRON_DEPOSIT_SEED: kept.TRON_DEPOSIT_SEED ?? randomBytes(32).toString('hex'),
  };
  if (persistent) await writeFile(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}

function definedEntries(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/**
 * A stack that leaves nothing behind and disturbs nothing: data in a fresh temporary directory, every port free
 * (the API and mail sink bind port 0 and report where they listen). For tests and benchmarks.
 */
export async function startThrowawayStack(options: { name: string; blockTimeMs: number; env: NodeJS.ProcessEnv }): Promise<Stack> {
  return startStack({
    varDir: await mkdtemp(path.join(tmpdir(), `payrail-${options.name}-`)),
    persistent: false,
    worker: true,
    blockTimeMs: options.blockTimeMs,
    ports: {
      http: 0,
      postgres: await freePort(),
      temporal: await freePort(),
      chains: [await freePort(), await freePort()],
      solana: await freePort(),
      tron: await freePort(),
      stellar: await freePort(),
      mailSink: { smtp: 0, http: 0 },
    },
    env: options.env,
  });
}
