import { paymentData } from '../../domain/payment-resource';
import type { MerchantAppRow, PaymentRow } from '../../db/tables';
import { withDisplayedDeposit, type ChainRegistry } from '../../services/chains';

/**
 * The payment as `GET /payments/{id}` returns it: the full schema (domain) plus the fields only reads carry. The
 * merchant's own fields (`metadata`, `webhookUrl`, `webhookSecretSource`, `merchant`) are shown only to a reader
 * holding the owning app's key (`withMerchantFields`); anyone else (the customer following the payment link) gets
 * them as `null`, so the schema never changes shape. The deposit address is shown as the family's wallets write it.
 */
export function toPaymentResource(
  registry: ChainRegistry,
  row: PaymentRow,
  app: Pick<MerchantAppRow, 'app_id' | 'name'>,
  publicBaseUrl: string,
  options: { withMerchantFields: boolean },
) {
  const shown = options.withMerchantFields;
  return {
    ...paymentData(withDisplayedDeposit(registry, row)),
    paymentLink: `${publicBaseUrl}/pay/${row.id}`,
    metadata: shown ? row.metadata : null,
    webhookUrl: shown ? row.webhook_url : null,
    webhookSecretSource: shown && row.webhook_url ? ('merchant_app' as const) : null,
    merchant: shown ? { appId: app.app_id, name: app.name } : null,
  };
}

export type PaymentResource = ReturnType<typeof toPaymentResource>;
