import path from 'node:path';
import { defineDevnetFamily } from '../family';
import { startSolanaDevnet, type SolanaDevnetToken } from './index';

export interface DevStackSolanaChain {
  family: 'solana';
  chainId: number;
  name: string;
  rpcUrl: string;
  wsUrl: string;
  /** The mints: USDC (SPL Token) and PYUSD (Token-2022). */
  tokens: Record<'USDC' | 'PYUSD', SolanaDevnetToken>;
}

/** Solana's SLIP-44 coin type: its chain id here (docs/chains.md). */
const CHAIN = { chainId: 501, name: 'Solana (devnet)' } as const;

/** The Solana devnet (litesvm behind a JSON-RPC front). With `persistent` its ledger survives restarts. */
export const solanaDevnet = defineDevnetFamily({
  family: 'solana',
  ports: [{ env: 'DEVNET_SOLANA_PORT', fallback: 8899 }],
  depositSeeds: ['SOLANA_DEPOSIT_SEED'],
  async start(options) {
    const solana = await startSolanaDevnet({
      port: options.ports[0] ?? 0,
      // litesvm's state is saved at stop and loaded at start.
      stateFile: options.persistent ? path.join(options.varDir, 'solana', 'state.json') : undefined,
      logFile: path.join(options.logDir, 'solana.log'),
    });
    const chains: DevStackSolanaChain[] = [{ family: 'solana', ...CHAIN, rpcUrl: solana.rpcUrl, wsUrl: solana.wsUrl, tokens: solana.mints }];
    return {
      chains,
      registryEntries: () => [
        {
          family: 'solana' as const,
          ...CHAIN,
          rpcUrl: solana.rpcUrl,
          cluster: 'localnet' as const,
          // One confirmed slot on top; finalized as the devnet finalizes (4 slots deep).
          confirmations: 1,
          finalityDepth: 4,
          pollIntervalMs: 500,
          tokens: {
            USDC: { ...solana.mints.USDC, usdPegged: true },
            PYUSD: { ...solana.mints.PYUSD, usdPegged: true },
          },
          // SOL's USD price, to weigh a refund's fee against its value (the devnet has no price feed for it).
          feeCoinUsd: '150',
        },
      ],
      customer: solana.customer,
      env: { SOLANA_TREASURY_SECRET_KEY: JSON.stringify(solana.treasury.secretKey) },
      freshChainIds: [],
      stop: () => solana.stop(),
    };
  },
});
