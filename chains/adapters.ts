import type { ChainAdapter } from './family';
import { EvmAdapter } from './evm/adapter';
import { SolanaAdapter, type SolanaKeys } from './solana/adapter';
import { TonAdapter, type TonKeys } from './ton/adapter';
import { StellarAdapter, type StellarKeys } from './stellar/adapter';
import { TronAdapter, type TronKeys } from './tron/adapter';
import { HeadWatch } from './head-watch';
import { RecentReads, SHARED_READ_MAX_AGE_MS } from './recent-reads';
import { ChainRegistry, type ChainConfig } from './registry';

/**
 * Keys the adapters sign and derive with. The API process holds only what deposit addresses need; a worker holds
 * the treasury keys too. Absent keys make the operations that need them throw.
 */
export interface ChainKeys {
  /** EVM treasury (0x-prefixed 32-byte hex): owns the deposit factory and bridge, holds payout liquidity. */
  evmTreasuryPrivateKey?: string;
  solana?: SolanaKeys;
  tron?: TronKeys;
  stellar?: StellarKeys;
  ton?: TonKeys;
}

function createAdapter(config: ChainConfig, keys: ChainKeys, reads: RecentReads): ChainAdapter {
  switch (config.family) {
    case 'evm':
      return new EvmAdapter(config, keys.evmTreasuryPrivateKey, reads);
    case 'solana':
      return new SolanaAdapter(config, keys.solana);
    case 'tron':
      return new TronAdapter(config, keys.tron);
    case 'stellar':
      return new StellarAdapter(config, keys.stellar);
    case 'ton':
      return new TonAdapter(config, keys.ton);
  }
}

/** One configured chain in a process: its adapter, its head as every caller shares it, and its waits' head watch. */
interface ChainEntry {
  adapter: ChainAdapter;
  /** The chain's head, read once for every caller within SHARED_READ_MAX_AGE_MS. */
  head: () => Promise<number>;
  headWatch: HeadWatch;
}

function createEntry(config: ChainConfig, keys: ChainKeys): ChainEntry {
  // The EVM adapter shares its own block reads through these too, so its checks read the head the waits share.
  const reads = new RecentReads();
  const adapter = createAdapter(config, keys, reads);
  const head = () => reads.read(RecentReads.HEAD, () => adapter.head());
  // Each new block seen within a shared read's age (or the chain's poll interval, when shorter).
  return { adapter, head, headWatch: new HeadWatch(head, Math.min(config.pollIntervalMs, SHARED_READ_MAX_AGE_MS)) };
}

/** Every configured chain's adapter, created once per process and shared by every service and activity. */
export class ChainAdapters {
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

  /** The adapter of an EVM chain: the EVM-only bridges (CCTP, OFT) reach its provider and treasury through it. */
  evm(chainId: number): EvmAdapter {
    const adapter = this.adapter(chainId);
    if (!(adapter instanceof EvmAdapter)) throw new Error(`chain ${chainId} is not an EVM chain`);
    return adapter;
  }

  /** The chain's head, read once for every caller within SHARED_READ_MAX_AGE_MS (hundreds of waits poll it). */
  sharedHead(chainId: number): Promise<number> {
    return this.entry(chainId).head();
  }

  /** The chain's head once it is past `seen`, or null after `withinMs` (every waiter of the process shares one watch). */
  headAfter(chainId: number, seen: number, withinMs: number): Promise<number | null> {
    return this.entry(chainId).headWatch.after(seen, withinMs);
  }

  findAdapter(chainId: number): ChainAdapter | undefined {
    return this.chains.get(chainId)?.adapter;
  }

  /** The payment's deposit address on `chainId`. */
  depositAddressFor(chainId: number, paymentId: string): string {
    return this.adapter(chainId).depositAddress(paymentId);
  }

  destroy(): void {
    for (const { adapter } of this.chains.values()) adapter.destroy();
  }
}

/** The configured chains (`PAYRAIL_CHAINS_FILE`) with their adapters. */
export const loadChainAdapters = (chainsFile: string, keys: ChainKeys = {}): ChainAdapters => new ChainAdapters(ChainRegistry.fromFile(chainsFile), keys);
