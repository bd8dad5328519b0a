import { z } from 'zod';
import { commonChainFields, nativeCurrencySchema, tokenFields, tokenSymbol } from '../config';

/** Solana public keys (mints, owners): base58 of 32 bytes. */
const base58Address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

/** A Solana cluster's entry of the chains file. */
export const solanaChainSchema = z.object({
  family: z.literal('solana'),
  ...commonChainFields,
  /** Deposit token accounts read per `getMultipleAccounts` call (the RPC allows 100). */
  accountBatchSize: z.number().int().min(1).max(100).default(100),
  /** Slots one watcher scan may cover: a scan reads deposit accounts as they are now, so the range only bounds the cursor step. */
  scanBatchSlots: z.number().int().positive().default(10_000),
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
