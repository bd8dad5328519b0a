import { z } from 'zod';
import { commonChainFields, tokenFields, tokenSymbol } from '../config';

/** Stellar account ids (StrKey G…, 56 characters). */
const stellarAccount = z.string().regex(/^G[A-Z2-7]{55}$/);

/** A Stellar network's entry of the chains file. It takes credit assets only: XLM is not accepted. */
export const stellarChainSchema = z.object({
  family: z.literal('stellar'),
  ...commonChainFields,
  networkPassphrase: z.string().min(1),
  /** The one account every payment is paid into, told apart by memo (MEMO_ID); it has the trustlines. */
  receivingAccount: stellarAccount,
  /** Credit assets: `address` is `CODE:ISSUER` (SEP-11). */
  tokens: z.record(tokenSymbol, z.object({ address: z.string().regex(/^[A-Za-z0-9]{1,12}:G[A-Z2-7]{55}$/), ...tokenFields, decimals: z.literal(7).default(7) })),
  /** Payments of the receiving account read per Horizon page while scanning (Horizon allows 200). */
  pageSize: z.number().int().min(1).max(200).default(200),
  nativeCurrency: z.undefined().optional(),
});

export type StellarChainConfig = z.infer<typeof stellarChainSchema>;
