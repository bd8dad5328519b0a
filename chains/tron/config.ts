import { z } from 'zod';
import { commonChainFields, tokenFields, tokenSymbol } from '../config';

/** Tron base58check addresses (T…, 34 characters). */
const tronAddress = z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);

/** A Tron network's entry of the chains file. It takes tokens only: TRX is not accepted. */
export const tronChainSchema = z.object({
  family: z.literal('tron'),
  ...commonChainFields,
  /** TRC-20 contracts. */
  tokens: z.record(tokenSymbol, z.object({ address: tronAddress, ...tokenFields })),
  /** `fee_limit` of every contract call (sun): the most TRX one call may burn for energy. */
  feeLimitSun: z.number().int().positive().default(50_000_000),
  /**
   * TRX (sun) the treasury sends a deposit address before it sweeps, to burn for the TRC-20 transfer's energy
   * (mainnet: about 65,000 energy × 210 sun, 14–28 TRX; docs/chains.md).
   */
  sweepTopUpSun: z.number().int().positive().default(30_000_000),
  nativeCurrency: z.undefined().optional(),
});

export type TronChainConfig = z.infer<typeof tronChainSchema>;
