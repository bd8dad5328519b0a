/**
 * Money is a decimal string at the edge and a bigint of base units inside. Never a float.
 */

const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export class AmountError extends Error {}

/** Parses a positive-or-zero decimal string into base units; rejects more fraction digits than `decimals`. */
export function parseUnits(amount: string, decimals: number): bigint {
  if (!DECIMAL.test(amount)) throw new AmountError('must be a decimal string such as "12.50"');
  const [whole = '0', fraction = ''] = amount.split('.');
  if (fraction.length > decimals) throw new AmountError(`has more than ${decimals} decimal places`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** Formats base units as a decimal string without trailing zeros ("12.5", "0.000001", "3"). */
export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Re-expresses base units of one token in another's decimals, rounding down (never pays out more). */
export function convertDecimals(units: bigint, fromDecimals: number, toDecimals: number): bigint {
  if (toDecimals >= fromDecimals) return units * 10n ** BigInt(toDecimals - fromDecimals);
  return units / 10n ** BigInt(fromDecimals - toDecimals);
}

/** Fee in base units for `basisPoints` of `units`, rounded down. */
export function feeFor(units: bigint, basisPoints: number): bigint {
  return (units * BigInt(basisPoints)) / 10_000n;
}
