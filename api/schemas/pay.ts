import { z } from 'zod';

const units = z.string().regex(/^[0-9]+$/);

/**
 * `GET /pay/{id}/wallet`: what the hosted page's script asks a connected wallet to send for the payment, by the
 * standard the chain's wallets speak (chains/family.ts `WalletRequest`).
 */
export const payWalletSchema = z.object({
  payment_id: z.string(),
  wallet: z.discriminatedUnion('standard', [
    z.object({
      standard: z.literal('eip1193'),
      chainIdHex: z.string().regex(/^0x[0-9a-f]+$/),
      chainName: z.string(),
      rpcUrls: z.array(z.string()),
      nativeCurrency: z.object({ name: z.string(), symbol: z.string(), decimals: z.number().int().min(0) }),
      blockExplorerUrls: z.array(z.string()),
      tokenAddress: z.string().nullable(),
      recipient: z.string(),
      amountUnits: units,
      transaction: z.object({ to: z.string(), value: z.string(), data: z.string() }),
    }),
    z.object({
      standard: z.literal('solana'),
      chain: z.string(),
      tokenAddress: z.string().nullable(),
      tokenProgram: z.string().nullable(),
      decimals: z.number().int().min(0),
      recipient: z.string(),
      amountUnits: units,
      recentBlockhash: z.string(),
      lastValidBlockHeight: units,
    }),
  ]),
});

export type PayWallet = z.infer<typeof payWalletSchema>;
