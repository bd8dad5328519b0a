import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureWebBuilt } from '../build-web';
import type { ChainRegistryFile } from '../../chains/registry';
import { DEVNET_FAMILIES, type DevnetPorts, type DevStackChain, type DevStackCustomers, type RunningDevnets } from '../devnets/families';
import type { RunningDevnet, UsdPriceFeeds } from '../devnets/family';
import { createKnex, migrateLatest } from '../../db/connection';
import { deleteChainCursors } from '../../db/queries/chain-cursors';
import { resetSignerNonces } from '../../db/queries/chain-txs';
import { loadConfig, type AppConfig } from '../../lib/config';
import { depositVariablesOf, loadChains, withoutSigningVariables } from '../../services/chains';
import { recordGenesisFunding } from '../../services/ledger';
import { SecretBox } from '../../lib/secrets';
import { startApi, type RunningApi } from '../../api/server';
import { MERCHANT_API_PREFIX, PAYMENT_API_PREFIX } from '../../api/app';
import { startWorker, type RunningWorker } from '../../workers/main';
import { devStackInfoFile } from './launch';
import { startMailSink } from './mail-sink';
import { freePort, startOnPort } from './ports';
import { startEmbeddedPostgres } from './postgres';
import { startTemporalDevServer } from './temporal';
import { resolveTemporalCli } from '../provision/temporal-cli';
import { seedDemoMerchant, type DemoMerchant } from './seed-demo';

export type { DevStackChain };

