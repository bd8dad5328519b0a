import type { Knex } from 'knex';

/**
 * Decimals of the amounts `dailySettledPayments` returns: each token's base units are lifted to 36 decimals
 * (the most a registry token may have), so sums across tokens of different decimals stay exact integers.
 */
export const STATS_DECIMALS = 36;

export interface DailySettledPayments {
  /** UTC calendar day, `YYYY-MM-DD`. */
  date: string;
  paymentCount: number;
  /** Sum of the declared source amounts, in units of 10^-STATS_DECIMALS. */
  volumeUnits: bigint;
  /** Sum of the payout amounts, in units of 10^-STATS_DECIMALS. */
  netUnits: bigint;
}

/**
 * Per UTC day of the last `days` days (oldest first, today last, days without payments included): the app's
 * payments whose payout was confirmed that day, in the listed USD-priced tokens only.
 */
export async function dailySettledPayments(options: {
  knex: Knex;
  appId: string;
  days: number;
  usdTokens: Array<{ chainId: number; symbol: string }>;
}): Promise<DailySettledPayments[]> {
  const { knex, appId, days, usdTokens } = options;
  const { rows } = await knex.raw<{ rows: Array<{ date: string; payment_count: number; volume_units: string; net_units: string }> }>(
    `with days as (
       select cast(now() at time zone 'UTC' as date) - g as day from generate_series(0, :days - 1) g
     ),
     usd_tokens as (
       select cast(t->>0 as integer) as chain_id, t->>1 as symbol from jsonb_array_elements(cast(:usdTokens as jsonb)) t
     ),
     settled as (
       select cast(p.payout_confirmed_at at time zone 'UTC' as date) as day,
              p.source_amount_units * cast('1' || repeat('0', ${STATS_DECIMALS} - p.source_decimals) as numeric) as volume,
              p.destination_amount_units * cast('1' || repeat('0', ${STATS_DECIMALS} - p.destination_decimals) as numeric) as net
       from payments p
       where p.app_id = :appId
         and p.status in ('payment_payout_completed', 'payment_completed')
         and p.payout_confirmed_at >= cast((select min(day) from days) as timestamp) at time zone 'UTC'
         and (p.source_chain_id, p.source_token_symbol) in (select chain_id, symbol from usd_tokens)
         and (p.destination_chain_id, p.destination_token_symbol) in (select chain_id, symbol from usd_tokens)
     )
     select to_char(d.day, 'YYYY-MM-DD') as date,
            cast(count(s.day) as integer) as payment_count,
            cast(coalesce(sum(s.volume), 0) as text) as volume_units,
            cast(coalesce(sum(s.net), 0) as text) as net_units
     from days d left join settled s on s.day = d.day
     group by d.day
     order by d.day`,
    { appId, days, usdTokens: JSON.stringify(usdTokens.map((t) => [t.chainId, t.symbol])) },
  );
  return rows.map((r) => ({ date: r.date, paymentCount: r.payment_count, volumeUnits: BigInt(r.volume_units), netUnits: BigInt(r.net_units) }));
}
