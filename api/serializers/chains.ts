import type { ChainRegistry, TokenConfig } from '../../chains/registry';
import { formatUnits } from '../../domain/money';
import { minimumUnits } from '../../services/payments';
import type { ChainList } from '../schemas/chains';

function toTokenRecord(token: TokenConfig, native: boolean): ChainList['data'][number]['tokens'][number] {
  return {
    symbol: token.symbol,
    address: native ? null : token.address,
    decimals: token.decimals,
    native,
    minimumAmount: formatUnits(minimumUnits(token), token.decimals),
  };
}

export function toChainList(registry: ChainRegistry): ChainList {
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
          ...Object.keys(chain.tokens).map((symbol) => toTokenRecord(registry.token(chain.chainId, symbol), false)),
          ...(native ? [toTokenRecord(native, true)] : []),
        ],
      };
    }),
  };
}
