import path from 'node:path';
import { defineDevnetFamily } from '../family';
import { startStellarDevnet } from './index';

export interface DevStackStellarChain {
  family: 'stellar';
  chainId: number;
  name: string;
  /** Horizon. */
  rpcUrl: string;
  networkPassphrase: string;
  /** The one account payments are paid into, each with its memo. */
  receivingAccount: string;
  /** `address` is `CODE:ISSUER`. */
  tokens: Record<'USDC', { address: string; decimals: number }>;
}

/** Stellar's SLIP-44 coin type: its chain id here (docs/chains.md). */
const CHAIN = { chainId: 148, name: 'Stellar (devnet)' } as const;

/** The Stellar devnet (Horizon's API over an in-memory ledger). With `persistent` its ledger survives restarts. */
export const stellarDevnet = defineDevnetFamily({
  family: 'stellar',
  ports: [{ env: 'DEVNET_STELLAR_PORT', fallback: 8000 }],
  depositSeeds: [],
  async start(options) {
    const stellar = await startStellarDevnet({
      port: options.ports[0] ?? 0,
      stateFile: options.persistent ? path.join(options.varDir, 'stellar', 'state.json') : undefined,
      ledgerTimeMs: options.blockTimeMs,
      logFile: path.join(options.logDir, 'stellar.log'),
    });
    const usdc = { address: `${stellar.assets.USDC.code}:${stellar.assets.USDC.issuer}`, decimals: stellar.assets.USDC.decimals };
    const chain = { ...CHAIN, rpcUrl: stellar.horizonUrl, networkPassphrase: stellar.networkPassphrase, receivingAccount: stellar.receiving.publicKey };
    const chains: DevStackStellarChain[] = [{ family: 'stellar', ...chain, tokens: { USDC: usdc } }];
    return {
      chains,
      // A closed ledger is final.
      // XLM's USD price weighs a refund's fee against its value (the devnet has no price feed for it).
      registryEntries: () => [{ family: 'stellar' as const, ...chain, confirmations: 1, finalityDepth: 1, pollIntervalMs: 500, tokens: { USDC: { ...usdc, usdPegged: true } }, feeCoinUsd: '0.3' }],
      customer: { secret: stellar.customer.secret, address: stellar.customer.publicKey },
      env: { STELLAR_TREASURY_SECRET: stellar.treasury.secret, STELLAR_RECEIVING_SECRET: stellar.receiving.secret },
      freshChainIds: [],
      stop: () => stellar.stop(),
    };
  },
});
