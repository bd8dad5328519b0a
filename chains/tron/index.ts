import { TronWeb } from 'tronweb';
import { z } from 'zod';
import { hexSeed } from '../config';
import { defineChainFamily } from '../family';
import { TronAdapter } from './adapter';
import { tronChainSchema } from './config';

/** Blocks one scan reads: a Tron scan reads the range block by block. */
const SCAN_BLOCKS = 100;

/** Tron: a secp256k1 key per payment (BIP-32 from one seed), topped up with TRX by the treasury before each sweep. */
export const tron = defineChainFamily({
  id: 'tron',
  chainSchema: tronChainSchema,
  env: {
    signing: z.object({
      /** The treasury (hex, no 0x): payouts, refunds and the TRX each sweep burns. */
      TRON_TREASURY_PRIVATE_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be a 32-byte hex key'),
    }),
    deposits: z.object({
      /** Seed of the deposit keys (BIP-32, docs/chains.md). */
      TRON_DEPOSIT_SEED: hexSeed,
    }),
  },
  addresses: {
    normalize: (address) => (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address) && TronWeb.isAddress(address) ? address : null),
    form: 'a base58check address starting with T',
  },
  createAdapter: (config, keys) => new TronAdapter(config, { treasuryPrivateKey: keys.TRON_TREASURY_PRIVATE_KEY, depositSeed: keys.TRON_DEPOSIT_SEED }),
  scanRangeBlocks: () => SCAN_BLOCKS,
});
