import { z } from 'zod';
import { commonChainFields, nativeCurrencySchema, tokenFields, tokenSymbol } from '../config';

/** Solana public keys (mints, owners): base58 of 32 bytes. */
const base58Address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

/** A Solana cluster's entry of the chains file. */
export const solanaChainSchema = z.object({
  family: z.literal('solana'),
  ...commonChainFields,
  /** The cluster as the Wallet Standard names it (`solana:<cluster>`), which a connected wallet is asked to pay on. */
  cluster: z.enum(['mainnet', 'devnet', 'testnet', 'localnet']).default('mainnet'),
  /** Slots one watcher scan may cover: a scan reads every block of its range (mainnet: 2.5 slots a second). */
  scanBatchSlots: z.number().int().positive().default(500),
  /** The priority fee paid: this percentile of what recent slots' transactions on the same accounts paid per compute unit. */
  priorityFeePercentile: z.number().int().min(0).max(100).default(75),
  /** The most paid per compute unit (micro-lamports) whatever recent slots paid. */
  maxComputeUnitPriceMicroLamports: z.number().int().min(0).default(1_000_000),
  tokens: z.record(
    tokenSymbol,
    z.object({
      /** The mint. */
      address: base58Address,
      ...tokenFields,
      /** The mint's owner program: classic SPL Token (USDC) or Token-2022 (PYUSD). */
      tokenProgram: z.enum(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']).default('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'),
    }),
  ),
  nativeCurrency: nativeCurrencySchema.optional(),
});

export type SolanaChainConfig = z.infer<typeof solanaChainSchema>;
