import { Address } from '@ton/core';
import { z } from 'zod';
import { hexSeed } from '../config';
import { defineChainFamily } from '../family';
import { TonAdapter } from './adapter';
import { tonChainSchema } from './config';
import { parseTonAddress, rawAddress, walletFacingAddress } from './wallets';

/**
 * TON: a wallet v5r1 per payment (SLIP-0010 keys from one seed), deployed by the treasury when it first sweeps it.
 * The keys are hardened only, so only the worker (which holds the seed) can compute an address: it keeps a pool of them.
 */
export const ton = defineChainFamily({
  id: 'ton',
  chainSchema: tonChainSchema,
  env: {
    signing: z.object({
      /** The treasury wallet v5r1's 64-byte ed25519 secret key (seed then public key) as hex. */
      TON_TREASURY_SECRET_KEY: z
        .string()
        .regex(/^[0-9a-fA-F]{128}$/, 'must be a 64-byte ed25519 secret key as hex')
        .transform((hex) => Uint8Array.from(Buffer.from(hex, 'hex'))),
      /** Seed of the deposit wallets' keys (SLIP-0010, docs/chains.md): signs every sweep and refund out of a deposit. */
      TON_DEPOSIT_SEED: hexSeed,
    }),
    // Deposit addresses come from the pool the worker fills: the API needs no key.
    deposits: z.object({}),
  },
  depositAddresses: 'pooled',
  walletLinkLabel: 'Open in a TON wallet (ton:// link)',
  addresses: {
    normalize(address) {
      const parsed = parseTonAddress(address);
      return parsed && rawAddress(parsed);
    },
    // Non-bounceable, as the payment link: a deposit wallet has no code until its first sweep.
    display: (address, chain) => walletFacingAddress(Address.parse(address), chain.testnet),
    form: 'a TON account address, raw (0:<64 hex>) or user-friendly (48 base64url characters)',
  },
  createAdapter: (config, keys, reads) => new TonAdapter(config, { treasurySecretKey: keys.TON_TREASURY_SECRET_KEY, depositSeed: keys.TON_DEPOSIT_SEED }, reads),
  scanRangeBlocks: (config) => config.scanBatchBlocks,
});
