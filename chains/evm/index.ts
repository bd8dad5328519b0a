import { getAddress, isAddress, ZeroAddress } from 'ethers';
import { z } from 'zod';
import { defineChainFamily } from '../family';
import { EvmAdapter } from './adapter';
import { evmChainSchema } from './config';

/** EVM chains: CREATE2 forwarder deposit addresses (no key per payment), one treasury key for every EVM chain. */
export const evm = defineChainFamily({
  id: 'evm',
  chainSchema: evmChainSchema,
  env: {
    signing: z.object({
      /** The treasury (0x-prefixed 32-byte hex): owns the deposit factories, holds payout liquidity, sends the bridge transactions. */
      TREASURY_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex key'),
    }),
    // Deposit addresses are computed from the factory and the payment id: no key.
    deposits: z.object({}),
  },
  depositAddresses: 'derived',
  walletLinkLabel: 'Open in an Ethereum wallet (EIP-681 link)',
  addresses: {
    normalize(address) {
      if (!isAddress(address)) return null;
      const normalized = getAddress(address);
      return normalized === ZeroAddress ? null : normalized;
    },
    display: (address) => getAddress(address),
    form: '0x and 40 hex digits, not the zero address; mixed case must match the EIP-55 checksum',
  },
  createAdapter: (config, keys, reads) => new EvmAdapter(config, keys.TREASURY_PRIVATE_KEY, reads),
  scanRangeBlocks: (config) => config.logBatchBlocks,
});
