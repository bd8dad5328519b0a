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

/** Every configured chain's adapter, created once per process and shared by every service and activity. */
export class ChainAdapters {
  private readonly adapters: Map<number, ChainAdapter>;
  /** Per chain, the reads shared by every caller of this process (the EVM adapter shares its own through them too). */
  private readonly reads: Map<number, RecentReads>;
  private readonly headWatches: Map<number, HeadWatch>;

  constructor(
    readonly registry: ChainRegistry,
    keys: ChainKeys = {},
  ) {
    this.reads = new Map(registry.chains.map((c) => [c.chainId, new RecentReads()]));
    this.adapters = new Map(registry.chains.map((c) => [c.chainId, createAdapter(c, keys, this.reads.get(c.chainId)!)]));
    // Each new block seen within a shared read's age (or the chain's poll interval, when shorter).
    this.headWatches = new Map(
      registry.chains.map((c) => [c.chainId, new HeadWatch(() => this.sharedHead(c.chainId), Math.min(c.pollIntervalMs, SHARED_READ_MAX_AGE_MS))]),
    );
  }

  /** The adapter of a configured chain (throws for any other chain id). */
  adapter(chainId: number): ChainAdapter {
    const adapter = this.adapters.get(chainId);
    if (!adapter) throw new Error(`chain ${chainId} is not configured`);
    return adapter;
  }

  /** The adapter of an EVM chain: the EVM-only bridges (CCTP, OFT) reach its provider and treasury through it. */
  evm(chainId: number): EvmAdapter {
    const adapter = this.adapter(chainId);
    if (!(adapter instanceof EvmAdapter)) throw new Error(`chain ${chainId} is not an EVM chain`);
    return adapter;
  }

  /** The chain's head, read once for every caller within SHARED_READ_MAX_AGE_MS (hundreds of waits poll it). */
  sharedHead(chainId: number): Promise<number> {
    const adapter = this.adapter(chainId);
    return this.reads.get(chainId)!.read(RecentReads.HEAD, () => adapter.head());
  }

  /** The chain's head once it is past `seen`, or null after `withinMs` (every waiter of the process shares one watch). */
  headAfter(chainId: number, seen: number, withinMs: number): Promise<number | null> {
    const watch = this.headWatches.get(chainId);
    if (!watch) throw new Error(`chain ${chainId} is not configured`);
    return watch.after(seen, withinMs);
  }

  findAdapter(chainId: number): ChainAdapter | undefined {
    return this.adapters.get(chainId);
  }

  /** The payment's deposit address on `chainId`. */
  depositAddressFor(chainId: number, paymentId: string): string {
    return this.adapter(chainId).depositAddress(paymentId);
  }

  destroy(): void {
    for (const adapter of this.adapters.values()) adapter.destroy();
  }
}

/** The configured chains (`PAYRAIL_CHAINS_FILE`) with their adapters. */
export const loadChainAdapters = (chainsFile: string, keys: ChainKeys = {}): ChainAdapters => new ChainAdapters(ChainRegistry.fromFile(chainsFile), keys);
