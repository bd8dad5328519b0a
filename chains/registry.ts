import { readFileSync } from 'node:fs';
import { getAddress } from 'ethers';
import { z } from 'zod';
import { NATIVE_TOKEN_ADDRESS, isNativeToken } from '../domain/payment';
import { parseTonAddress } from './ton/wallets';

export const CHAIN_FAMILIES = ['evm', 'solana', 'ton', 'tron', 'stellar'] as const;
export type ChainFamily = (typeof CHAIN_FAMILIES)[number];

/** EVM addresses are stored and shown in their EIP-55 form, whatever case the configuration used. */
const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .transform((a) => getAddress(a.toLowerCase()));

/** Solana public keys (mints, owners): base58 of 32 bytes. */
const base58Address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

const tokenFields = {
  decimals: z.number().int().min(0).max(36),
  /** Priced 1:1 to USD (stablecoins). */
  usdPegged: z.boolean().default(true),
  /**
   * Payins below this many base units that cannot count towards a payment are held (recorded, visible to the
   * operator) instead of refunded: a refund would cost more gas than it returns. Default 0: everything is refunded.
   */
  dustUnits: z.string().regex(/^[0-9]+$/).default('0'),
};
const tokenSchema = z.object({ address, ...tokenFields });
const solanaTokenSchema = z.object({
  /** The mint. */
  address: base58Address,
  ...tokenFields,
  /** The mint's owner program: classic SPL Token (USDC) or Token-2022 (PYUSD). */
  tokenProgram: z.enum(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']).default('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'),
});

/** The chain's native coin (ETH on Arbitrum and Base): paid into deposit addresses as plain value transfers. */
const nativeCurrencySchema = z.object({
  symbol: z.string().regex(/^[A-Z0-9]{2,12}$/),
  decimals: z.number().int().min(0).max(36).default(18),
  /** Chainlink-style AggregatorV3 feed of the coin's USD price; without one the coin cannot be priced. */
  usdPriceFeed: address.optional(),
  /** The EVM chain the feed is on, when it is not this chain (TON has no on-chain USD feeds of its own). */
  usdPriceFeedChainId: z.number().int().positive().optional(),
  /** A feed answer older than this is refused rather than used (Chainlink ETH/USD heartbeats are 1 h or less). */
  maxPriceAgeSeconds: z.number().int().positive().default(3600),
  /** As a token's `dustUnits`, for native-coin payins. */
  dustUnits: z.string().regex(/^[0-9]+$/).default('0'),
});

const hex = z.string().regex(/^0x([0-9a-fA-F]{2})*$/);

/** Circle CCTP v2 on this chain (docs/bridges.md lists mainnet's); USDC moves through it. */
const cctpSchema = z.object({
  domain: z.number().int().min(0),
  tokenMessenger: address,
  messageTransmitter: address,
  /** Circle's attestation API for this network: https://iris-api.circle.com (mainnet), the sandbox (testnets), a stand-in (devnet). */
  irisBaseUrl: z.string().url(),
  /** Burns from this chain: fast (attested once confirmed, for a fee) or standard (attested once final). */
  finality: z.enum(['fast', 'standard']).default('fast'),
  /** Rough burn-to-mint time, for quotes. */
  expectedSeconds: z.number().int().positive().default(60),
});

/** A LayerZero v2 OFT (USDT0 on mainnet) for one token of this chain. */
const oftSchema = z.object({
  /** LayerZero v2 endpoint id of this chain. */
  eid: z.number().int().positive(),
  /** The contract `send` is called on (an OFT adapter that locks, or an OFT that burns). */
  oft: address,
  /** Executor options for sends from this chain; empty when the OFT enforces its own (USDT0 does). */
  extraOptions: hex.default('0x'),
  /** Rough send-to-delivery time, for quotes. */
  expectedSeconds: z.number().int().positive().default(180),
});

/** What every family's chain has. Chain ids of non-EVM families are their SLIP-44 coin types (docs/chains.md). */
const commonChainFields = {
  chainId: z.number().int().positive().max(2_147_483_647),
  name: z.string().min(1),
  rpcUrl: z.string().url(),
  /** Blocks (slots) on top of the payin's block before it counts as confirmed. */
  confirmations: z.number().int().min(1),
  /** Blocks (slots) on top of the payout's block before the payment is `payment_completed`. */
  finalityDepth: z.number().int().min(1),
  pollIntervalMs: z.number().int().positive().default(2000),
  /** Block explorer base URL (`<url>/tx/<hash>`, `<url>/address/<address>`). */
  explorerUrl: z.string().url().optional(),
};

const evmChainSchema = z.object({
  family: z.literal('evm').default('evm'),
  ...commonChainFields,
  /** Largest block range one `eth_getLogs` call may cover (provider limit). */
  logBatchBlocks: z.number().int().positive().default(500),
  /** Largest number of deposit addresses in one `eth_getLogs` topic filter. */
  logBatchAddresses: z.number().int().positive().default(500),
  /** Blocks a transaction of ours may wait unmined before it is replaced at its nonce with higher EIP-1559 fees. */
  replaceAfterBlocks: z.number().int().positive().default(12),
  depositFactory: address,
  /** keccak256 of the deposit forwarder's creation code: deposit addresses are computed offline from it. */
  forwarderInitCodeHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  cctp: cctpSchema.optional(),
  /** OFTs by token symbol (USDT). */
  oft: z.record(z.string().regex(/^[A-Z0-9]{2,12}$/), oftSchema).default({}),
  tokens: z.record(z.string().regex(/^[A-Z0-9]{2,12}$/), tokenSchema),
  nativeCurrency: nativeCurrencySchema.optional(),
  /**
   * Other chain ids this chain stands in for in the legacy currency table (chains/legacy-currencies.ts). Only for
   * test networks: the devnet's "Arbitrum" serves the Ethereum and BNB Chain entries, its "Base" Polygon and Celo.
   */
  servesChainIds: z.array(z.number().int().positive()).default([]),
});

const solanaChainSchema = z.object({
  family: z.literal('solana'),
  ...commonChainFields,
  /** Deposit token accounts read per `getMultipleAccounts` call (the RPC allows 100). */
  accountBatchSize: z.number().int().min(1).max(100).default(100),
  /** Slots one watcher scan may cover: a scan reads deposit accounts as they are now, so the range only bounds the cursor step. */
  scanBatchSlots: z.number().int().positive().default(10_000),
  tokens: z.record(z.string().regex(/^[A-Z0-9]{2,12}$/), solanaTokenSchema),
  /** The devnet bridge stand-in burns and mints here; only a chain whose treasury is the mint authority has it. */
  bridge: z.literal('devnet-mint-authority').optional(),
  nativeCurrency: nativeCurrencySchema.optional(),
  servesChainIds: z.array(z.number().int().positive()).default([]),
});

/** Tron and Stellar chains take tokens only: their native coin is not accepted and they have no bridge stand-in. */
const tokenOnlyFields = { nativeCurrency: z.undefined().optional(), bridge: z.undefined().optional() };

/** Tron base58check addresses (T…, 34 characters). */
const tronAddress = z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
/** Stellar account ids (StrKey G…, 56 characters). */
const stellarAccount = z.string().regex(/^G[A-Z2-7]{55}$/);

const tronChainSchema = z.object({
  family: z.literal('tron'),
  ...commonChainFields,
  /** TRC-20 contracts. */
  tokens: z.record(z.string().regex(/^[A-Z0-9]{2,12}$/), z.object({ address: tronAddress, ...tokenFields })),
  /** `fee_limit` of every contract call (sun): the most TRX one call may burn for energy. */
  feeLimitSun: z.number().int().positive().default(50_000_000),
  /**
   * TRX (sun) the treasury sends a deposit address before it sweeps, to burn for the TRC-20 transfer's energy
   * (mainnet: about 65,000 energy × 210 sun, 14–28 TRX; docs/chains.md).
   */
  sweepTopUpSun: z.number().int().positive().default(30_000_000),
  servesChainIds: z.array(z.number().int().positive()).default([]),
  ...tokenOnlyFields,
});

const stellarChainSchema = z.object({
  family: z.literal('stellar'),
  ...commonChainFields,
  networkPassphrase: z.string().min(1),
  /** The one account every payment is paid into, told apart by memo (MEMO_ID); it has the trustlines. */
  receivingAccount: stellarAccount,
  /** Credit assets: `address` is `CODE:ISSUER` (SEP-11). */
  tokens: z.record(
    z.string().regex(/^[A-Z0-9]{2,12}$/),
    z.object({ address: z.string().regex(/^[A-Za-z0-9]{1,12}:G[A-Z2-7]{55}$/), ...tokenFields, decimals: z.literal(7).default(7) }),
  ),
  /** Payments of the receiving account read per Horizon page while scanning (Horizon allows 200). */
  pageSize: z.number().int().min(1).max(200).default(200),
  servesChainIds: z.array(z.number().int().positive()).default([]),
  ...tokenOnlyFields,
});

/** TON account addresses (raw `0:<hex>` or user-friendly), stored raw: `0:` and 64 lowercase hex digits. */
const tonAddress = z.string().transform((a, ctx) => {
  const parsed = parseTonAddress(a);
  if (!parsed) {
    ctx.addIssue({ code: 'custom', message: 'must be a TON address (raw 0:<64 hex> or user-friendly)' });
    return z.NEVER;
  }
  return parsed.toRawString();
});
const tonTokenSchema = z.object({
  /** The jetton master (minter). */
  address: tonAddress,
  ...tokenFields,
});

const tonChainSchema = z.object({
  family: z.literal('ton'),
  ...commonChainFields,
  /** toncenter API key (sent as X-API-Key); without one toncenter allows 1 request a second. */
  apiKey: z.string().min(1).optional(),
  /** toncenter v3 base URL for the batched `accountStates` read; by default the v2 URL's `/api/v2/jsonRPC` becomes `/api/v3`. */
  v3Url: z.string().url().optional(),
  /** Watched accounts read per v3 `accountStates` call (toncenter allows 1,000). */
  accountBatchSize: z.number().int().min(1).max(1000).default(1000),
  /** Masterchain blocks one watcher scan may cover: a scan reads accounts as they are now, so the range only bounds the cursor step. */
  scanBatchBlocks: z.number().int().positive().default(10_000),
  /** Testnet addresses carry the test-only flag in their user-friendly form. */
  testnet: z.boolean().default(false),
  tokens: z.record(z.string().regex(/^[A-Z0-9]{2,12}$/), tonTokenSchema),
  nativeCurrency: nativeCurrencySchema.optional(),
  servesChainIds: z.array(z.number().int().positive()).default([]),
});

/** Chains without a `family` are EVM chains (every registry file written before families existed). */
const chainSchema = z.preprocess(
  (c) => (typeof c === 'object' && c !== null && !('family' in c) ? { ...c, family: 'evm' } : c),
  z.discriminatedUnion('family', [evmChainSchema, solanaChainSchema, tonChainSchema, tronChainSchema, stellarChainSchema]),
);

export const chainRegistrySchema = z.object({
  chains: z
    .array(chainSchema)
    .min(1)
    .refine((chains) => new Set(chains.map((c) => c.chainId)).size === chains.length, 'chain ids must be unique'),
});

type AnyTokenConfig = z.infer<typeof tokenSchema> | z.infer<typeof solanaTokenSchema> | z.infer<typeof tonTokenSchema> | TronChainConfig['tokens'][string] | StellarChainConfig['tokens'][string];
export type TokenConfig = AnyTokenConfig & { symbol: string };
export type EvmChainConfig = z.infer<typeof evmChainSchema>;
export type SolanaChainConfig = z.infer<typeof solanaChainSchema>;
export type TonChainConfig = z.infer<typeof tonChainSchema>;
export type TronChainConfig = z.infer<typeof tronChainSchema>;
export type StellarChainConfig = z.infer<typeof stellarChainSchema>;
export type ChainConfig = EvmChainConfig | SolanaChainConfig | TonChainConfig | TronChainConfig | StellarChainConfig;
export type CctpConfig = z.infer<typeof cctpSchema>;
export type OftConfig = z.infer<typeof oftSchema>;
export type NativeCurrencyConfig = z.infer<typeof nativeCurrencySchema>;

/** Tron scans read block by block; Stellar pages the receiving account's payments, so its range only bounds the cursor step. */
const TRON_STELLAR_SCAN_BLOCKS = 100;

/** The largest block (slot) range one watcher scan covers. */
export function scanRangeBlocks(chain: ChainConfig): number {
  switch (chain.family) {
    case 'evm':
      return chain.logBatchBlocks;
    case 'solana':
      return chain.scanBatchSlots;
    case 'ton':
      return chain.scanBatchBlocks;
    case 'tron':
    case 'stellar':
      return TRON_STELLAR_SCAN_BLOCKS;
  }
}

export type ChainRegistryFile = z.input<typeof chainRegistrySchema>;

export class ChainRegistry {
  private readonly byId: Map<number, ChainConfig>;

  constructor(readonly chains: ChainConfig[]) {
    this.byId = new Map(chains.map((c) => [c.chainId, c]));
  }

  static fromFile(path: string): ChainRegistry {
    return new ChainRegistry(chainRegistrySchema.parse(JSON.parse(readFileSync(path, 'utf8'))).chains);
  }

  /** The EVM chain `chainId` (configured or served), if it is one: what EVM-only features (CCTP, OFT) read. */
  findEvmChain(chainId: number): EvmChainConfig | undefined {
    const chain = this.findChain(chainId);
    return chain?.family === 'evm' ? chain : undefined;
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
    const tokens: Record<string, AnyTokenConfig> | undefined = this.byId.get(chainId)?.tokens;
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
    return native && { symbol: native.symbol, address: NATIVE_TOKEN_ADDRESS, decimals: native.decimals, usdPegged: false, dustUnits: native.dustUnits };
  }

  /** The configured chain with this id, or the one that stands in for it (`servesChainIds`). */
  findChainServing(chainId: number): ChainConfig | undefined {
    return this.byId.get(chainId) ?? this.chains.find((c) => c.servesChainIds.includes(chainId));
  }

  /** Base units below which a payin of `tokenAddress` on `chainId` is held rather than refunded. */
  dustUnits(chainId: number, tokenAddress: string): bigint {
    const token = this.tokenByAddress(chainId, tokenAddress) ?? (isNativeToken(tokenAddress) ? this.findNativeToken(chainId) : undefined);
    return BigInt(token?.dustUnits ?? '0');
  }

  /** The configured token at `tokenAddress` on `chainId`, if any. */
  tokenByAddress(chainId: number, tokenAddress: string): TokenConfig | undefined {
    const tokens: Record<string, AnyTokenConfig> = this.byId.get(chainId)?.tokens ?? {};
    const match = Object.entries(tokens).find(([, t]) => t.address.toLowerCase() === tokenAddress.toLowerCase());
    return match && { ...match[1], symbol: match[0] };
  }
}
