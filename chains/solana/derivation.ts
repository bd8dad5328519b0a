/**
 * Deposit keys: SLIP-0010 ed25519 derivation from one seed, so every deposit address has a key the service can
 * always re-derive and sweep with, and no per-payment secret is ever stored. ed25519 under SLIP-0010 has hardened
 * children only, so the public key needs the seed too: only the worker computes deposit addresses, into the pool the
 * API hands them out from (services/deposit-addresses.ts).
 *
 * Path: m/44'/501'/0'/a'/b'/c'/d'/e' where a…e are the payment id's 128 bits in 31-bit groups (the last has 4 bits),
 * so each payment id has its own key and no two payments share one. 501 is Solana's SLIP-44 coin type.
 */
import { createHmac, createPrivateKey, createPublicKey } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';

const HARDENED = 0x8000_0000;
/** DER prefix of a PKCS#8 ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

interface ExtendedKey {
  key: Buffer;
  chainCode: Buffer;
}

function master(seed: Uint8Array): ExtendedKey {
  const i = createHmac('sha512', 'ed25519 seed').update(seed).digest();
  return { key: i.subarray(0, 32), chainCode: i.subarray(32) };
}

function hardenedChild(parent: ExtendedKey, index: number): ExtendedKey {
  const data = Buffer.alloc(37);
  parent.key.copy(data, 1);
  data.writeUInt32BE((index | HARDENED) >>> 0, 33);
  const i = createHmac('sha512', parent.chainCode).update(data).digest();
  return { key: i.subarray(0, 32), chainCode: i.subarray(32) };
}

/** The 32-byte ed25519 private key (seed) at a path of hardened indices. */
export function derivePrivateKey(seed: Uint8Array, path: number[]): Buffer {
  return path.reduce(hardenedChild, master(seed)).key;
}

/** `m/44'/<coin type>'/0'` followed by the payment id's 128 bits in 31-bit groups (Solana 501, TON 607, Tron 195). */
export function depositPath(paymentId: string, coinType = 501): number[] {
  const hex = paymentId.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`payment id ${paymentId} is not a UUID`);
  let bits = BigInt(`0x${hex}`);
  const groups: number[] = [];
  for (let i = 0; i < 5; i++) {
    groups.unshift(Number(bits & 0x7fff_ffffn));
    bits >>= 31n;
  }
  return [44, coinType, 0, ...groups];
}

/** The 32-byte ed25519 public key of a 32-byte private key (seed). */
export function ed25519PublicKey(privateKey: Uint8Array): Buffer {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, privateKey]), format: 'der', type: 'pkcs8' });
  const { x } = createPublicKey(key).export({ format: 'jwk' });
  return Buffer.from(x!, 'base64url');
}

/** The base58 public key of a 32-byte ed25519 private key. */
export function publicAddress(privateKey: Uint8Array): string {
  return getBase58Decoder().decode(ed25519PublicKey(privateKey));
}
