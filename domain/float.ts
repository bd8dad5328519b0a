/**
 * The treasuries' floats against their marks, and the transfers that bring a short one back: pure. Payouts are paid
 * from the destination treasury's float (workflows/payment.ts); this says where that float runs low and from where
 * it can be refilled (docs/operations.md, "Treasury float").
 */

/** One treasury's float of one token: its balance less the open payout reservations, in the chain's base units. */
export interface TreasuryFloat {
  chainId: number;
  symbol: string;
  floatUnits: bigint;
  lowUnits: bigint;
  highUnits: bigint;
}

export type FloatPosition = 'short' | 'within' | 'surplus';

export const floatPosition = (f: TreasuryFloat): FloatPosition => (f.floatUnits < f.lowUnits ? 'short' : f.floatUnits > f.highUnits ? 'surplus' : 'within');

/**
 * A refill of a short treasury up to its high mark: by bridge from a treasury above its own high mark, when a bridge
 * connects them; else a need an operator meets by hand (`fromChainId` names the treasury that can give, if any).
 * `amountUnits` is in the short chain's base units (a bridge route has the same decimals on both sides).
 */
export interface Rebalance {
  symbol: string;
  toChainId: number;
  fromChainId: number | null;
  amountUnits: bigint;
  route: 'bridge' | 'operator';
}

/**
 * For every short treasury (in chain id order), the refill: from the bridge-connected treasury of the same token
 * with the most above its high mark (never taking it below that mark), else an operator's transfer of what it lacks.
 */
export function planRebalances(floats: readonly TreasuryFloat[], bridges: (symbol: string, fromChainId: number, toChainId: number) => boolean): Rebalance[] {
  const surplus = new Map(floats.filter((f) => floatPosition(f) === 'surplus').map((f) => [`${f.chainId}:${f.symbol}`, f.floatUnits - f.highUnits]));
  const plan: Rebalance[] = [];
  for (const short of [...floats].filter((f) => floatPosition(f) === 'short').sort((a, b) => a.chainId - b.chainId)) {
    const lacking = short.highUnits - short.floatUnits;
    const givers = floats
      .filter((f) => f.symbol === short.symbol && f.chainId !== short.chainId && (surplus.get(`${f.chainId}:${f.symbol}`) ?? 0n) > 0n)
      .sort((a, b) => Number((surplus.get(`${b.chainId}:${b.symbol}`) ?? 0n) - (surplus.get(`${a.chainId}:${a.symbol}`) ?? 0n)) || a.chainId - b.chainId);
    const bridged = givers.find((g) => bridges(short.symbol, g.chainId, short.chainId));
    if (!bridged) {
      plan.push({ symbol: short.symbol, toChainId: short.chainId, fromChainId: givers[0]?.chainId ?? null, amountUnits: lacking, route: 'operator' });
      continue;
    }
    const key = `${bridged.chainId}:${bridged.symbol}`;
    const available = surplus.get(key)!;
    const amountUnits = available < lacking ? available : lacking;
    surplus.set(key, available - amountUnits);
    plan.push({ symbol: short.symbol, toChainId: short.chainId, fromChainId: bridged.chainId, amountUnits, route: 'bridge' });
  }
  return plan;
}
