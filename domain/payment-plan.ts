/**
 * What a payment will be, decided before it exists: the fee, what the merchant is paid, and whether the route from
 * the customer's token to the merchant's payout token is possible. Shared by the payment API and legacy orders.
 */
import { invalidField } from './errors';
import { convertDecimals, feeFor } from './money';
import { USD_DECIMALS } from './pricing';
import { paymentRoute, type PaymentRoute } from './payment';

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
  /** The source token as configured on the payout chain, when both chains have a bridge (else undefined). */
  bridgedToken?: PlanToken;
  feeBps: number;
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

  const pricedAtRate = input.usdValueMicros !== undefined;
  if (pricedAtRate && !destination.usdPegged) throw refuse(fields.token, `${source.symbol} can only be paid out in a stablecoin`);
  if (!pricedAtRate && (!source.usdPegged || !destination.usdPegged) && source.symbol !== destination.symbol) {
    throw refuse(fields.token, 'only stablecoins can be paid out in another token');
  }
  if (!pricedAtRate && source.chainId !== destination.chainId) {
    // The bridge moves the same base units, so the token must have the same decimals on both sides.
    const bridged = input.bridgedToken;
    if (!bridged || bridged.decimals !== source.decimals) {
      throw refuse(fields.token, `${source.symbol} cannot be bridged from chain ${source.chainId} to chain ${destination.chainId}`);
    }
  }
  const feeUnits = feeFor(amountUnits, input.feeBps);
  const payoutUnits = pricedAtRate
    ? convertDecimals(input.usdValueMicros! - feeFor(input.usdValueMicros!, input.feeBps), USD_DECIMALS, destination.decimals)
    : convertDecimals(amountUnits - feeUnits, source.decimals, destination.decimals);
  if (payoutUnits <= 0n) throw refuse(fields.amount, 'is too small to pay out after the fee');
  return {
    feeUnits,
    payoutUnits,
    route: paymentRoute({ source_token_address: source.address, source_chain_id: source.chainId, destination_chain_id: destination.chainId }),
  };
}
