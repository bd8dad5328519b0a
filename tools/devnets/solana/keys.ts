import { createHash } from 'node:crypto';
import { createKeyPairSignerFromPrivateKeyBytes, getAddressEncoder, type KeyPairSigner } from '@solana/kit';

/** The devnet's fixed key names: every start derives the same keys, so every address is stable. */
export type DevnetKeyName = 'faucet' | 'treasury' | 'customer' | 'usdc-mint' | 'usdc-authority' | 'pyusd-mint' | 'pyusd-authority';

export interface DevnetKey {
  signer: KeyPairSigner;
  /** Solana's 64-byte secret key layout (32-byte seed, then the public key), as solana-keygen writes it. */
  secretKey: Uint8Array;
}

/** An ed25519 key whose seed is sha256 of a fixed label: deterministic, and useless anywhere but this devnet. */
export async function devnetKey(name: DevnetKeyName): Promise<DevnetKey> {
  const seed = createHash('sha256').update(`payrail-solana-devnet/${name}`).digest();
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(getAddressEncoder().encode(signer.address), 32);
  return { signer, secretKey };
}
