/**
 * Prices in USD become token amounts here. USD amounts are micro-USD bigints (6 decimals, the precision of a
 * legacy `price_amount`); token amounts are base units. Never a float. Rounding always favours being paid in
 * full: what the customer must send rounds up, what the merchant is paid rounds down.
 */

export const USD_DECIMALS = 6;

/** A Chainlink-style answer: USD per whole coin, scaled by 10^decimals. */
export interface UsdRate {
  answer: bigint;
  decimals: number;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** Base units of a USD-pegged token worth `usdMicros` (1:1), rounded up. */
export function peggedUnitsForUsd(usdMicros: bigint, tokenDecimals: number): bigint {
  if (tokenDecimals >= USD_DECIMALS) return usdMicros * 10n ** BigInt(tokenDecimals - USD_DECIMALS);
  return ceilDiv(usdMicros, 10n ** BigInt(USD_DECIMALS - tokenDecimals));
}

/** Base units of a coin worth `usdMicros` at `rate`, rounded up. */
export function unitsForUsd(usdMicros: bigint, tokenDecimals: number, rate: UsdRate): bigint {
  if (rate.answer <= 0n) throw new RangeError('a USD rate must be positive');
  const numerator = usdMicros * 10n ** BigInt(tokenDecimals) * 10n ** BigInt(rate.decimals);
  return ceilDiv(numerator, rate.answer * 10n ** BigInt(USD_DECIMALS));
}

/** The rate as a decimal string ("3000", "2999.5"): USD per whole coin. */
export function formatRate(rate: UsdRate): string {
  const scale = 10n ** BigInt(rate.decimals);
  const whole = rate.answer / scale;
  const fraction = (rate.answer % scale).toString().padStart(rate.decimals, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/**
 * Refund economics: whether returning `amountUnits` of an asset costs more than `maxCostBps` of its value. The
 * cost is in the chain's fee coin; for a refund in that coin the two compare directly, for a USD stablecoin through
 * the fee coin's USD price (micro-USD per whole coin). `unweighable`: a token refund whose cost cannot be priced.
 */
export function refundTooDear(p: {
  amountUnits: bigint;
  asset: { decimals: number; native: boolean; usdPegged: boolean };
  cost: { feeUnits: bigint; feeDecimals: number };
  feeCoinUsdMicros: bigint | null;
  maxCostBps: number;
}): boolean | 'unweighable' {
  const { cost, asset } = p;
  const bps = BigInt(p.maxCostBps);
  if (cost.feeUnits === 0n) return false;
  if (asset.native) return cost.feeUnits * 10_000n * 10n ** BigInt(asset.decimals) > p.amountUnits * bps * 10n ** BigInt(cost.feeDecimals);
  if (!asset.usdPegged || p.feeCoinUsdMicros === null) return 'unweighable';
  // cost (µUSD) = feeUnits × price / 10^feeDecimals; value (µUSD) = amount × 10^6 / 10^decimals; compared without division.
  const costMicrosScaled = cost.feeUnits * p.feeCoinUsdMicros * 10n ** BigInt(asset.decimals);
  const valueMicrosScaled = p.amountUnits * 10n ** BigInt(USD_DECIMALS) * 10n ** BigInt(cost.feeDecimals);
  return costMicrosScaled * 10_000n > valueMicrosScaled * bps;
}
