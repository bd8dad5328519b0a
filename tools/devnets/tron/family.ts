import { defineDevnetFamily } from '../family';
import { startTronDevnet } from './index';

export interface DevStackTronChain {
  family: 'tron';
  chainId: number;
  name: string;
  /** The full-node HTTP API (tronweb's `fullHost`). */
  rpcUrl: string;
  tokens: Record<'USDT', { address: string; decimals: number }>;
  /** Held by the customer and configured nowhere: another TRC-20 (TUSD) and a TRC-10 token (by id). */
  otherAssets: { TUSD: { address: string; decimals: number }; TRC10: { id: string; decimals: number } };
}

/** Tron's SLIP-44 coin type: its chain id here (docs/chains.md). */
const CHAIN = { chainId: 195, name: 'Tron (devnet)' } as const;

/** The Tron devnet (the Tron HTTP API over a hardhat node). A fresh chain on every start, like the EVM devnet. */
export const tronDevnet = defineDevnetFamily({
  family: 'tron',
  ports: [{ env: 'DEVNET_TRON_PORT', fallback: 8090 }],
  depositSeeds: ['TRON_DEPOSIT_SEED'],
  async start(options) {
    const tron = await startTronDevnet({ port: options.ports[0] ?? 0, blockTimeMs: options.blockTimeMs, logDir: options.logDir });
    const chains: DevStackTronChain[] = [{ family: 'tron', ...CHAIN, rpcUrl: tron.fullHost, tokens: tron.tokens, otherAssets: tron.otherAssets }];
    return {
      chains,
      registryEntries: () => [
        {
          family: 'tron' as const,
          ...CHAIN,
          rpcUrl: tron.fullHost,
          // Solidified as the devnet solidifies.
          confirmations: 1,
          finalityDepth: tron.solidityDepth,
          pollIntervalMs: 500,
          tokens: { USDT: { ...tron.tokens.USDT, usdPegged: true } },
          // The devnet burns a flat fee per contract call: a call's fee limit (and a deposit's top-up) covers it with room to spare.
          feeLimitSun: Number(tron.contractCallFeeSun) * 2,
          // TRX's USD price weighs a refund's burn against its value (the devnet has no price feed for it).
          feeCoinUsd: '0.25',
        },
      ],
      customer: tron.customer,
      env: { TRON_TREASURY_PRIVATE_KEY: tron.treasury.privateKey },
      freshChainIds: [CHAIN.chainId],
      stop: () => tron.stop(),
    };
  },
});
