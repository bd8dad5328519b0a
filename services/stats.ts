import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { formatUnits } from '../domain/money';
import { STATS_DECIMALS, dailySettledPayments } from '../db/queries/stats';

/** The periods of spec 2.8 and the UTC days each covers (today only, or the last 7 or 30 days). */
export const STATS_PERIOD_DAYS = { today: 1, '7d': 7, '30d': 30 } as const;
export type StatsPeriod = keyof typeof STATS_PERIOD_DAYS;

/** USDC's decimals: the average is rounded down to them. */
const USDC_DECIMALS = 6;

/**
 * Statistics of spec 2.8 for one app. Volume is what customers were asked to pay (the declared source amount,
 * fee included) of the payments paid out in the period; net is what reached the merchant wallet. Stablecoins
 * count 1:1 as USDC; tokens without a USD peg are left out until payments record a price.
 */
export async function merchantStats(deps: { knex: Knex; chains: ChainAdapters }, appId: string, period: StatsPeriod) {
  const usdTokens = deps.chains.registry.chains.flatMap((c) =>
    Object.entries(c.tokens)
      .filter(([, token]) => token.usdPegged)
      .map(([symbol]) => ({ chainId: c.chainId, symbol })),
  );
  const days = await dailySettledPayments({ knex: deps.knex, appId, days: STATS_PERIOD_DAYS[period], usdTokens });
  const usdc = (units: bigint) => formatUnits(units, STATS_DECIMALS);
  const volume = days.reduce((sum, d) => sum + d.volumeUnits, 0n);
  const net = days.reduce((sum, d) => sum + d.netUnits, 0n);
  const paymentCount = days.reduce((sum, d) => sum + d.paymentCount, 0);
  const average = paymentCount === 0 ? 0n : volume / BigInt(paymentCount) / 10n ** BigInt(STATS_DECIMALS - USDC_DECIMALS);
  return {
    period,
    volumeUsdc: usdc(volume),
    paymentCount,
    avgOrderUsdc: formatUnits(average, USDC_DECIMALS),
    netToWalletUsdc: usdc(net),
    chart: days.map((d) => ({ date: d.date, volumeUsdc: usdc(d.volumeUnits), paymentCount: d.paymentCount })),
  };
}
