import { z } from 'zod';
import { cctpSchema, oftSchema } from '../bridges/config';
import { commonChainFields, hexAddress, nativeCurrencySchema, tokenFields, tokenSymbol } from '../config';

/** An EVM chain's entry of the chains file. */
export const evmChainSchema = z.object({
  family: z.literal('evm'),
  ...commonChainFields,
  /** Largest block range one `eth_getLogs` call may cover (provider limit). */
  logBatchBlocks: z.number().int().positive().default(500),
  /** Blocks a transaction of ours may wait unmined before it is replaced at its nonce with higher EIP-1559 fees. */
  replaceAfterBlocks: z.number().int().positive().default(12),
  /**
   * An RPC URL customers' wallets can reach, offered to a wallet connected to the hosted page that lacks the chain
   * (`wallet_addEthereumChain`). Absent: such a wallet is asked to add the network itself.
   */
  walletRpcUrl: z.string().url().optional(),
  depositFactory: hexAddress,
  /** keccak256 of the deposit forwarder's creation code: deposit addresses are computed offline from it. */
  forwarderInitCodeHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  cctp: cctpSchema.optional(),
  /** OFTs by token symbol (USDT). */
  oft: z.record(tokenSymbol, oftSchema).default({}),
  tokens: z.record(tokenSymbol, z.object({ address: hexAddress, ...tokenFields })),
  nativeCurrency: nativeCurrencySchema.optional(),
});

export type EvmChainConfig = z.infer<typeof evmChainSchema>;
