import type { ChainRegistry, TokenConfig } from '../chains/registry';
import { PAY_CURRENCIES, PAY_CURRENCY_CODES, type PayCurrencyCode, type PayCurrencyDefinition } from '../domain/pay-currencies';

/** A pay currency as this deployment serves it. */
export interface ServedPayCurrency {
  code: PayCurrencyCode;
  /** Label for people: "USDC on Arbitrum". */
  label: string;
  network: string;
  /** The configured chain that receives the payin (on the devnet possibly a stand-in for `mainnetChainId`). */
  chainId: number;
  chainName: string;
  mainnetChainId: number;
  token: TokenConfig;
  native: boolean;
  /** Where the USD price comes from: 1:1 for stablecoins, else the chain's price feed. */
  /** A feed is read on `feedChainId`: the chain itself, or the EVM chain a feed-less chain's coin is priced on. */
  pricing: { kind: 'usd_pegged' } | { kind: 'price_feed'; feed: string; feedChainId: number; maxAgeSeconds: number };
}

export type PayCurrencyResolution =
  | { ok: true; currency: ServedPayCurrency }
  | { ok: false; reason: 'no_chain' | 'not_configured' | 'no_price_source'; message: string };

export function resolvePayCurrency(registry: ChainRegistry, code: PayCurrencyCode): PayCurrencyResolution {
  const def: PayCurrencyDefinition = PAY_CURRENCIES[code];
  const chain = registry.findChainServing(def.chainId);
  if (!chain) {
    return { ok: false, reason: 'no_chain', message: `${code} (${def.token} on ${def.network}) is not supported here: this deployment serves no ${def.network} chain` };
  }
  const token = def.native ? registry.findNativeToken(chain.chainId) : registry.findToken(chain.chainId, def.token);
  if (!token || (def.native && token.symbol !== def.token)) {
    return { ok: false, reason: 'not_configured', message: `${code} (${def.token} on ${def.network}) is not available on this deployment` };
  }
  let pricing: ServedPayCurrency['pricing'];
  if (token.usdPegged) {
    pricing = { kind: 'usd_pegged' };
  } else if (def.native && chain.nativeCurrency?.usdPriceFeed) {
    const feedChainId = chain.nativeCurrency.usdPriceFeedChainId ?? chain.chainId;
    pricing = { kind: 'price_feed', feed: chain.nativeCurrency.usdPriceFeed, feedChainId, maxAgeSeconds: chain.nativeCurrency.maxPriceAgeSeconds };
  } else {
    return { ok: false, reason: 'no_price_source', message: `${code} cannot be priced in USD: no price feed is configured for ${def.token} on ${def.network}` };
  }
  return {
    ok: true,
    currency: {
      code,
      label: `${def.token} on ${def.network}`,
      network: def.network,
      chainId: chain.chainId,
      chainName: chain.name,
      mainnetChainId: def.chainId,
      token,
      native: def.native === true,
      pricing,
    },
  };
}

/** Every pay currency this deployment can take, in the order of spec 2.10. */
export function servedPayCurrencies(registry: ChainRegistry): ServedPayCurrency[] {
  return PAY_CURRENCY_CODES.flatMap((code) => {
    const resolved = resolvePayCurrency(registry, code);
    return resolved.ok ? [resolved.currency] : [];
  });
}

