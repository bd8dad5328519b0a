import { TronWeb } from 'tronweb';
import { z } from 'zod';
import { hexSeed } from '../config';
import { defineChainFamily } from '../family';
import { TronAdapter } from './adapter';
import { tronChainSchema } from './config';
import { depositAccountXpub, parseDepositAccountXpub } from './deposits';

/** Blocks one scan reads: a Tron scan reads the range block by block. */
const SCAN_BLOCKS = 100;

/**
 * Tron: a secp256k1 key per payment (BIP-32 from one seed, non-hardened below the deposit account), topped up with TRX
 * by the treasury before each sweep. Deposit addresses follow from the account's xpub: the API holds nothing more.
 */
export const tron = defineChainFamily({
  id: 'tron',
  chainSchema: tronChainSchema,
  env: {
    signing: z.object({
      /** The treasury (hex, no 0x): payouts, refunds and the TRX each sweep burns. */
      TRON_TREASURY_PRIVATE_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be a 32-byte hex key'),
      /** Seed of the deposit keys (BIP-32, docs/chains.md): signs every sweep out of a deposit. */
      TRON_DEPOSIT_SEED: hexSeed,
    }),
    deposits: z.object({
      /** The deposit account's extended public key (`xpub…` of m/44'/195'/0'): deposit addresses, never a signature. */
      TRON_DEPOSIT_XPUB: z.string().transform((text, ctx) => {
        const account = parseDepositAccountXpub(text);
        if (account) return account;
        ctx.addIssue({ code: 'custom', message: "must be the xpub of the deposit account m/44'/195'/0' (npm run deposit-keys prints it), never an xprv" });
        return z.NEVER;
      }),
    }),
  },
  depositAddresses: 'derived',
  depositKeysOf(signing): Record<string, string> {
    return signing.TRON_DEPOSIT_SEED ? { TRON_DEPOSIT_XPUB: depositAccountXpub(hexSeed.parse(signing.TRON_DEPOSIT_SEED)) } : {};
  },
  walletLinkLabel: 'Open in a Tron wallet (tron: link)',
  addresses: {
    normalize: (address) => (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address) && TronWeb.isAddress(address) ? address : null),
    // Stored as the family's wallets write it (base58).
    display: (address) => address,
    form: 'a base58check address starting with T',
  },
  createAdapter: (config, keys, reads) =>
    new TronAdapter(config, { depositXpub: keys.TRON_DEPOSIT_XPUB, treasuryPrivateKey: keys.TRON_TREASURY_PRIVATE_KEY, depositSeed: keys.TRON_DEPOSIT_SEED }, reads),
  scanRangeBlocks: () => SCAN_BLOCKS,
});
