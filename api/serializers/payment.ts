import { paymentData } from '../../domain/payment-resource';
import type { MerchantAppRow, PaymentRow } from '../../db/tables';

/** The payment as `GET /payments/{id}` returns it: the full schema (domain) plus the fields only reads carry. */
export function toPaymentResource(row: PaymentRow, app: Pick<MerchantAppRow, 'app_id' | 'name'>, publicBaseUrl: string) {
  return {
    ...paymentData(row),
    paymentLink: `${publicBaseUrl}/pay/${row.id}`,
    metadata: row.metadata,
    webhookUrl: row.webhook_url,
    webhookSecretSource: row.webhook_url ? 'merchant_app' : null,
    merchant: { appId: app.app_id, name: app.name },
  };
}

export type PaymentResource = ReturnType<typeof toPaymentResource>;
