/** A chain's bridge contracts, as its chains-file entry names them (the EVM family's schema embeds them). */
import { z } from 'zod';
import { hexAddress } from '../config';

const hex = z.string().regex(/^0x([0-9a-fA-F]{2})*$/);

/** Circle CCTP v2 on this chain (docs/bridges.md lists mainnet's); USDC moves through it. */
export const cctpSchema = z.object({
  domain: z.number().int().min(0),
  tokenMessenger: hexAddress,
  messageTransmitter: hexAddress,
  /** Circle's attestation API for this network: https://iris-api.circle.com (mainnet), the sandbox (testnets), a stand-in (devnet). */
  irisBaseUrl: z.string().url(),
  /** Burns from this chain: fast (attested once confirmed, for a fee) or standard (attested once final). */
  finality: z.enum(['fast', 'standard']).default('fast'),
  /** Rough burn-to-mint time, for quotes. */
  expectedSeconds: z.number().int().positive().default(60),
});

/** A LayerZero v2 OFT (USDT0 on mainnet) for one token of this chain. */
export const oftSchema = z.object({
  /** LayerZero v2 endpoint id of this chain. */
  eid: z.number().int().positive(),
  /** The contract `send` is called on (an OFT adapter that locks, or an OFT that burns). */
  oft: hexAddress,
  /** Executor options for sends from this chain; empty when the OFT enforces its own (USDT0 does). */
  extraOptions: hex.default('0x'),
  /** Rough send-to-delivery time, for quotes. */
  expectedSeconds: z.number().int().positive().default(180),
});

export type CctpConfig = z.infer<typeof cctpSchema>;
export type OftConfig = z.infer<typeof oftSchema>;
