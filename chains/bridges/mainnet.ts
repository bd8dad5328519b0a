// Mainnet bridge configuration for the chains of the interface's currency list (spec 2.10), as data.
//
// Sources (test/devnets/bridges.test.ts checks the Circle and LayerZero numbers against the npm packages):
// * CCTP v2 domains, TokenMessengerV2 / MessageTransmitterV2 addresses, native USDC addresses and the confirmation
//   counts: Circle's `@circle-fin/bridge-kit@1.15.1`, export `@circle-fin/bridge-kit/chains` (`cctp.domain`,
//   `cctp.contracts.v2`, `usdcAddress`). BNB Chain is not a CCTP chain there; Celo is listed with `cctp: null`.
// * LayerZero v2 endpoint ids: `@layerzerolabs/lz-definitions@3.1.13` (`EndpointId.<CHAIN>_V2_MAINNET`).
// * LayerZero EndpointV2 address: `@layerzerolabs/lz-evm-sdk-v2@3.1.10`, `deployments/<chain>-mainnet/EndpointV2.json`
//   (the same address on all six EVM chains; not a dependency, read once).
// * USDT0 OFT contracts: USDT0's published deployment list (docs.usdt0.to, Technical Documentation → Developer →
//   Deployments); no npm package ships it. Ethereum has the lock/unlock OAdapterUpgradeable over Tether's USDT, the
//   other chains an OUpgradeable that mints and burns the local USDT0 token. Base, BNB Chain and Celo have no USDT0
//   OFT in that list, so USDT to or from them has no native bridge here.

export interface MainnetCctpChain {
  domain: number;
  tokenMessenger: string;
  messageTransmitter: string;
  usdc: string;
  /** Source confirmations Circle waits for a standard (finalized) and a fast (confirmed) burn. */
  confirmations: { standard: number; fast: number };
}

export interface MainnetOftChain {
  eid: number;
  endpoint: string;
  /** The contract `send` is called on (OAdapterUpgradeable on Ethereum, OUpgradeable elsewhere). */
  oft: string;
  token: string;
}

export interface MainnetBridgeChain {
  chainId: number | null;
  name: string;
  /** LayerZero v2 endpoint id, whether or not USDT0 is deployed there. */
  lzEid: number;
  cctp: MainnetCctpChain | null;
  usdt0: MainnetOftChain | null;
}

export const IRIS_MAINNET_URL = 'https://iris-api.circle.com';
export const IRIS_TESTNET_URL = 'https://iris-api-sandbox.circle.com';

const CCTP_V2_TOKEN_MESSENGER = '0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d';
const CCTP_V2_MESSAGE_TRANSMITTER = '0x81D40F21F12A8F0E3252Bccb954D722d4c464B64';
const LZ_ENDPOINT_V2 = '0x1a44076050125825900e736c501f859c50fE728c';

const cctp = (domain: number, usdc: string, standard: number, fast: number): MainnetCctpChain => ({
  domain, tokenMessenger: CCTP_V2_TOKEN_MESSENGER, messageTransmitter: CCTP_V2_MESSAGE_TRANSMITTER, usdc, confirmations: { standard, fast },
});

export const MAINNET_BRIDGES = {
  ethereum: {
    chainId: 1,
    name: 'Ethereum',
    lzEid: 30101,
    cctp: cctp(0, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 65, 2),
    usdt0: { eid: 30101, endpoint: LZ_ENDPOINT_V2, oft: '0x6C96dE32CEa08842dcc4058c14d3aaAD7Fa41dee', token: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
  },
  arbitrum: {
    chainId: 42161,
    name: 'Arbitrum One',
    lzEid: 30110,
    cctp: cctp(3, '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', 65, 1),
    usdt0: { eid: 30110, endpoint: LZ_ENDPOINT_V2, oft: '0x14E4A1B13bf7F943c8ff7C51fb60FA964A298D92', token: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9' },
  },
  base: {
    chainId: 8453,
    name: 'Base',
    lzEid: 30184,
    cctp: cctp(6, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 65, 1),
    usdt0: null,
  },
  polygon: {
    chainId: 137,
    name: 'Polygon PoS',
    lzEid: 30109,
    cctp: cctp(7, '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 33, 13),
    usdt0: { eid: 30109, endpoint: LZ_ENDPOINT_V2, oft: '0x6BA10300f0DC58B7a1e4c0e41f5daBb7D7829e13', token: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F' },
  },
  bnb: {
    chainId: 56,
    name: 'BNB Chain',
    lzEid: 30102,
    cctp: null,
    usdt0: null,
  },
  celo: {
    chainId: 42220,
    name: 'Celo',
    lzEid: 30125,
    cctp: null,
    usdt0: null,
  },
  /** CCTP only: Solana's program ids are base58, so they are listed but not usable by the EVM client. */
  solana: {
    chainId: null,
    name: 'Solana',
    lzEid: 30168,
    cctp: {
      domain: 5,
      tokenMessenger: 'CCTPV2vPZJS2u2BBsUoscuikbYjnpFmbFsvVuJdgUMQe',
      messageTransmitter: 'CCTPV2Sm4AdWt5296sk4P66VBZ7bEhcARwFaaS9YPbeC',
      usdc: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      confirmations: { standard: 32, fast: 3 },
    },
    usdt0: null,
  },
} as const satisfies Record<string, MainnetBridgeChain>;

export type MainnetBridgeChainName = keyof typeof MAINNET_BRIDGES;

export function mainnetBridgeChain(chainId: number): MainnetBridgeChain | undefined {
  return Object.values(MAINNET_BRIDGES).find((c: MainnetBridgeChain) => c.chainId === chainId);
}
