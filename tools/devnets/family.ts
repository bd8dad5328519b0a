/**
 * How the dev stack (tools/stack/stack.ts) runs a chain family's devnet: one `DevnetFamily` per family, in
 * `tools/devnets/<family>/family.ts`, listed in tools/devnets/families.ts. It starts the devnet, and says what the
 * stack needs of it: the chains-file entries of its chains, the treasury keys Payrail's processes get, the funded
 * customer wallet, and what `var/dev-stack.json` lists of its chains. The product's own descriptor of the family
 * (chains/<family>/index.ts) cannot hold this: the product never imports tools/, and the devnets are devDependencies.
 */
import type { ChainRegistryFile } from '../../chains/registry';

/** One devnet chain as `var/dev-stack.json` lists it: at least these, and what the family's clients need besides. */
export interface DevnetChainInfo {
  family: string;
  chainId: number;
  name: string;
  rpcUrl: string;
  tokens: Record<string, { address: string; decimals: number }>;
}

/** A USD price feed a devnet serves, by the symbol of the coin it prices (TON's is on the EVM devnet). */
export type UsdPriceFeeds = Readonly<Record<string, { chainId: number; feed: string }>>;

export interface DevnetStartOptions {
  /** One per entry of the family's `ports`; 0 for any free port, which the devnet binds and reports in its URLs. */
  ports: number[];
  blockTimeMs: number;
  /** Where its logs go. */
  logDir: string;
  /** The stack's data directory: with `persistent`, a devnet that can keeps its chain here across restarts. */
  varDir: string;
  persistent: boolean;
}

/** A started devnet, as the stack uses it. `Chain` and `Customer` are the family's own shapes. */
export interface RunningDevnet<Chain extends DevnetChainInfo = DevnetChainInfo, Customer = unknown> {
  /** Its chains as `var/dev-stack.json` lists them. */
  chains: Chain[];
  /** Its chains' entries of the chains file; `feeds` are the price feeds every devnet serves. */
  registryEntries(feeds: UsdPriceFeeds): ChainRegistryFile['chains'];
  /** Price feeds it serves for other devnets' coins. */
  usdPriceFeeds?: UsdPriceFeeds;
  /** The funded customer wallet, in the family's terms (`var/dev-stack.json` `customer.<family>`). */
  customer: Customer;
  /** What Payrail's processes need in their environment for its chains: its treasury's signing keys. */
  env: Record<string, string>;
  /** Chains that start from block 0 on every start: their signer nonces and watcher cursors start over with them. */
  freshChainIds: number[];
  /** Where the seeded demo merchant is paid out, when this devnet provides it. */
  demoPayout?: { chainId: number; tokenSymbol: string; address: string };
  /** Stops it (saving its state when it keeps one); safe to call more than once. */
  stop(): Promise<void>;
}

export interface DevnetFamily<Id extends string = string, Running extends RunningDevnet = RunningDevnet> {
  /** The product family whose chains it runs (chains/<family>/). */
  readonly family: Id;
  /** The ports `npm start` gives it, each movable by its environment variable (tools/stack/launch.ts). */
  readonly ports: ReadonlyArray<{ env: string; fallback: number }>;
  /**
   * The family's deposit-seed variables (chains/<family>/index.ts `env.signing`, the worker's): the stack generates
   * each once and keeps it in `var/secrets.json`, so deposit keys survive restarts; what the API needs of them (Tron's
   * xpub) follows from them (`depositKeysOf` of the product family).
   */
  readonly depositSeeds: readonly string[];
  /** Starts the devnet; what it started is stopped again when the start fails. */
  start(options: DevnetStartOptions): Promise<Running>;
}

/** A devnet family's descriptor, its types inferred. */
export const defineDevnetFamily = <Id extends string, Running extends RunningDevnet>(family: DevnetFamily<Id, Running>): DevnetFamily<Id, Running> => family;
