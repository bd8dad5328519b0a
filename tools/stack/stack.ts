import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Address } from '@ton/core';
import { ensureDashboardBuilt } from '../build-dashboard';
import type { CctpConfig, ChainRegistryFile, OftConfig } from '../../chains/registry';
import { lzReceiveOption } from '../../chains/bridges/oft';
import { deployDevnetBridges, type DevnetBridges } from '../devnets/bridges/deploy';
import { startDevnet, type Devnet } from '../devnets/evm/devnet';
import { startSolanaDevnet, type SolanaDevnet } from '../devnets/solana';
import { devnetKey } from '../devnets/solana/keys';
import { startTonDevnet, type TonDevnet } from '../devnets/ton';
import { tonSecretKeyHex } from '../../chains/ton/wallets';
import { startStellarDevnet, type StellarDevnet } from '../devnets/stellar';
import { startTronDevnet, type TronDevnet } from '../devnets/tron';
import { createKnex, migrateLatest } from '../../db/connection';
import { deleteChainCursors } from '../../db/queries/chain-cursors';
import { resetSignerNonces } from '../../db/queries/chain-txs';
import { loadConfig, type AppConfig } from '../../lib/config';
import { SecretBox } from '../../lib/secrets';
import { startApi, type RunningApi } from '../../api/server';
import { MERCHANT_API_PREFIX, PAYMENT_API_PREFIX } from '../../api/app';
import { startWorker, type RunningWorker } from '../../workers/main';
import { devStackInfoFile } from './launch';
import { startMailSink } from './mail-sink';
import { freePort } from './ports';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './postgres';
import { startTemporalDevServer, type TemporalDevServer } from './temporal';
import { resolveTemporalCli } from '../provision/temporal-cli';
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
    /** The devnet's stand-in for Circle's attestation service (Iris); 0 or absent for any free one. */
    iris?: number;
    /** The Solana devnet's JSON-RPC (and websocket) port. */
    solana: number;
    /** The TON devnet's toncenter front. */
    ton: number;
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
  /**
   * Run the API inside this process (default). Without it (the production topology runs API processes of its own),
   * nothing listens on `ports.http` until the caller starts an API there.
   */
  api?: boolean;
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

/** One of the stack's chains. */
export type DevStackChain = DevStackInfo['chains'][number];

/** The stack's devnet chain of a family (its one Solana, TON, Tron or Stellar chain; the first EVM chain). */
export function stackChain<F extends DevStackChain['family']>(info: DevStackInfo, family: F): Extract<DevStackChain, { family: F }> {
  const chain = info.chains.find((c): c is Extract<DevStackChain, { family: F }> => c.family === family);
  if (!chain) throw new Error(`the stack has no ${family} devnet`);
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
  chains: Array<DevStackEvmChain | DevStackSolanaChain | DevStackTonChain | DevStackTronChain | DevStackStellarChain>;
  /**
   * Funded on every devnet: an EVM key, a Solana key (64-byte secret, seed then public key), a TON wallet v5r1
   * (24-word mnemonic), a Tron key (hex) and a Stellar secret.
   */
  customer: {
    privateKey: string;
    address: string;
    solana: { secretKey: number[]; address: string };
    ton: { mnemonic: string[] };
    tron: { privateKey: string; address: string };
    stellar: { secret: string; address: string };
  };
  demoMerchant: DemoMerchant;
}

/** TON: `rpcUrl` is toncenter v2 (`new TonClient({ endpoint: rpcUrl })`); `tokens.USDT.address` is the jetton master (raw form). */
export interface DevStackTonChain {
  family: 'ton';
  chainId: number;
  name: string;
  rpcUrl: string;
  tokens: { USDT: { address: string; decimals: number } };
  nativeCurrency: { symbol: 'TON'; decimals: 9 };
}

/** The TON devnet's chain id: TON's SLIP-44 coin type (docs/chains.md). */
export const TON_DEVNET_CHAIN = { chainId: 607, name: 'TON (devnet)' } as const;

