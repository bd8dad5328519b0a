// Stellar amounts: int64 stroops inside, 7-decimal strings at the edge (as Horizon renders them).

const STROOPS_PER_UNIT = 10_000_000n;
export const INT64_MAX = 2n ** 63n - 1n;

export function formatAmount(stroops: bigint): string {
  const sign = stroops < 0n ? '-' : '';
  const abs = stroops < 0n ? -stroops : stroops;
  return `${sign}${abs / STROOPS_PER_UNIT}.${(abs % STROOPS_PER_UNIT).toString().padStart(7, '0')}`;
}

/** Parses a non-negative decimal with at most 7 fractional digits ("10", "10.5", "0.0000001"). */
export function parseAmount(value: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,7}))?$/.exec(value);
  if (!match) throw new Error(`invalid Stellar amount ${JSON.stringify(value)}`);
  return BigInt(match[1] ?? '0') * STROOPS_PER_UNIT + BigInt((match[2] ?? '').padEnd(7, '0'));
}
