import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Address } from '@ton/core';
import { tonSecretKeyHex } from '../../../chains/ton/wallets';
import { defineDevnetFamily } from '../family';
import { startTonDevnet } from './index';

/** TON: `rpcUrl` is toncenter v2 (`new TonClient({ endpoint: rpcUrl })`); `tokens.USDT.address` is the jetton master (raw form). */
export interface DevStackTonChain {
  family: 'ton';
  chainId: number;
  name: string;
  rpcUrl: string;
  tokens: { USDT: { address: string; decimals: number } };
  nativeCurrency: { symbol: 'TON'; decimals: 9 };
}

/** The TON devnet's chain: TON's SLIP-44 coin type is its id (docs/chains.md). */
export const TON_DEVNET_CHAIN = { chainId: 607, name: 'TON (devnet)' } as const;

/** The TON devnet (@ton/sandbox behind a toncenter front). With `persistent` its chain survives restarts. */
export const tonDevnet = defineDevnetFamily({
  family: 'ton',
  ports: [{ env: 'DEVNET_TON_PORT', fallback: 8548 }],
  depositSeeds: ['TON_DEPOSIT_SEED'],
  async start(options) {
    const stateFile = options.persistent ? path.join(options.varDir, 'devnet', 'ton.json') : undefined;
    if (stateFile) await mkdir(path.dirname(stateFile), { recursive: true });
    const ton = await startTonDevnet({ port: options.ports[0] ?? 0, stateFile, blockTimeMs: options.blockTimeMs, logFile: path.join(options.logDir, 'ton.log') });
    const usdt = { address: Address.parse(ton.jettons.USDT.master).toRawString(), decimals: ton.jettons.USDT.decimals };
    const chains: DevStackTonChain[] = [{ family: 'ton', ...TON_DEVNET_CHAIN, rpcUrl: ton.endpoint, tokens: { USDT: usdt }, nativeCurrency: { symbol: 'TON', decimals: 9 } }];
    try {
      return {
        chains,
        // A block is final once in the masterchain, so one block is both depths.
        registryEntries: (feeds) => [
          {
            family: 'ton' as const,
            ...TON_DEVNET_CHAIN,
            rpcUrl: ton.endpoint,
            // The devnet enforces no rate limit: paced as toncenter's Advanced plan allows.
            requestsPerSecond: 100,
            confirmations: 1,
            finalityDepth: 1,
            pollIntervalMs: 500,
            tokens: { USDT: { ...usdt, usdPegged: true } },
            // Priced by the TON/USD feed another devnet serves (never updated, so a long age is allowed).
            nativeCurrency: {
              symbol: 'TON',
              decimals: 9,
              ...(feeds.TON ? { usdPriceFeed: feeds.TON.feed, usdPriceFeedChainId: feeds.TON.chainId, maxPriceAgeSeconds: 7 * 24 * 3600 } : {}),
            },
          },
        ],
        customer: { mnemonic: ton.customer.mnemonic },
        env: { TON_TREASURY_SECRET_KEY: await tonSecretKeyHex(ton.treasury.mnemonic) },
        freshChainIds: [],
        stop: () => ton.stop(),
      };
    } catch (err) {
      await ton.stop();
      throw err;
    }
  },
});
