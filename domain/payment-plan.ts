/**
 * What a payment will be, decided before it exists: the fee, what the merchant is paid, and whether the customer's
 * token can pay the merchant's payout token. Any chain pays any payout chain: the destination treasury pays the
 * merchant from its float and the treasuries are rebalanced behind (docs/bridges.md). Shared by the payment API and
 * legacy orders.
 */
import { invalidField } from './errors';
import { convertDecimals, feeFor, formatUnits, parseUnits } from './money';
import { USD_DECIMALS } from './pricing';
import { paymentRoute, type PaymentRoute } from './payment';

/** A decimal amount of one token, on one chain or (chainId null) on every chain that has it. */
export interface TokenAmountRule {
  chainId: number | null;
  symbol: string;
  amount: string;
}

/**
 * How Payrail charges: a fee of `feeBps` of the amount, but never less than the fixed fee of the chain and token
 * (the sweep, forwarder deployment, bridge and payout gas the treasury pays), and a minimum amount per chain and
 * token. A rule naming the chain wins over one for every chain; a token without a rule has none.
 */
export interface PricingPolicy {
  feeBps: number;
  fixedFees: readonly TokenAmountRule[];
  minimums: readonly TokenAmountRule[];
}

/** What the policy asks of a payment in one token, in that token's base units. */
export interface TokenPricing {
  feeBps: number;
  fixedFeeUnits: bigint;
  minimumUnits: bigint;
}

function ruleUnits(rules: readonly TokenAmountRule[], token: Pick<PlanToken, 'chainId' | 'symbol' | 'decimals'>): bigint {
  const rule = rules.find((r) => r.chainId === token.chainId && r.symbol === token.symbol) ?? rules.find((r) => r.chainId === null && r.symbol === token.symbol);
  return rule ? parseUnits(rule.amount, token.decimals) : 0n;
}

export function tokenPricing(policy: PricingPolicy, token: Pick<PlanToken, 'chainId' | 'symbol' | 'decimals'>): TokenPricing {
  return { feeBps: policy.feeBps, fixedFeeUnits: ruleUnits(policy.fixedFees, token), minimumUnits: ruleUnits(policy.minimums, token) };
}

/** The fee of a payment of `amountUnits`: its basis points, or the fixed fee when that is more. */
export const paymentFee = (amountUnits: bigint, pricing: TokenPricing): bigint => {
  const proportional = feeFor(amountUnits, pricing.feeBps);
  return proportional > pricing.fixedFeeUnits ? proportional : pricing.fixedFeeUnits;
};

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

export interface PlanToken {
  chainId: number;
  symbol: string;
  address: string;
  decimals: number;
  /** Priced 1:1 to USD (stablecoins). */
  usdPegged: boolean;
}

export interface PaymentPlanInput {
  source: PlanToken;
  /** The merchant's payout token on the payout chain. */
  destination: PlanToken;
  amountUnits: bigint;
  /**
   * Only for a source token not pegged to USD (a native coin): the payment's USD value in micro-USD at the rate it
   * was priced at. The payout is computed from it, and nothing is bridged (the treasury keeps the coin).
   */
  usdValueMicros?: bigint;
  pricing: PricingPolicy;
  /** Request fields a refusal names. */
  fields: { token: string; amount: string };
}

export interface PaymentPlan {
  feeUnits: bigint;
  payoutUnits: bigint;
  route: PaymentRoute;
}

/** Throws a DomainError naming the field when the merchant's wallet cannot be paid this way. */
export function planPayment(input: PaymentPlanInput): PaymentPlan {
  const { source, destination, amountUnits, fields } = input;
  const refuse = invalidField;
  if (amountUnits <= 0n) throw refuse(fields.amount, 'must be greater than zero');
  const pricing = tokenPricing(input.pricing, source);
  if (amountUnits < pricing.minimumUnits) {
    throw refuse(fields.amount, `must be at least ${formatUnits(pricing.minimumUnits, source.decimals)} ${source.symbol} on chain ${source.chainId} (the minimum payment)`);
  }

  const pricedAtRate = input.usdValueMicros !== undefined;
  if (pricedAtRate && !destination.usdPegged) throw refuse(fields.token, `${source.symbol} can only be paid out in a stablecoin`);
  if (!pricedAtRate && (!source.usdPegged || !destination.usdPegged) && source.symbol !== destination.symbol) {
    throw refuse(fields.token, 'only stablecoins can be paid out in another token');
  }
  const feeUnits = paymentFee(amountUnits, pricing);
  const payoutUnits = pricedAtRate
    ? convertDecimals(input.usdValueMicros! - usdFee(input.usdValueMicros!, amountUnits, feeUnits, pricing), USD_DECIMALS, destination.decimals)
    : convertDecimals(amountUnits - feeUnits, source.decimals, destination.decimals);
  if (payoutUnits <= 0n) throw refuse(fields.amount, 'is too small to pay out after the fee');
  return {
    feeUnits,
    payoutUnits,
    route: paymentRoute({ source_token_address: source.address, source_chain_id: source.chainId, destination_chain_id: destination.chainId }),
  };
}

/** The fee of a coin priced at a rate, in micro-USD: its basis points of the value, or the fixed fee's share of it. */
function usdFee(usdValueMicros: bigint, amountUnits: bigint, feeUnits: bigint, pricing: TokenPricing): bigint {
  const proportional = feeFor(usdValueMicros, pricing.feeBps);
  if (feeUnits <= feeFor(amountUnits, pricing.feeBps)) return proportional;
  const fixed = ceilDiv(usdValueMicros * feeUnits, amountUnits);
  return fixed > proportional ? fixed : proportional;
}
