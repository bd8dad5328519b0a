/**
 * The treasuries' floats as operators watch them: each treasury's balance of each token and native coin, read from
 * its chain, less what open reservations (payouts, merchant refunds) set aside, against the token's `floatMarks`; and
 * the rebalances that would bring the short ones back (domain/float.ts).
 */
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { sumOpenReservations } from '../db/queries/treasury-reservations';
import { planRebalances, type Rebalance, type TreasuryFloat } from '../domain/float';
import { parseUnits } from '../domain/money';
import { bridgeRouteFor } from './bridges';

export interface TreasuryFloatReading extends TreasuryFloat {
  decimals: number;
}

/** Every treasury's float that could be read now (a chain that does not answer is left out). */
export async function readTreasuryFloats(deps: { knex: Knex; chains: ChainAdapters }): Promise<TreasuryFloatReading[]> {
  const { chains } = deps;
  const reserved = await sumOpenReservations({ knex: deps.knex });
  const readings = await Promise.all(
    chains.registry.chains.flatMap((chain) => {
      const native = chains.registry.findNativeToken(chain.chainId);
      return [...Object.entries(chain.tokens).map(([symbol, token]) => ({ ...token, symbol })), ...(native ? [native] : [])].map(async (token) => {
        const balance = await chains.treasuryBalance(chain.chainId, token.address).catch(() => undefined);
        if (balance === undefined) return undefined;
        const held = reserved.find((r) => r.chainId === chain.chainId && r.tokenAddress === token.address.toLowerCase())?.units ?? 0n;
        return {
          chainId: chain.chainId,
          symbol: token.symbol,
          decimals: token.decimals,
          floatUnits: balance - held,
          lowUnits: parseUnits(token.floatMarks.low, token.decimals),
          highUnits: parseUnits(token.floatMarks.high, token.decimals),
        };
      });
    }),
  );
  return readings.filter((r): r is TreasuryFloatReading => r !== undefined);
}

/** The refills the floats call for: by bridge where one connects the chains, else by an operator. */
export function rebalancePlan(chains: ChainAdapters, floats: readonly TreasuryFloatReading[]): Rebalance[] {
  const decimalsOf = (chainId: number, symbol: string) => floats.find((f) => f.chainId === chainId && f.symbol === symbol)?.decimals ?? -1;
  return planRebalances(floats, (symbol, from, to) => bridgeRouteFor(chains, { chainId: from, symbol, decimals: decimalsOf(from, symbol) }, to));
}
