/**
 * What every family's chains-file entry shares: the common chain fields, a token's fields, the native coin, and the
 * address form price feeds use. Each family's schema (`chains/<family>/config.ts`) adds its own fields to these.
 */
import { getAddress } from 'ethers';
import { z } from 'zod';

/** 0x addresses, stored and shown in their EIP-55 form whatever case the configuration used (EVM contracts, price feeds). */
export const hexAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .transform((a) => getAddress(a.toLowerCase()));

/** The key of a token in a chain's `tokens`: its symbol. */
export const tokenSymbol = z.string().regex(/^[A-Z0-9]{2,12}$/);

/** A whole number of tokens. */
const wholeTokens = z.string().regex(/^(0|[1-9][0-9]{0,15})$/);

const floatMarksSchema = z
  .object({ low: wholeTokens, high: wholeTokens })
  .refine((m) => BigInt(m.low) <= BigInt(m.high), { message: 'low must not be above high' })
  .default({ low: '1000', high: '100000' });

/** A token's fields besides its address (whose form is the family's). */
export const tokenFields = {
  decimals: z.number().int().min(0).max(36),
  /** Priced 1:1 to USD (stablecoins). */
  usdPegged: z.boolean().default(true),
  /**
   * Payins below this many base units that cannot count towards a payment are held (recorded, visible to the
   * operator) instead of refunded: a refund would cost more gas than it returns. Default 0: everything is refunded.
   */
  dustUnits: z.string().regex(/^[0-9]+$/).default('0'),
  /** The chain's `refundMaxCostBps` for this token alone. */
  refundMaxCostBps: z.number().int().min(0).max(10_000).optional(),
  /**
   * The treasury's float marks for this token, in whole tokens (docs/operations.md, "Treasury float"): below `low`
   * the treasury needs a refill (a rebalance from a chain above its `high`, or an operator's top-up); above `high`
   * it can give. The defaults keep the dev stack's treasuries (a million of each token) well inside them.
   */
  floatMarks: floatMarksSchema,
};

/** The chain's native coin (ETH on Arbitrum and Base, TON): paid into deposit addresses as plain value transfers. */
export const nativeCurrencySchema = z.object({
  symbol: z.string().regex(/^[A-Z0-9]{2,12}$/),
  decimals: z.number().int().min(0).max(36).default(18),
  /** Chainlink-style AggregatorV3 feed of the coin's USD price; without one the coin cannot be priced. */
  usdPriceFeed: hexAddress.optional(),
  /** The EVM chain the feed is on, when it is not this chain (TON has no on-chain USD feeds of its own). */
  usdPriceFeedChainId: z.number().int().positive().optional(),
  /** A feed answer older than this is refused rather than used (Chainlink ETH/USD heartbeats are 1 h or less). */
  maxPriceAgeSeconds: z.number().int().positive().default(3600),
  /** As a token's `dustUnits`, for native-coin payins. */
  dustUnits: z.string().regex(/^[0-9]+$/).default('0'),
  /** As a token's `refundMaxCostBps`, for native-coin refunds. */
  refundMaxCostBps: z.number().int().min(0).max(10_000).optional(),
  /** As a token's `floatMarks`, for the treasury's float of the coin. */
  floatMarks: floatMarksSchema,
});

/** What every family's chain has. Chain ids of non-EVM families are their SLIP-44 coin types (docs/chains.md). */
export const commonChainFields = {
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
  /**
   * Other chain ids this chain stands in for in the legacy currency table (domain/pay-currencies.ts). Only for test
   * networks: the devnet's "Arbitrum" serves the Ethereum and BNB Chain entries, its "Base" Polygon and Celo.
   */
  servesChainIds: z.array(z.number().int().positive()).default([]),
  /**
   * Refund economics: a refund whose network cost (estimated from the chain before it is signed) is above this share
   * of what it returns, in basis points, is held at the deposit address instead (recorded, visible like dust).
   * Default: half, so a refund never costs the treasury more than half of what it gives back (a spam payin of a few
   * base units costs orders of magnitude more than that to return, and is held).
   */
  refundMaxCostBps: z.number().int().min(0).max(10_000).default(5_000),
  /**
   * USD per whole coin the chain's fees are paid in (ETH, SOL, TON, TRX, XLM), to weigh a token refund's cost against
   * its value. Absent: the native coin's `usdPriceFeed`; with neither, token refunds that cost anything are held.
   */
  feeCoinUsd: z.string().regex(/^(0|[1-9][0-9]*)(\.[0-9]{1,6})?$/).optional(),
};

/** An environment variable holding a deposit seed: 32 to 64 bytes as hex (Solana, TON, Tron). */
export const hexSeed = z
  .string()
  .regex(/^([0-9a-fA-F]{2}){32,64}$/, 'must be 32 to 64 bytes as hex')
  .transform((hex) => Uint8Array.from(Buffer.from(hex, 'hex')));

export type NativeCurrencyConfig = z.infer<typeof nativeCurrencySchema>;

/** A token's float marks as configured: whole tokens. */
export interface FloatMarksConfig {
  low: string;
  high: string;
}

/** What the registry reads of any family's chain (every family's config type has at least this). */
export interface CommonChainConfig {
  family: string;
  chainId: number;
  name: string;
  rpcUrl: string;
  confirmations: number;
  finalityDepth: number;
  pollIntervalMs: number;
  explorerUrl?: string;
  servesChainIds: number[];
  tokens: Record<string, { address: string; decimals: number; usdPegged: boolean; dustUnits: string; refundMaxCostBps?: number; floatMarks: FloatMarksConfig }>;
  nativeCurrency?: NativeCurrencyConfig;
  refundMaxCostBps: number;
  feeCoinUsd?: string;
}
