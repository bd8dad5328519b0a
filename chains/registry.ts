import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { NATIVE_TOKEN_ADDRESS, isNativeToken } from '../domain/payment';
import { CHAIN_FAMILIES, chainFamily } from './families';

/**
 * One chain of the chains file, of any family: the families' schemas, told apart by `family`. An entry without one
 * is of the first family (chains/families.ts).
 */
const chainSchema = z.preprocess(
  (c) => (typeof c === 'object' && c !== null && !('family' in c) ? { ...c, family: CHAIN_FAMILIES[0].id } : c),
  z.discriminatedUnion('family', CHAIN_FAMILIES.map((family) => family.chainSchema) as [ChainSchema, ...ChainSchema[]]),
);
type ChainSchema = (typeof CHAIN_FAMILIES)[number]['chainSchema'];

export const chainRegistrySchema = z.object({
  chains: z
    .array(chainSchema)
    .min(1)
    .refine((chains) => new Set(chains.map((c) => c.chainId)).size === chains.length, 'chain ids must be unique'),
});

export type ChainConfig = z.output<ChainSchema>;
type ChainTokenConfig = ChainConfig['tokens'][string];
/** A configured token (or native coin) of any family, with its symbol. */
export type TokenConfig = ChainTokenConfig & { symbol: string };
export type ChainRegistryFile = z.input<typeof chainRegistrySchema>;

/** The largest block (slot, ledger) range one watcher scan of the chain covers (its family's rule). */
export const scanRangeBlocks = (chain: ChainConfig): number => chainFamily(chain.family).scanRangeBlocks(chain);

export class ChainRegistry {
  private readonly byId: Map<number, ChainConfig>;

  constructor(readonly chains: ChainConfig[]) {
    this.byId = new Map(chains.map((c) => [c.chainId, c]));
  }

  static fromFile(path: string): ChainRegistry {
    return new ChainRegistry(chainRegistrySchema.parse(JSON.parse(readFileSync(path, 'utf8'))).chains);
  }

  chain(chainId: number): ChainConfig {
    const chain = this.byId.get(chainId);
    if (!chain) throw new Error(`chain ${chainId} is not configured`);
    return chain;
  }

  /** A stored address of the chain as its family's wallets write it (chains/family.ts `AddressRules.display`). */
  displayAddress(chainId: number, address: string): string {
    const chain = this.chain(chainId);
    return chainFamily(chain.family).addresses.display(address, chain);
  }

  findChain(chainId: number): ChainConfig | undefined {
    return this.byId.get(chainId);
  }

  findToken(chainId: number, symbol: string): TokenConfig | undefined {
    const tokens: Record<string, ChainTokenConfig> | undefined = this.byId.get(chainId)?.tokens;
    const token = tokens?.[symbol];
    return token && { ...token, symbol };
  }

  token(chainId: number, symbol: string): TokenConfig {
    const token = this.findToken(chainId, symbol);
    if (!token) throw new Error(`token ${symbol} is not configured on chain ${chainId}`);
    return token;
  }

  /** A token or the native coin (TON, ETH) by symbol: what a payment may be paid in or paid out in. */
  findPayableToken(chainId: number, symbol: string): TokenConfig | undefined {
    const native = this.findNativeToken(chainId);
    return this.findToken(chainId, symbol) ?? (native?.symbol === symbol ? native : undefined);
  }

  /** The chain's native coin as a token (address zero, never USD-pegged), if it is configured. */
  findNativeToken(chainId: number): TokenConfig | undefined {
    const native = this.byId.get(chainId)?.nativeCurrency;
    return native && { symbol: native.symbol, address: NATIVE_TOKEN_ADDRESS, decimals: native.decimals, usdPegged: false, dustUnits: native.dustUnits, refundMaxCostBps: native.refundMaxCostBps, floatMarks: native.floatMarks };
  }

  /** The configured chain with this id, or the one that stands in for it (`servesChainIds`). */
  findChainServing(chainId: number): ChainConfig | undefined {
    return this.byId.get(chainId) ?? this.chains.find((c) => c.servesChainIds.includes(chainId));
  }

  /** Base units below which a payin of `tokenAddress` on `chainId` is held rather than refunded. */
  dustUnits(chainId: number, tokenAddress: string): bigint {
    return BigInt(this.payableByAddress(chainId, tokenAddress)?.dustUnits ?? '0');
  }

  /** A configured token, or the native coin, by address. */
  payableByAddress(chainId: number, tokenAddress: string): TokenConfig | undefined {
    return this.tokenByAddress(chainId, tokenAddress) ?? (isNativeToken(tokenAddress) ? this.findNativeToken(chainId) : undefined);
  }

  /** The configured token at `tokenAddress` on `chainId`, if any. */
  tokenByAddress(chainId: number, tokenAddress: string): TokenConfig | undefined {
    const tokens: Record<string, ChainTokenConfig> = this.byId.get(chainId)?.tokens ?? {};
    const match = Object.entries(tokens).find(([, t]) => t.address.toLowerCase() === tokenAddress.toLowerCase());
    return match && { ...match[1], symbol: match[0] };
  }
}