export interface Stack {
  info: DevStackInfo;
  config: AppConfig;
  /** The environment a separately started worker or API process needs to join this stack. */
  env: Record<string, string>;
  devnet: Devnet;
  /** The devnet's CCTP and OFT deployments, with the attestation service and relayer (tests stop and start them). */
  bridges: DevnetBridges;
  solana: SolanaDevnet;
  tonDevnet: TonDevnet;
  tron: TronDevnet;
  stellar: StellarDevnet;
  /** The API in this process, unless `api: false`. */
  api?: RunningApi;
  /** Origin of payment links: where the API listens. */
  publicBaseUrl: string;
  worker?: RunningWorker;
  stop(): Promise<void>;
}

/**
 * Starts the whole system: PostgreSQL, Temporal, the two-chain devnet with its bridges (CCTP v2 and the Iris
 * stand-in, LayerZero OFT and its relayer), the mail sink, the worker and the API.
 */
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
    // The API serves the dashboard from its build: made here when missing or older than its sources.
    await ensureDashboardBuilt(log);
    let databaseUrl = env.DATABASE_URL;
    if (!databaseUrl) {
      log('starting PostgreSQL (embedded)…');
      const dataDir = path.join(options.varDir, 'postgres');
      const pg: EmbeddedPostgresHandle = await startEmbeddedPostgres({ dataDir, port: options.ports.postgres, logFile: path.join(logDir, 'postgres.log') });
      stops.push(async () => {
        await pg.stop();
        // A throwaway stack's data (tens to hundreds of MB) goes with it, its logs stay: a test run starts dozens.
        if (!options.persistent) await rm(dataDir, { recursive: true, force: true });
      });
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
    log('starting the TON devnet…');
    await mkdir(path.join(options.varDir, 'devnet'), { recursive: true });
    const tonDevnet = await startTonDevnet({
      port: options.ports.ton,
      // The dev stack keeps its TON chain across restarts; tests start from genesis.
      stateFile: options.persistent ? path.join(options.varDir, 'devnet', 'ton.json') : undefined,
      blockTimeMs: options.blockTimeMs ?? 1000,
      logFile: path.join(logDir, 'ton.log'),
    });
    stops.push(() => tonDevnet.stop());
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
    log('deploying the bridges (CCTP v2 with its attestation service, LayerZero OFT with its relayer)…');
    const [home, other] = devnet.chains.map((c) => ({ chainId: c.chainId, rpcUrl: c.rpcUrl, usdc: c.tokens.USDC.address, usdt: c.tokens.USDT.address }));
    if (!home || !other) throw new Error('the devnet bridges need two chains');
    const bridges = await deployDevnetBridges({ chains: [home, other], treasuryKey: devnet.treasury.privateKey, attestation: { port: options.ports.iris } });
    stops.push(() => bridges.stop());
    const chainsFile = path.join(options.varDir, 'chains.json');
    await writeFile(chainsFile, JSON.stringify(devnetRegistry(devnet, bridges, solana, tonDevnet, tron, stellar), null, 2));

    let mailSink: { smtpUrl: string; url: string } | undefined;
    if (!env.SMTP_URL) {
      log('starting the mail sink…');
      const sink = await startMailSink({ smtpPort: options.ports.mailSink.smtp, httpPort: options.ports.mailSink.http });
      stops.push(() => sink.stop());
      mailSink = sink;
    }

    const processEnv: Record<string, string> = {
      ...(await stackSecrets(options.varDir, options.persistent)),
      ...(mailSink ? { SMTP_URL: mailSink.smtpUrl, DEV_MAIL_SINK_URL: mailSink.url } : {}),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      PAYRAIL_CHAINS_FILE: chainsFile,
      TREASURY_PRIVATE_KEY: devnet.treasury.privateKey,
      SOLANA_TREASURY_SECRET_KEY: JSON.stringify(solana.treasury.secretKey),
      SOLANA_DEVNET_MINT_AUTHORITIES: JSON.stringify(await solanaMintAuthorities(solana)),
      TON_TREASURY_SECRET_KEY: await tonSecretKeyHex(tonDevnet.treasury.mnemonic),
      TRON_TREASURY_PRIVATE_KEY: tron.treasury.privateKey,
      STELLAR_TREASURY_SECRET: stellar.treasury.secret,
      STELLAR_RECEIVING_SECRET: stellar.receiving.secret,
      HTTP_PORT: String(options.ports.http),
      ...(temporalUiUrl ? { TEMPORAL_UI_URL: temporalUiUrl } : {}),
      ...definedEntries(env),
    };
    const apiConfig = loadConfig(processEnv);

    const knex = createKnex(databaseUrl, { max: 2 }, { secrets: new SecretBox(processEnv.PAYRAIL_SECRETS_KEY!) });
    let demoMerchant: DemoMerchant;
    try {
      await migrateLatest(knex);
      // The EVM and Tron devnet chains start from block 0 on every run: their nonces and watcher cursors start over too.
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

    let api: RunningApi | undefined;
    if (options.api ?? true) {
      log('starting the API…');
      const running = await startApi(apiConfig);
      stops.push(() => running.close());
      api = running;
    }
    // Workers link callbacks and receipts to the hosted page: they learn where the API really listens.
    const publicBaseUrl = api?.publicBaseUrl ?? apiConfig.http.publicBaseUrl;
    if (!publicBaseUrl) throw new Error('without an API in this process, ports.http (or PUBLIC_BASE_URL) must be given');
    processEnv.PUBLIC_BASE_URL = publicBaseUrl;
    const config = loadConfig(processEnv);

    let worker: RunningWorker | undefined;
    if (options.worker) {
      log('starting the worker…');
      const running = await startWorker(config, {});
      stops.push(() => running.shutdown());
      worker = running;
    }

    const base = publicBaseUrl;
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
        { family: 'ton', ...TON_DEVNET_CHAIN, rpcUrl: tonDevnet.endpoint, tokens: { USDT: { address: Address.parse(tonDevnet.jettons.USDT.master).toRawString(), decimals: tonDevnet.jettons.USDT.decimals } }, nativeCurrency: { symbol: 'TON', decimals: 9 } },
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
        ton: { mnemonic: tonDevnet.customer.mnemonic },
        tron: tron.customer,
        stellar: { secret: stellar.customer.secret, address: stellar.customer.publicKey },
      },
      demoMerchant,
    };
    await writeFile(devStackInfoFile(options.varDir), JSON.stringify(info, null, 2), { mode: 0o600 });
    return { info, config, env: processEnv, devnet, bridges, solana, tonDevnet, tron, stellar, api, publicBaseUrl, worker, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The chain registry for the devnets. EVM: 2 confirmations so a reorg can be staged, finality at 4. TON: a block
 * is final once in the masterchain, so one block is both. Tron: solidified at the devnet's solidity depth; Stellar:
 * a closed ledger is final.
 */
function devnetRegistry(devnet: Devnet, bridges: DevnetBridges, solana: SolanaDevnet, ton: TonDevnet, tron: TronDevnet, stellar: StellarDevnet): ChainRegistryFile {
  const feedChain = devnet.chains.find((c) => c.chainId === 42161)!;
  const tonChain = {
    family: 'ton' as const,
    ...TON_DEVNET_CHAIN,
    rpcUrl: ton.endpoint,
    v3Url: ton.apiV3,
    confirmations: 1,
    finalityDepth: 1,
    pollIntervalMs: 500,
    tokens: { USDT: { address: ton.jettons.USDT.master, decimals: ton.jettons.USDT.decimals, usdPegged: true } },
    // Priced by the devnet's TON/USD feed on the EVM devnet's Arbitrum (never updated, so a long age is allowed).
    nativeCurrency: { symbol: 'TON', decimals: 9, usdPriceFeed: feedChain.priceFeeds.TON_USD, usdPriceFeedChainId: feedChain.chainId, maxPriceAgeSeconds: 7 * 24 * 3600 },
  };
  return {
    chains: [...devnet.chains.map((c, i) => ({
      family: 'evm' as const,
      chainId: c.chainId,
      name: c.name,
      rpcUrl: c.rpcUrl,
      confirmations: 2,
      finalityDepth: 4,
      pollIntervalMs: 500,
      replaceAfterBlocks: 3,
      depositFactory: c.depositFactory,
      forwarderInitCodeHash: c.forwarderInitCodeHash,
      cctp: devnetCctp(bridges, i),
      oft: { USDT: devnetOft(bridges, i) },
      tokens: {
        // 0.01 of a stablecoin: smaller payins that cannot count are held rather than refunded at a loss.
        USDC: { ...c.tokens.USDC, usdPegged: true, dustUnits: '10000' },
        USDT: { ...c.tokens.USDT, usdPegged: true, dustUnits: '10000' },
        CUSD: { ...c.tokens.CUSD, usdPegged: true, dustUnits: '10000' },
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
    tonChain,
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

/** CCTP v2 on devnet chain `i`: our contracts, attested by the local Iris stand-in, fast transfers. */
function devnetCctp(bridges: DevnetBridges, i: number): CctpConfig {
  const chain = bridges.cctp.chains[i];
  if (!chain) throw new Error(`no CCTP deployment on devnet chain ${i}`);
  return { domain: chain.domain, tokenMessenger: chain.tokenMessenger, messageTransmitter: chain.messageTransmitter, irisBaseUrl: bridges.cctp.irisUrl, finality: 'fast', expectedSeconds: 5 };
}

/** USDT's OFT on devnet chain `i` (the lock adapter on the first chain, mint/burn on the second), relayed by ours. */
function devnetOft(bridges: DevnetBridges, i: number): OftConfig {
  const chain = bridges.oft.chains[i];
  if (!chain) throw new Error(`no OFT deployment on devnet chain ${i}`);
  // SimpleMessageLib enforces no executor options; 200k gas covers the OFT's lzReceive (a mint or an unlock).
  return { eid: chain.eid, oft: chain.oft, extraOptions: lzReceiveOption(200_000n), expectedSeconds: 5 };
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
  const file = devStackInfoFile(varDir);
  if (!existsSync(file)) return undefined;
  const previous = JSON.parse(await readFile(file, 'utf8')) as Partial<DevStackInfo>;
  return previous.demoMerchant;
}

type StackSecrets = Record<'PAYRAIL_JWT_SECRET' | 'PAYRAIL_SECRETS_KEY' | 'SOLANA_DEPOSIT_SEED' | 'TON_DEPOSIT_SEED' | 'TRON_DEPOSIT_SEED', string>;

/**
 * The JWT, secret-sealing and Solana, TON and Tron deposit-seed keys of the dev stack: kept in `var/` (0600) so sessions, secrets
 * and deposit addresses survive restarts. A file from before a key existed gains it.
 */
async function stackSecrets(varDir: string, persistent: boolean): Promise<StackSecrets> {
  const file = path.join(varDir, 'secrets.json');
  const kept = persistent && existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as Partial<StackSecrets>) : {};
  const secrets: StackSecrets = {
    PAYRAIL_JWT_SECRET: kept.PAYRAIL_JWT_SECRET ?? randomBytes(32).toString('hex'),
    PAYRAIL_SECRETS_KEY: kept.PAYRAIL_SECRETS_KEY ?? randomBytes(32).toString('hex'),
    SOLANA_DEPOSIT_SEED: kept.SOLANA_DEPOSIT_SEED ?? randomBytes(32).toString('hex'),
    TON_DEPOSIT_SEED: kept.TON_DEPOSIT_SEED ?? randomBytes(32).toString('hex'),
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
export async function startThrowawayStack(options: { name: string; blockTimeMs: number; env: NodeJS.ProcessEnv; worker?: boolean; api?: boolean }): Promise<Stack> {
  const api = options.api ?? true;
  return startStack({
    varDir: await mkdtemp(path.join(tmpdir(), `payrail-${options.name}-`)),
    persistent: false,
    worker: options.worker ?? true,
    api,
    blockTimeMs: options.blockTimeMs,
    ports: {
      // Without an API here the caller starts one on this port (the stack's URLs name it).
      http: api ? 0 : await freePort(),
      postgres: await freePort(),
      temporal: await freePort(),
      chains: [await freePort(), await freePort()],
      solana: await freePort(),
      ton: 0,
      tron: await freePort(),
      stellar: await freePort(),
      mailSink: { smtp: 0, http: 0 },
    },
    env: options.env,
  });
}
