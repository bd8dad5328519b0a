/**
 * Tron deposit keys: BIP-32 secp256k1 from one seed, the deposit account at `m/44'/195'/0'` and one key per payment
 * below it along non-hardened indices `a/b/c/d/e` (the payment id's 128 bits in 31-bit groups, as for Solana's
 * keys). Non-hardened children have public keys that follow from the account's extended public key alone: the API
 * holds only the account's xpub and derives every deposit address from it; the seed, which alone can sign for a
 * deposit, stays in the worker.
 */
import { HDNodeVoidWallet, HDNodeWallet, computeAddress } from 'ethers';
import { TronWeb } from 'tronweb';
import { depositPath } from '../solana/derivation';

/** Tron's SLIP-44 coin type: the deposit path's and the chain id's (docs/chains.md). */
const TRON_COIN_TYPE = 195;
/** The deposit account: the last hardened level; payments are its non-hardened children. */
const DEPOSIT_ACCOUNT_PATH = `m/44'/${TRON_COIN_TYPE}'/0'`;
const ACCOUNT_DEPTH = 3;

/** The payment's path below the deposit account: its id's five 31-bit groups, non-hardened. */
const childPath = (paymentId: string): string => depositPath(paymentId, TRON_COIN_TYPE).slice(ACCOUNT_DEPTH).join('/');

/** The deposit account's extended public key (`xpub…`), the form `TRON_DEPOSIT_XPUB` takes. */
export const depositAccountXpub = (seed: Uint8Array): string => HDNodeWallet.fromSeed(seed).derivePath(DEPOSIT_ACCOUNT_PATH).neuter().extendedKey;

/**
 * The deposit account from its xpub, or null when the text is not the public key of an account at depth 3: an
 * extended private key (`xprv…`) is refused, so the API cannot be given one by mistake.
 */
export function parseDepositAccountXpub(text: string): HDNodeVoidWallet | null {
  try {
    const node = HDNodeWallet.fromExtendedKey(text);
    return node instanceof HDNodeVoidWallet && node.depth === ACCOUNT_DEPTH ? node : null;
  } catch {
    return null;
  }
}

/** A hex Tron address (`41…`) as base58check. */
const tronAddress = (evmAddress: string): string => TronWeb.address.fromHex(`41${evmAddress.slice(2)}`);

/** The payment's deposit address, from the deposit account's public key alone. */
export const depositAddressFromXpub = (account: HDNodeVoidWallet, paymentId: string): string =>
  tronAddress(computeAddress(account.derivePath(childPath(paymentId)).publicKey));

/** The deposit account's signing node, from the seed (worker only). */
export const depositAccount = (seed: Uint8Array): HDNodeWallet => HDNodeWallet.fromSeed(seed).derivePath(DEPOSIT_ACCOUNT_PATH);

/** The payment's deposit private key (hex, no 0x), from the deposit account's signing node. */
export const depositPrivateKey = (account: HDNodeWallet, paymentId: string): string => account.derivePath(childPath(paymentId)).privateKey.slice(2);
