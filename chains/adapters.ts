import type { BridgeEndpoint, BridgeEndpoints } from './bridges/endpoint';
import { CHAIN_FAMILIES, chainFamily } from './families';
import type { ChainAdapter, ChainFamily } from './family';
import { HeadWatch } from './head-watch';
import { RecentReads, SHARED_READ_MAX_AGE_MS } from './recent-reads';
import { ChainRegistry, type ChainConfig } from './registry';

/** What each family's environment schemas made of the environment, by family id (chains/family.ts `FamilyEnv`). */
export type ChainKeys = Readonly<Record<string, Record<string, unknown>>>;

/**
 * The keys a process holds: a worker signs (`worker`: each family's signing and deposit keys); the API and the
 * read-only scripts only make deposit addresses from public data (`deposits`), so they never hold a key that moves
 * money.
 */
export type KeyRole = 'worker' | 'deposits';

/** Every family's signing variables (treasury keys, deposit seeds): what only a worker may hold. */
const SIGNING_VARIABLES: ReadonlySet<string> = new Set(CHAIN_FAMILIES.flatMap((family) => Object.keys(family.env.signing.shape)));

/** The signing variables `env` holds (set to anything): an API process must hold none. */
export const signingVariablesIn = (env: Readonly<NodeJS.ProcessEnv>): string[] =>
  Object.keys(env).filter((name) => SIGNING_VARIABLES.has(name) && env[name] !== undefined);

/** `env` without any signing variable: the environment an API process is given. */
export const withoutSigningVariables = (env: Readonly<NodeJS.ProcessEnv>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && !SIGNING_VARIABLES.has(e[0])));

/**
 * The `deposits` variables that follow from the signing variables in `env` (chains/family.ts `depositKeysOf`): what a
 * deployment's API is given once its worker's seeds exist.
 */
export const depositVariablesOf = (env: Readonly<NodeJS.ProcessEnv>): Record<string, string> =>
  Object.assign({}, ...CHAIN_FAMILIES.map((family) => family.depositKeysOf?.(env) ?? {})) as Record<string, string>;

/**
 * The keys of every family the registry has chains of, read from the environment by the family's schemas. Throws
 * one error naming every missing or invalid variable, so a process refuses to start without what its chains need.
 */
export function readChainKeys(registry: ChainRegistry, env: NodeJS.ProcessEnv, role: KeyRole): ChainKeys {
  const keys: Record<string, Record<string, unknown>> = {};
  const problems: string[] = [];
  for (const id of new Set(registry.chains.map((c) => c.family))) {
    const { env: schemas } = chainFamily(id);
    const parsed = (role === 'worker' ? schemas.deposits.extend(schemas.signing.shape) : schemas.deposits).safeParse(env);
    if (parsed.success) {
      keys[id] = parsed.data;
      continue;
    }
    const chains = registry.chains.filter((c) => c.family === id).map((c) => c.chainId).join(', ');
    for (const issue of parsed.error.issues) {
      const name = issue.path.join('.');
      problems.push(env[name] === undefined ? `${name}: required (${id} chain ${chains})` : `${name}: ${issue.message}`);
    }
  }
  if (problems.length > 0) throw new Error(`invalid configuration: ${problems.join('; ')}`);
  return keys;
}

/** One configured chain in a process: its adapter, its head as every caller shares it, and its waits' head watch. */
interface ChainEntry {
  adapter: ChainAdapter;
  /** The chain's reads shared by every caller of the process (its head among them). */
  reads: RecentReads;
  /** The chain's head, read once for every caller within SHARED_READ_MAX_AGE_MS. */
  head: () => Promise<number>;
  headWatch: HeadWatch;
}

function createEntry(config: ChainConfig, keys: ChainKeys): ChainEntry {
  // An adapter may share its own block reads through these too (EVM's checks), reading the head the waits share.
  const reads = new RecentReads();
  const adapter = chainFamily(config.family).createAdapter(config, keys[config.family] ?? {}, reads);
  const head = () => reads.read(RecentReads.HEAD, () => adapter.head());
  // Each new block seen within a shared read's age (or the chain's poll interval, when shorter).
  return { adapter, reads, head, headWatch: new HeadWatch(head, Math.min(config.pollIntervalMs, SHARED_READ_MAX_AGE_MS)) };
}

/** Every configured chain's adapter, created once per process and shared by every service and activity. */
export class ChainAdapters implements BridgeEndpoints {
  private readonly chains: Map<number, ChainEntry>;

  constructor(
    readonly registry: ChainRegistry,
    keys: ChainKeys = {},
  ) {
    this.chains = new Map(registry.chains.map((c) => [c.chainId, createEntry(c, keys)]));
  }

  private entry(chainId: number): ChainEntry {
    const entry = this.chains.get(chainId);
    if (!entry) throw new Error(`chain ${chainId} is not configured`);
    return entry;
  }

  /** The adapter of a configured chain (throws for any other chain id). */
  adapter(chainId: number): ChainAdapter {
    return this.entry(chainId).adapter;
  }

  /** The family of a configured chain: its address rules. */
  family(chainId: number): ChainFamily {
    return chainFamily(this.registry.chain(chainId).family);
  }

  /** The chain's side of the bridges (chains/bridges), when a bridge reaches it. */
  bridgeEndpoint(chainId: number): BridgeEndpoint | undefined {
    return this.chains.get(chainId)?.adapter.bridgeEndpoint;
  }

  /** The chain's head, read once for every caller within SHARED_READ_MAX_AGE_MS (hundreds of waits poll it). */
  sharedHead(chainId: number): Promise<number> {
    return this.entry(chainId).head();
  }

  /** A read of the chain's state under `key`, shared by every caller of the process within SHARED_READ_MAX_AGE_MS. */
  sharedRead<T>(chainId: number, key: string, load: () => Promise<T>): Promise<T> {
    return this.entry(chainId).reads.read(key, load);
  }

  /** The chain's head once it is past `seen`, or null after `withinMs` (every waiter of the process shares one watch). */
  headAfter(chainId: number, seen: number, withinMs: number): Promise<number | null> {
    return this.entry(chainId).headWatch.after(seen, withinMs);
  }

  /** What the chain's treasury holds of `tokenAddress` now (base units), read from the chain, never shared. */
  treasuryBalance(chainId: number, tokenAddress: string): Promise<bigint> {
    const adapter = this.adapter(chainId);
    return adapter.balanceOf(adapter.treasuryAddress(), tokenAddress);
  }

  /** The payment's deposit address on `chainId`. */
  depositAddressFor(chainId: number, paymentId: string): string {
    return this.adapter(chainId).depositAddress(paymentId);
  }

  destroy(): void {
    for (const { adapter } of this.chains.values()) adapter.destroy();
  }
}

/** The configured chains (`PAYRAIL_CHAINS_FILE`) with their adapters, made with the keys of `role` from `env`. */
export function loadChainAdapters(chainsFile: string, env: NodeJS.ProcessEnv, role: KeyRole): ChainAdapters {
  const registry = ChainRegistry.fromFile(chainsFile);
  return new ChainAdapters(registry, readChainKeys(registry, env, role));
}
