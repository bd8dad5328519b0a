import type { z } from 'zod';
import { formatUnits } from '../../domain/money';
import type { PaymentRow, RefundRow } from '../../db/tables';
import { claimUrlOf, type RefundClaimDeps } from '../../services/refund-claims';
import { refundFundingOf } from '../../services/refund-funding';
import type { refundResourceSchema } from '../schemas/payments';

export type RefundResource = z.infer<typeof refundResourceSchema>;

/**
 * A merchant refund as `POST`/`GET {payment_api_url}/{id}/refunds` return it, in the payment's source token;
 * `claimUrl` while it awaits its customer's address (services/refund-claims.ts), `funding` where the merchant funds
 * it (services/refund-funding.ts).
 */
export function toRefundResource(
  deps: Pick<RefundClaimDeps, 'chains' | 'secretBox' | 'publicBaseUrl'>,
  refund: RefundRow,
  payment: PaymentRow,
): RefundResource {
  return {
    id: refund.id,
    paymentId: refund.payment_id,
    amount: formatUnits(BigInt(refund.amount_units), payment.source_decimals),
    chainId: String(payment.source_chain_id),
    tokenSymbol: payment.source_token_symbol,
    status: refund.status,
    reason: refund.reason,
    address: refund.address,
    claimUrl: claimUrlOf(deps, refund),
    funding: refundFundingOf(deps.chains, refund, payment),
    txHash: refund.tx_hash,
    createdAt: refund.created_at.toISOString(),
    completedAt: refund.completed_at?.toISOString() ?? null,
  };
}
