/**
 * Merchant refunds: a merchant gives a customer back some or all of a completed payment, from the source chain's
 * treasury (the app owes it), or past the app's refund credit from the payment's deposit address once the merchant
 * funded it there, to an address the merchant or the customer names. The refund is the merchant's money
 * (docs/interface-decisions.md).
 */
import type { PaymentRecord } from './payment';

export const REFUND_STATUSES = ['awaiting_address', 'pending', 'sent', 'completed', 'failed'] as const;

export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** The stored refund (the `refunds` row). Amounts are base units of the payment's source token. */
export interface RefundRecord {
  id: string;
  payment_id: string;
  app_id: string;
  idempotency_key: string;
  /** What the request asked for (payment, amount, reason, address): the same key with another request is refused. */
  request_fingerprint: string;
  amount_units: string;
  reason: string | null;
  /** Where the refund goes, in its family's stored form; null while the refund awaits one. */
  address: string | null;
  /** SHA-256 (hex) of the claim link's token, for a refund asked for without an address; the token is never stored. */
  claim_token_hash: string | null;
  /** When the awaiting refund got its address (the customer's claim, or the merchant's send to the sender). */
  claimed_at: Date | null;
  /** When its run was started; null until then (the reconciler starts the run of a refund with an address and none). */
  workflow_started_at: Date | null;
  /**
   * What the merchant pays into the payment's deposit address for this refund, which is then sent from there (the
   * refund was past the app's refund credit); null when the source chain's treasury fronts it and the app owes it.
   */
  funding_units: string | null;
  /** The payin that funded it (its transaction and log index), once one did. */
  funding_tx_hash: string | null;
  funding_log_index: number | null;
  funded_at: Date | null;
  status: RefundStatus;
  tx_hash: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** Only a completed payment is refunded by its merchant: its payins are final and its payout was made. */
export const REFUNDABLE_STATUS = 'payment_completed';

/**
 * What a payment's refunds may add up to: what its payins delivered towards it (an overpayment's excess went back to
 * its sender already, so never more than the amount).
 */
export function refundableUnits(payment: Pick<PaymentRecord, 'source_amount_units' | 'amount_received_units'>): bigint {
  const amount = BigInt(payment.source_amount_units);
  const received = BigInt(payment.amount_received_units ?? 0);
  return received < amount ? received : amount;
}

/** The refunds that hold part of the refundable amount: every one but a failed one. */
export const holdsAmount = (refund: Pick<RefundRecord, 'status'>): boolean => refund.status !== 'failed';

/** What is left to refund of a payment, given its refunds. */
export function leftToRefund(payment: Pick<PaymentRecord, 'source_amount_units' | 'amount_received_units'>, refunds: Array<Pick<RefundRecord, 'status' | 'amount_units'>>): bigint {
  const held = refunds.filter(holdsAmount).reduce((sum, r) => sum + BigInt(r.amount_units), 0n);
  return refundableUnits(payment) - held;
}

/** Whether the completed refunds give the customer back the whole payment (it then becomes `payment_refunded`). */
export function fullyRefunded(payment: Pick<PaymentRecord, 'source_amount_units' | 'amount_received_units'>, refunds: Array<Pick<RefundRecord, 'status' | 'amount_units'>>): boolean {
  const completed = refunds.filter((r) => r.status === 'completed').reduce((sum, r) => sum + BigInt(r.amount_units), 0n);
  return completed >= refundableUnits(payment);
}

/**
 * What the app owes for a refund, in its payment's payout token: the refund's share of the payout before Payrail's
 * fee, which is not given back (a whole refund owes the payout plus the fee), rounded up.
 */
export function owedForRefund(payment: Pick<PaymentRecord, 'source_amount_units' | 'fee_units' | 'destination_amount_units'>, refundUnits: bigint): bigint {
  const beforeFee = BigInt(payment.source_amount_units) - BigInt(payment.fee_units);
  return (refundUnits * BigInt(payment.destination_amount_units) + beforeFee - 1n) / beforeFee;
}

/** A payout keeps back at most this share of itself for its app's refunds: the merchant still sees each payment paid. */
export const NETTING_MAX_SHARE_BPS = 5000n;

/** What a payout of `payoutUnits` keeps back for the `owedUnits` its app owes for refunds. */
export function payoutDeduction(owedUnits: bigint, payoutUnits: bigint): bigint {
  if (owedUnits <= 0n) return 0n;
  const most = (payoutUnits * NETTING_MAX_SHARE_BPS) / 10_000n;
  return owedUnits < most ? owedUnits : most;
}

/** Whether the merchant funds the refund (it was past the app's refund credit), rather than owing it. */
export const merchantFunds = (refund: Pick<RefundRecord, 'funding_units'>): boolean => refund.funding_units !== null;

/**
 * Whether a payin funds the refund: one transfer of the payment's token of at least the refund's funding amount (the
 * rest goes back to its sender), while the refund waits for one.
 */
export function fundsRefund(
  refund: Pick<RefundRecord, 'funding_units' | 'funding_tx_hash' | 'status'>,
  payment: Pick<PaymentRecord, 'source_token_address'>,
  payin: { tokenAddress: string; amountUnits: string },
): boolean {
  if (refund.funding_units === null || refund.funding_tx_hash !== null) return false;
  if (refund.status !== 'awaiting_address' && refund.status !== 'pending') return false;
  return payin.tokenAddress.toLowerCase() === payment.source_token_address.toLowerCase() && BigInt(payin.amountUnits) >= BigInt(refund.funding_units);
}

/** What of a funding payin is not its refund's, and goes back to its sender: all of it once the refund failed. */
export function fundingExcess(payinUnits: string, refund: Pick<RefundRecord, 'status' | 'amount_units'>): bigint {
  return BigInt(payinUnits) - (refund.status === 'failed' ? 0n : BigInt(refund.amount_units));
}

/**
 * When a refund still awaiting its address may be sent to its payment's sender instead: `windowDays` after it was
 * asked for (`REFUND_CLAIM_WINDOW_DAYS`). Until the merchant does, the claim link keeps working.
 */
export function claimWindowEnd(refund: Pick<RefundRecord, 'created_at'>, windowDays: number): Date {
  return new Date(refund.created_at.getTime() + windowDays * 24 * 3600 * 1000);
}

/** Until when a refund the merchant funds waits for its funding: the claim window (after it, the refund fails). */
export const fundingWindowEnd = claimWindowEnd;