export interface StackOptions {
  /** Data, logs and generated config live here. */
  varDir: string;
  /** Keep PostgreSQL data, Temporal history and the devnets that can keep theirs in `varDir` across runs (the dev stack); tests start clean. */
  persistent: boolean;
  /**
   * 0 for any free port. The API, the mail sink and the devnets bind port 0 themselves and report where they listen;
   * PostgreSQL and Temporal cannot, so they get a probed port and start again on another should it be taken first.
   */
  ports: {
    http: number;
    postgres: number;
    temporal: number;
    temporalUi?: number;
    /** Each devnet's ports by family (tools/devnets/families.ts); absent: any free ones. */
    devnets?: DevnetPorts;
    /** The local mail sink's SMTP and HTTP ports (unused when `SMTP_URL` selects a real mail server). */
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

/** One family's devnet chain of the stack. */
export type StackChain<F extends DevStackChain['family']> = Extract<DevStackChain, { family: F }>;

/** The stack's devnet chain of a family (its one Solana, TON, Tron or Stellar chain; the first EVM chain). */
export function stackChain<F extends DevStackChain['family']>(info: DevStackInfo, family: F): StackChain<F> {
  const chain = info.chains.find((c): c is StackChain<F> => c.family === family);
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
  /** Every devnet's chains, family by family. */
  chains: DevStackChain[];
  /**
   * The customer wallet funded on every devnet, by family: an EVM key, a Solana key (64-byte secret, seed then
   * public key), a TON wallet v5r1 (24-word mnemonic), a Tron key (hex) and a Stellar secret.
   */
  customer: DevStackCustomers;
  demoMerchant: DemoMerchant;
}

export interface Stack {
  info: DevStackInfo;
  /** The worker's configuration (the API's is the same without its signing keys). */
  config: AppConfig;
  /** The environment a separately started worker needs to join this stack. */
  env: Record<string, string>;
  /** What a separately started API process needs: `env` without any signing key (chains/adapters.ts). */
  apiEnv: Record<string, string>;
  /** Each family's devnet (the EVM one with its bridges: tests stop and start the attestation service). */
  devnets: RunningDevnets;
  /** The API in this process, unless `api: false`. */
  api?: RunningApi;
  /** Origin of payment links: where the API listens. */
  publicBaseUrl: string;
  worker?: RunningWorker;
  stop(): Promise<void>;
}

/**
 * Starts the whole system: PostgreSQL, Temporal, every family's devnet (tools/devnets/families.ts; the EVM one with
 * its bridges), the mail sink, the worker and the API.
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
    // The API serves the dashboard and the pay page's wallet script from their builds: made here when missing or older than their sources.
    await ensureWebBuilt(log);
    let databaseUrl = env.DATABASE_URL;
    if (!databaseUrl) {
      log('starting PostgreSQL (embedded)…');
      const dataDir = path.join(options.varDir, 'postgres');
      const pg = await startOnPort(options.ports.postgres, (port) => startEmbeddedPostgres({ dataDir, port, logFile: path.join(logDir, 'postgres.log') }));
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
      const cliPath = await resolveTemporalCli({ log });
      const temporal = await startOnPort(options.ports.temporal, (port) =>
        startTemporalDevServer({
          cliPath,
          dbFile: options.persistent ? path.join(options.varDir, 'temporal', 'temporal.db') : undefined,
          port,
          uiPort: options.ports.temporalUi,
          logFile: path.join(logDir, 'temporal.log'),
        }),
      );
      stops.push(() => temporal.stop());
      temporalAddress = temporal.address;
      temporalUiUrl = temporal.uiUrl ?? null;
    }

    const devnets: Record<string, RunningDevnet> = {};
    for (const family of DEVNET_FAMILIES) {
      log(`starting the ${family.family} devnet…`);
      const devnet = await family.start({
        ports: options.ports.devnets?.[family.family] ?? family.ports.map(() => 0),
        blockTimeMs: options.blockTimeMs ?? 1000,
        logDir,
        varDir: options.varDir,
        persistent: options.persistent,
      });
      stops.push(() => devnet.stop());
      devnets[family.family] = devnet;
    }
    const running = Object.values(devnets);
    const chainsFile = path.join(options.varDir, 'chains.json');
    await writeFile(chainsFile, JSON.stringify(devnetRegistry(running), null, 2));

    let mailSink: { smtpUrl: string; url: string } | undefined;
    if (!env.SMTP_URL) {
      log('starting the mail sink…');
      const sink = await startMailSink({ smtpPort: options.ports.mailSink.smtp, httpPort: options.ports.mailSink.http });
      stops.push(() => sink.stop());
      mailSink = sink;
    }

    const secrets = await stackSecrets(options.varDir, options.persistent);
    const processEnv: Record<string, string> = {
      ...secrets,
      // The public deposit keys that follow from the generated seeds (Tron's deposit account xpub), for the API.
      ...depositVariablesOf(secrets),
      ...(mailSink ? { SMTP_URL: mailSink.smtpUrl, DEV_MAIL_SINK_URL: mailSink.url } : {}),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      PAYRAIL_CHAINS_FILE: chainsFile,
      ...Object.fromEntries(running.flatMap((d) => Object.entries(d.env))),
      HTTP_PORT: String(options.ports.http),
      ...(temporalUiUrl ? { TEMPORAL_UI_URL: temporalUiUrl } : {}),
      ...definedEntries(env),
    };
    // The API holds no signing key (api/server.ts refuses to start with one), here as in production.
    const apiConfig = loadConfig(withoutSigningVariables(processEnv));

    const demoPayout = running.find((d) => d.demoPayout)?.demoPayout;
    if (!demoPayout) throw new Error('no devnet provides the demo merchant a payout wallet');
    const knex = createKnex(databaseUrl, { max: 2 }, { secrets: new SecretBox(processEnv.PAYRAIL_SECRETS_KEY!) });
    let demoMerchant: DemoMerchant;
    try {
      await migrateLatest(knex);
      // Devnet chains that start from block 0 on every run: their nonces and watcher cursors start over too.
      const freshChains = running.flatMap((d) => d.freshChainIds);
      await resetSignerNonces({ knex, chainIds: freshChains });
      await deleteChainCursors({ knex, chainIds: freshChains });
      // What the devnets gave each treasury is the operator's funding: the books balance from the start.
      const chains = loadChains(loadConfig(processEnv), 'worker');
      try {
        await recordGenesisFunding({ knex, chains });
      } finally {
        chains.destroy();
      }
      demoMerchant = await seedDemoMerchant({
        knex,
        apiKeyPrefix: apiConfig.apiKeyPrefix,
        payout: demoPayout,
        keys: options.persistent ? await previousDemoKeys(options.varDir) : undefined,
      });
    } finally {
      await knex.destroy();
    }

    let api: RunningApi | undefined;
    if (options.api ?? true) {
      log('starting the API…');
      const started = await startApi(apiConfig);
      stops.push(() => started.close());
      api = started;
    }
    // Workers link callbacks and receipts to the hosted page: they learn where the API really listens.
    const publicBaseUrl = api?.publicBaseUrl ?? apiConfig.http.publicBaseUrl;
    if (!publicBaseUrl) throw new Error('without an API in this process, ports.http (or PUBLIC_BASE_URL) must be given');
    processEnv.PUBLIC_BASE_URL = publicBaseUrl;
    const config = loadConfig(processEnv);

    let worker: RunningWorker | undefined;
    if (options.worker) {
      log('starting the worker…');
      const started = await startWorker(config, {});
      stops.push(() => started.shutdown());
      worker = started;
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
      chains: running.flatMap((d) => d.chains) as DevStackChain[],
      customer: Object.fromEntries(Object.entries(devnets).map(([family, d]) => [family, d.customer])) as DevStackCustomers,
      demoMerchant,
    };
    await writeFile(devStackInfoFile(options.varDir), JSON.stringify(info, null, 2), { mode: 0o600 });
    return { info, config, env: processEnv, apiEnv: withoutSigningVariables(processEnv), devnets: devnets as RunningDevnets, api, publicBaseUrl, worker, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The chains file of the devnets: every devnet's entries, each priced by the feeds any devnet serves. */
function devnetRegistry(devnets: RunningDevnet[]): ChainRegistryFile {
  const feeds: UsdPriceFeeds = Object.fromEntries(devnets.flatMap((d) => Object.entries(d.usdPriceFeeds ?? {})));
  return { chains: devnets.flatMap((d) => d.registryEntries(feeds)) };
}

async function previousDemoKeys(varDir: string): Promise<{ ordersKey: string; adminKey: string } | undefined> {
  const file = devStackInfoFile(varDir);
  if (!existsSync(file)) return undefined;
  const previous = JSON.parse(await readFile(file, 'utf8')) as Partial<DevStackInfo>;
  return previous.demoMerchant;
}

/** The variables the stack generates: its own secrets, and each devnet family's deposit seeds (worker only). */
const GENERATED_SECRETS = ['PAYRAIL_JWT_SECRET', 'PAYRAIL_SECRETS_KEY', ...DEVNET_FAMILIES.flatMap((f) => f.depositSeeds)];

/**
 * The JWT, secret-sealing and deposit-seed keys of the dev stack, 32 random bytes each: kept in `var/` (0600) so
 * sessions, secrets and deposit addresses survive restarts. A file from before a key existed gains it.
 */
async function stackSecrets(varDir: string, persistent: boolean): Promise<Record<string, string>> {
  const file = path.join(varDir, 'secrets.json');
  const kept = persistent && existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as Record<string, string>) : {};
  const secrets = Object.fromEntries(GENERATED_SECRETS.map((name) => [name, kept[name] ?? randomBytes(32).toString('hex')]));
  if (persistent) await writeFile(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}

function definedEntries(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/**
 * A stack that leaves nothing behind and disturbs nothing: data in a fresh temporary directory, every port free
 * (bound by what listens on it, or probed for PostgreSQL and Temporal). For tests and benchmarks.
 */
export async function startThrowawayStack(options: { name: string; blockTimeMs: number; env: NodeJS.ProcessEnv; worker?: boolean; api?: boolean }): Promise<Stack> {
  const api = options.api ?? true;
  return startStack({
    varDir: await mkdtemp(path.join(tmpdir(), `payrail-${options.name}-`)),
    persistent: false,
    worker: options.worker ?? true,
    api,
    blockTimeMs: options.blockTimeMs,
    // Without an API here the caller starts one on `http` (the stack's URLs name it), so it needs a port now.
    ports: { http: api ? 0 : await freePort(), postgres: 0, temporal: 0, mailSink: { smtp: 0, http: 0 } },
    env: options.env,
  });
}
