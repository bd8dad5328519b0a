import type { ChainRegistry, TokenConfig } from '../../chains/registry';
import { tokenPricing, type PricingPolicy } from '../../domain/payment-plan';
import { formatUnits } from '../../domain/money';
import type { ChainList } from '../schemas/chains';

function toTokenRecord(chainId: number, token: TokenConfig, native: boolean, pricing: PricingPolicy): ChainList['data'][number]['tokens'][number] {
  // The pricing policy's minimum (PAYMENT_MINIMUMS); a token without one takes any positive amount.
  const minimum = tokenPricing(pricing, { chainId, symbol: token.symbol, decimals: token.decimals }).minimumUnits;
  return {
    symbol: token.symbol,
    address: native ? null : token.address,
    decimals: token.decimals,
    native,
    minimumAmount: formatUnits(minimum > 0n ? minimum : 1n, token.decimals),
  };
}

/** The chains and tokens payments may use, with each token's minimum under the pricing policy. */
export function toChainList(registry: ChainRegistry, pricing: PricingPolicy): ChainList {
  return {
    data: registry.chains.map((chain) => {
      const native = registry.findNativeToken(chain.chainId);
      return {
        chainId: String(chain.chainId),
        family: chain.family,
        name: chain.name,
        confirmations: chain.confirmations,
        finalityDepth: chain.finalityDepth,
        tokens: [
          ...Object.keys(chain.tokens).map((symbol) => toTokenRecord(chain.chainId, registry.token(chain.chainId, symbol), false, pricing)),
          ...(native ? [toTokenRecord(chain.chainId, native, true, pricing)] : []),
        ],
      };
    }),
  };
}
