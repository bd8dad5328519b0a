import { isAddress } from '@solana/kit';
import { z } from 'zod';
import { hexSeed } from '../config';
import { defineChainFamily } from '../family';
import { SolanaAdapter } from './adapter';
import { solanaChainSchema } from './config';

/** A 64-byte Solana secret key as solana-keygen writes it: a JSON array of numbers. */
const solanaSecretKey = z
  .string()
  .transform((s, ctx) => {
    try {
      return z.array(z.number().int().min(0).max(255)).length(64).parse(JSON.parse(s));
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of 64 byte values' });
      return z.NEVER;
    }
  })
  .transform((bytes) => Uint8Array.from(bytes));

/**
 * Solana clusters: a wallet key per payment (SLIP-0010 from one seed); the treasury pays every fee and rent. The keys
 * are hardened only, so only the worker (which holds the seed) can compute an address: it keeps a pool of them.
 */
export const solana = defineChainFamily({
  id: 'solana',
  chainSchema: solanaChainSchema,
  env: {
    signing: z.object({
      /** The treasury: pays every fee and rent, holds payout liquidity. */
      SOLANA_TREASURY_SECRET_KEY: solanaSecretKey,
      /** Seed of the deposit keys (SLIP-0010, docs/chains.md): signs every sweep and refund out of a deposit. */
      SOLANA_DEPOSIT_SEED: hexSeed,
    }),
    // Deposit addresses come from the pool the worker fills: the API needs no key.
    deposits: z.object({}),
  },
  depositAddresses: 'pooled',
  walletLinkLabel: 'Open in a Solana wallet (Solana Pay link)',
  addresses: {
    normalize: (address) => (isAddress(address) ? address : null),
    // Stored as the family's wallets write it (base58).
    display: (address) => address,
    form: 'a base58 ed25519 public key of 32 bytes, such as a wallet address',
  },
  createAdapter: (config, keys, reads) => new SolanaAdapter(config, { treasurySecretKey: keys.SOLANA_TREASURY_SECRET_KEY, depositSeed: keys.SOLANA_DEPOSIT_SEED }, reads),
  scanRangeBlocks: (config) => config.scanBatchSlots,
});
