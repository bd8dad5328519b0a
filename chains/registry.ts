import { readFileSync } from 'node:fs';
import { z } from 'zod';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

const tokenSchema = z.object({
  address,
  decimals: z.number().int().min(0).max(36),
  /** Priced 1:1 to USD (stablecoins). */
  usdPegged: z.boolean().default(true),
});

const chainSchema = z.object({
  chainId: z.number().int().positive(),
  name: z.string().min(1),
  rpcUrl: z.string().url(),
  /** Blocks on top of the payin's block before it counts as confirmed. */
  confirmations: z.number().int().min(1),
  /** Blocks on top of the payout's block before the payment is `payment_completed`. */
  finalityDepth: z.number().int().min(1),
  /** Largest block range one `eth_getLogs` call may cover (provider limit). */
  logBatchBlocks: z.number().int().positive().default(500),
  /** Largest number of deposit addresses in one `eth_getLogs` topic filter. */
  logBatchAddresses: z.number().int().positive().default(500),
  pollIntervalMs: z.number().int().positive().default(2000),
  depositFactory: address,
  /** keccak256 of the deposit forwarder's creation code: deposit addresses are computed offline from it. */
  forwarderInitCodeHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  bridge: address.optional(),
  tokens: z.record(z.string().regex(/^[A-Z0-9]{2,12}$/), tokenSchema),
});

export const chainRegistrySchema = z.object({ chains: z.array(chainSchema).min(1) });

export type TokenConfig = z.infer<typeof tokenSchema> & { symbol: string };
export type ChainConfig = z.infer<typeof chainSchema>;
export type ChainRegistryFile = z.input<typeof chainRegistrySchema>;

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

  findChain(chainId: number): ChainConfig | undefined {
    return this.byId.get(chainId);
  }

  findToken(chainId: number, symbol: string): TokenConfig | undefined {
    const token = this.byId.get(chainId)?.tokens[symbol];
    return token && { ...token, symbol };
  }

  token(chainId: number, symbol: string): TokenConfig {
    const token = this.findToken(chainId, symbol);
    if (!token) throw new Error(`token ${symbol} is not configured on chain ${chainId}`);
    return token;
  }
}
