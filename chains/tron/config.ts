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
  /**
   * `fee_limit` of every contract call (sun): the most TRX one call may burn for energy, and the most the treasury
   * tops a deposit up with before a transfer out of it (the burn estimated from the chain, plus a margin).
   */
  feeLimitSun: z.number().int().positive().default(50_000_000),
  /** TronGrid's API key, sent as the `TRON-PRO-API-KEY` header on every request (TronGrid throttles requests without one). */
  apiKey: z.string().min(1).optional(),
  nativeCurrency: z.undefined().optional(),
});

export type TronChainConfig = z.infer<typeof tronChainSchema>;
