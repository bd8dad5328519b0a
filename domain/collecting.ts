/**
 * A payment that collects: what its payins in the payment's token brought so far, and what is left to pay. The
 * hosted page asks the customer for the rest; the dashboard offers "Accept as paid" once something is confirmed.
 */
import type { PayinDisposition, PayinStatus } from './payins';
import type { PaymentRecord } from './payment';

/** A recorded payin, as far as its counting towards the payment goes. */
export interface CountablePayin {
  token_address: string;
  amount_units: string;
  status: PayinStatus;
  disposition: PayinDisposition | null;
}

export interface Arrived {
  /** Confirmed payins that count towards the amount. */
  confirmedUnits: bigint;
  /** Payins seen on chain, still waiting for their confirmations. */
  confirmingUnits: bigint;
  /** The amount less both, never below 0. */
  leftUnits: bigint;
}

/**
 * What arrived towards a payment: its payins in its token that neither vanished (dropped) nor go back to their
 * sender or stay as dust at the deposit address. A payment that completed counted its payins already; this is for
 * one that still collects.
 */
export function arrivedTowards(payment: Pick<PaymentRecord, 'source_token_address' | 'source_amount_units'>, payins: CountablePayin[]): Arrived {
  const token = payment.source_token_address.toLowerCase();
  const counting = payins.filter((p) => p.token_address.toLowerCase() === token && p.status !== 'dropped' && (p.disposition === null || p.disposition === 'payment'));
  const sum = (status: PayinStatus) => counting.filter((p) => p.status === status).reduce((total, p) => total + BigInt(p.amount_units), 0n);
  const confirmedUnits = sum('confirmed');
  const confirmingUnits = sum('detected');
  const left = BigInt(payment.source_amount_units) - confirmedUnits - confirmingUnits;
  return { confirmedUnits, confirmingUnits, leftUnits: left > 0n ? left : 0n };
}
