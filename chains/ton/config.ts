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
  /** toncenter v3 base URL for the batched `accountStates` read; by default the v2 URL's `/api/v2/jsonRPC` becomes `/api/v3`. */
  v3Url: z.string().url().optional(),
  /** Watched accounts read per v3 `accountStates` call (toncenter allows 1,000). */
  accountBatchSize: z.number().int().min(1).max(1000).default(1000),
  /** Masterchain blocks one watcher scan may cover: a scan reads accounts as they are now, so the range only bounds the cursor step. */
  scanBatchBlocks: z.number().int().positive().default(10_000),
  /** Testnet addresses carry the test-only flag in their user-friendly form. */
  testnet: z.boolean().default(false),
  /** Jettons: `address` is the jetton master (minter). */
  tokens: z.record(tokenSymbol, z.object({ address: tonAddress, ...tokenFields })),
  nativeCurrency: nativeCurrencySchema.optional(),
});

export type TonChainConfig = z.infer<typeof tonChainSchema>;
