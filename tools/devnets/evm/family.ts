import { lzReceiveOption } from '../../../chains/bridges/oft';
import type { CctpConfig, OftConfig } from '../../../chains/bridges/config';
import { deployDevnetBridges, type DevnetBridges } from '../bridges/deploy';
import { defineDevnetFamily } from '../family';
import { startDevnet } from './devnet';

/** The devnet's two EVM chains, with their mainnet ids. */
export const DEVNET_CHAINS = [
  { chainId: 42161, name: 'Arbitrum (devnet)' },
  { chainId: 8453, name: 'Base (devnet)' },
] as const;

/** Devnet chain → the mainnet chains of the legacy currency table it serves (docs/legacy-orders.md). */
const DEVNET_STAND_INS: Record<number, number[]> = { 42161: [1, 56], 8453: [137, 42220] };

/** The chain that serves the devnets' USD price feeds (ETH's on both chains, and TON's). */
const FEED_CHAIN_ID = 42161;
/** The devnets' feeds are never updated, so a long age is allowed. */
const FEED_MAX_AGE_SECONDS = 7 * 24 * 3600;

export interface DevStackEvmChain {
  family: 'evm';
  chainId: number;
  name: string;
  rpcUrl: string;
  tokens: Record<'USDC' | 'USDT' | 'CUSD', { address: string; decimals: number }>;
  /** A batch sender (several token transfers in one transaction), for tests of multisend payins. */
  multiSend: string;
}

/**
 * The two-chain EVM devnet (one hardhat node per chain, Payrail's contracts and test tokens) with its bridges: CCTP
 * v2 with the Iris stand-in, LayerZero OFT with its relayer. Fresh on every start. The customer is hardhat account
 * #1; `treasury` and `bridges` are there for tests that reach into them.
 */
export const evmDevnet = defineDevnetFamily({
  family: 'evm',
  ports: [
    { env: 'DEVNET_ARBITRUM_PORT', fallback: 8545 },
    { env: 'DEVNET_BASE_PORT', fallback: 8546 },
    // The devnet's stand-in for Circle's attestation service (Iris).
    { env: 'DEVNET_IRIS_PORT', fallback: 8547 },
  ],
  depositSeeds: [],
  async start(options) {
    const [arbitrumPort = 0, basePort = 0, irisPort = 0] = options.ports;
    const devnet = await startDevnet({
      chains: [
        { ...DEVNET_CHAINS[0], port: arbitrumPort },
        { ...DEVNET_CHAINS[1], port: basePort },
      ],
      blockTimeMs: options.blockTimeMs,
      logDir: options.logDir,
    });
    let bridges: DevnetBridges;
    try {
      const [home, other] = devnet.chains.map((c) => ({ chainId: c.chainId, rpcUrl: c.rpcUrl, usdc: c.tokens.USDC.address, usdt: c.tokens.USDT.address }));
      if (!home || !other) throw new Error('the devnet bridges need two chains');
      bridges = await deployDevnetBridges({ chains: [home, other], treasuryKey: devnet.treasury.privateKey, attestation: { port: irisPort } });
    } catch (err) {
      await devnet.stop();
      throw err;
    }
    const feedChain = devnet.chains.find((c) => c.chainId === FEED_CHAIN_ID)!;
    const chains: DevStackEvmChain[] = devnet.chains.map((c) => ({ family: 'evm', chainId: c.chainId, name: c.name, rpcUrl: c.rpcUrl, tokens: c.tokens, multiSend: c.multiSend }));
    return {
      chains,
      // 2 confirmations so a reorg can be staged, finality at 4.
      registryEntries: () =>
        devnet.chains.map((c, i) => ({
          family: 'evm' as const,
          chainId: c.chainId,
          name: c.name,
          rpcUrl: c.rpcUrl,
          // The devnet's RPC is on this machine: a wallet in this machine's browser reaches it too.
          walletRpcUrl: c.rpcUrl,
          confirmations: 2,
          finalityDepth: 4,
          pollIntervalMs: 500,
          replaceAfterBlocks: 3,
          depositFactory: c.depositFactory,
          forwarderInitCodeHash: c.forwarderInitCodeHash,
          cctp: devnetCctp(bridges, i),
          oft: { USDT: devnetOft(bridges, i) },
          tokens: {
            // 0.01 of a stablecoin: smaller payins that cannot count are held rather than refunded at a loss.
            USDC: { ...c.tokens.USDC, usdPegged: true, dustUnits: '10000' },
            USDT: { ...c.tokens.USDT, usdPegged: true, dustUnits: '10000' },
            CUSD: { ...c.tokens.CUSD, usdPegged: true, dustUnits: '10000' },
          },
          // Legacy orders: native ETH priced by the devnet's ETH/USD feed, and the mainnet entries of the currency
          // table that the two devnet chains stand in for.
          nativeCurrency: { symbol: 'ETH', decimals: 18, usdPriceFeed: c.priceFeeds.ETH_USD, maxPriceAgeSeconds: FEED_MAX_AGE_SECONDS },
          servesChainIds: DEVNET_STAND_INS[c.chainId] ?? [],
        })),
      // TON has no on-chain feeds of its own: the TON devnet's coin is priced here.
      usdPriceFeeds: { TON: { chainId: feedChain.chainId, feed: feedChain.priceFeeds.TON_USD } },
      customer: devnet.customer,
      env: { TREASURY_PRIVATE_KEY: devnet.treasury.privateKey },
      freshChainIds: devnet.chains.map((c) => c.chainId),
      demoPayout: { chainId: 8453, tokenSymbol: 'USDC', address: devnet.merchantPayout.address },
      treasury: devnet.treasury,
      bridges,
      async stop() {
        await bridges.stop();
        await devnet.stop();
      },
    };
  },
});

/** CCTP v2 on devnet chain `i`: our contracts, attested by the local Iris stand-in, fast transfers. */
function devnetCctp(bridges: DevnetBridges, i: number): CctpConfig {
  const chain = bridges.cctp.chains[i];
  if (!chain) throw new Error(`no CCTP deployment on devnet chain ${i}`);
  return { domain: chain.domain, tokenMessenger: chain.tokenMessenger, messageTransmitter: chain.messageTransmitter, irisBaseUrl: bridges.cctp.irisUrl, finality: 'fast', expectedSeconds: 5 };
}

/** USDT's OFT on devnet chain `i` (the lock adapter on the first chain, mint/burn on the second), relayed by ours. */
function devnetOft(bridges: DevnetBridges, i: number): OftConfig {
  const chain = bridges.oft.chains[i];
  if (!chain) throw new Error(`no OFT deployment on devnet chain ${i}`);
  // SimpleMessageLib enforces no executor options; 200k gas covers the OFT's lzReceive (a mint or an unlock).
  return { eid: chain.eid, oft: chain.oft, extraOptions: lzReceiveOption(200_000n), expectedSeconds: 5 };
}
