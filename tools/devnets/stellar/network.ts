import { createHash } from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';

/** Unlike any public network's, so a transaction signed here can never be replayed elsewhere (and vice versa). */
export const NETWORK_PASSPHRASE = 'Payrail Stellar Devnet ; 2026';
export const PROTOCOL_VERSION = 21;
export const BASE_FEE = 100n;
export const BASE_RESERVE = 5_000_000n;
/** Operations per ledger, as on the public network; the rest of the queue waits for the next ledger. */
export const MAX_TX_SET_OPERATIONS = 1000;
/** 100 billion XLM, held by the root account at genesis as on every Stellar network. */
export const TOTAL_COINS = 100_000_000_000n * 10_000_000n;

export type DevnetRole = 'issuer' | 'treasury' | 'customer' | 'receiving';

/** Fixed keys, so addresses are the same on every start and every machine. */
export function devnetKeypair(role: DevnetRole): Keypair {
  return Keypair.fromRawEd25519Seed(createHash('sha256').update(`payrail-stellar-devnet/${role}`).digest());
}

export const USDC_CODE = 'USDC' as const;
export const USDC_DECIMALS = 7 as const;

export interface StellarKeys { publicKey: string; secret: string }
export interface StellarDevnetInfo {
  horizonUrl: string;
  networkPassphrase: string;
  assets: { USDC: { code: typeof USDC_CODE; issuer: string; decimals: typeof USDC_DECIMALS } };
  /** The service's one receiving account (payins are told apart by memo); 1,000 XLM and a USDC trustline. */
  receiving: StellarKeys;
  /** 100,000 XLM and 1,000,000 USDC. */
  treasury: StellarKeys;
  /** 10,000 XLM and 10,000 USDC. */
  customer: StellarKeys;
  /** USDC's issuer (100 XLM): mints by paying, burns by receiving. */
  issuer: StellarKeys;
}

export function describeDevnet(horizonUrl: string): StellarDevnetInfo {
  const keys = (role: DevnetRole): StellarKeys => {
    const keypair = devnetKeypair(role);
    return { publicKey: keypair.publicKey(), secret: keypair.secret() };
  };
  return {
    horizonUrl,
    networkPassphrase: NETWORK_PASSPHRASE,
    assets: { USDC: { code: USDC_CODE, issuer: devnetKeypair('issuer').publicKey(), decimals: USDC_DECIMALS } },
    receiving: keys('receiving'),
    treasury: keys('treasury'),
    customer: keys('customer'),
    issuer: keys('issuer'),
  };
}
