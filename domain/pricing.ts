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
