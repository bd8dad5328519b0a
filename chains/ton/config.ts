import { z } from 'zod';
import { commonChainFields, nativeCurrencySchema, tokenFields, tokenSymbol } from '../config';
import { parseTonAddress } from './wallets';

/** TON account addresses (raw `0:<hex>` or user-friendly), stored raw: `0:` and 64 lowercase hex digits. */
const tonAddress = z.string().transform((a, ctx) => {
  const parsed = parseTonAddress(a);
  if (!parsed) {
    ctx.addIssue({ code: 'custom', message: 'must be a TON address (raw 0:<64 hex> or user-friendly)' });
    return z.NEVER;
  }
  return parsed.toRawString();
});

/** A TON network's entry of the chains file. */
export const tonChainSchema = z.object({
  family: z.literal('ton'),
  ...commonChainFields,
  /** toncenter API key (sent as X-API-Key); without one toncenter allows 1 request a second. */
  apiKey: z.string().min(1).optional(),
  /**
   * Requests a second toncenter allows the key (its plan: Free 10, Plus 25, Advanced 100): every request of the chain
   * is paced to it. Default: 10 with a key, 1 without.
   */
  requestsPerSecond: z.number().positive().optional(),
  /** Masterchain blocks one watcher scan may cover: a scan reads every transaction of its range (mainnet: a block every 5 s or so). */
  scanBatchBlocks: z.number().int().positive().default(100),
  /** Testnet addresses carry the test-only flag in their user-friendly form. */
  testnet: z.boolean().default(false),
  /** Jettons: `address` is the jetton master (minter). */
  tokens: z.record(tokenSymbol, z.object({ address: tonAddress, ...tokenFields })),
  nativeCurrency: nativeCurrencySchema.optional(),
});

export type TonChainConfig = z.infer<typeof tonChainSchema>;
