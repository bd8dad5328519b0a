/**
 * The legacy `pay_currency` values (spec 2.10) and where each one is paid. Each entry names its mainnet chain id
 * (EIP-155 for EVM chains, the SLIP-44 coin type for the others: docs/chains.md); a deployment serves an entry when
 * its chain registry has that chain (or a chain that stands in for it, `servesChainIds`, as the devnet does) with
 * that token (services/pay-currencies.ts).
 */
export interface PayCurrencyDefinition {
  token: string;
  network: string;
  /** Mainnet chain id. */
  chainId: number;
  /** The chain's native coin rather than a token. */
  native?: boolean;
}

export const PAY_CURRENCIES = {
  USDT_ARB: { token: 'USDT', network: 'Arbitrum', chainId: 42161 },
  USDC_ARB: { token: 'USDC', network: 'Arbitrum', chainId: 42161 },
  ETH_ARB: { token: 'ETH', network: 'Arbitrum', chainId: 42161, native: true },
  USDC_ERC20: { token: 'USDC', network: 'Ethereum', chainId: 1 },
  USDT_ERC20: { token: 'USDT', network: 'Ethereum', chainId: 1 },
  USDT_TRC20: { token: 'USDT', network: 'Tron', chainId: 195 },
  USDC_SOL: { token: 'USDC', network: 'Solana', chainId: 501 },
  USDC_POL: { token: 'USDC', network: 'Polygon', chainId: 137 },
  TON: { token: 'TON', network: 'TON', chainId: 607, native: true },
  USDT_TON: { token: 'USDT', network: 'TON', chainId: 607 },
  USDT_BNB: { token: 'USDT', network: 'BNB Chain', chainId: 56 },
  USDT_CELO: { token: 'USDT', network: 'Celo', chainId: 42220 },
  CUSD: { token: 'CUSD', network: 'Celo', chainId: 42220 },
  USDC_BASE: { token: 'USDC', network: 'Base', chainId: 8453 },
  ETH_BASE: { token: 'ETH', network: 'Base', chainId: 8453, native: true },
  USDC_XLM: { token: 'USDC', network: 'Stellar', chainId: 148 },
} as const satisfies Record<string, PayCurrencyDefinition>;

export type PayCurrencyCode = keyof typeof PAY_CURRENCIES;
export const PAY_CURRENCY_CODES = Object.keys(PAY_CURRENCIES) as [PayCurrencyCode, ...PayCurrencyCode[]];

/** Label currencies an order may be priced in. Only USD has a rate source; the stablecoin codes are USD 1:1. */
export const USD_PRICE_CURRENCIES = ['USD', 'USDC', 'USDT', 'CUSD'] as const;

export const isPayCurrencyCode = (value: string): value is PayCurrencyCode => Object.hasOwn(PAY_CURRENCIES, value);
