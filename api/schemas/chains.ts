import { z } from 'zod';
import { CHAIN_FAMILY_IDS } from '../../services/chains';

/** `GET {payment_api_url}/chains`: every chain this deployment serves, with its tokens. */
export const chainListSchema = z.object({
  data: z.array(
    z.object({
      chainId: z.string().regex(/^[1-9][0-9]*$/),
      family: z.enum(CHAIN_FAMILY_IDS),
      name: z.string(),
      confirmations: z.number().int().positive(),
      finalityDepth: z.number().int().positive(),
      tokens: z.array(
        z.object({
          symbol: z.string(),
          /** Contract, mint or jetton master; null for the chain's native coin. */
          address: z.string().nullable(),
          decimals: z.number().int().min(0),
          native: z.boolean(),
          /** The smallest `source.amount` a payment may ask for, as a decimal string. */
          minimumAmount: z.string().regex(/^[0-9]+(\.[0-9]+)?$/),
        }),
      ),
    }),
  ),
});

export type ChainList = z.infer<typeof chainListSchema>;
