import { StrKey } from '@stellar/stellar-sdk';
import { z } from 'zod';
import { defineChainFamily } from '../family';
import { StellarAdapter } from './adapter';
import { stellarChainSchema } from './config';

/** Ledgers one scan may cover: a scan pages the receiving account's payments, so the range only bounds the cursor step. */
const SCAN_LEDGERS = 100;

const secretSeed = z.string().regex(/^S[A-Z2-7]{55}$/, 'must be a Stellar secret seed (S…)');

/** Stellar: one receiving account, a MEMO_ID per payment (the deposit address is its muxed `M…` form). */
export const stellar = defineChainFamily({
  id: 'stellar',
  chainSchema: stellarChainSchema,
  env: {
    signing: z.object({
      /** The treasury's secret (S…): payouts and refunds. */
      STELLAR_TREASURY_SECRET: secretSeed,
      /** The receiving account's secret (S…): sweeps out of it. */
      STELLAR_RECEIVING_SECRET: secretSeed,
    }),
    // Deposit addresses come from the receiving account of the chains file: no key.
    deposits: z.object({}),
  },
  depositAddresses: 'derived',
  walletLinkLabel: 'Open in a Stellar wallet (SEP-7 link)',
  addresses: {
    // A muxed M… address is an account with the memo id its owner needs (an exchange's customer): payments to it
    // carry the id, so a refund or payout reaches an account that is credited by memo.
    normalize: (address) => (StrKey.isValidEd25519PublicKey(address) || StrKey.isValidMed25519PublicKey(address) ? address : null),
    // Stored as wallets write it: G… accounts, M… for a deposit (the page also shows the receiving account and memo).
    display: (address) => address,
    form: 'a G… account id, or an M… muxed address carrying the memo id an exchange needs (StrKey)',
  },
  createAdapter: (config, keys, reads) => new StellarAdapter(config, { treasurySecret: keys.STELLAR_TREASURY_SECRET, receivingSecret: keys.STELLAR_RECEIVING_SECRET }, reads),
  scanRangeBlocks: () => SCAN_LEDGERS,
});
