import { getAddress } from 'ethers';
import type { MerchantAppRow, PaymentRow } from '../../db/tables';
import { formatUnits } from '../../lib/money';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const amountOrNull = (value: string | null, decimals: number) => (value === null ? null : formatUnits(BigInt(value), decimals));
const amount = (value: string, decimals: number) => formatUnits(BigInt(value), decimals);
const checksumOrNull = (address: string | null) => (address ? getAddress(address) : null);

/**
 * The payment as webhook events carry it (`data`): the read below without `paymentLink`, `metadata`, `webhookUrl`,
 * `webhookSecretSource` and `merchant` (spec 6.1). Full schema, every field not yet known `null`.
 */
export function toPaymentData(row: PaymentRow) {
  return {
    id: row.id,
    appId: row.app_id,
    orderId: row.order_id,
    status: row.status,
    type: row.type,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    display: {
      title: row.display.title,
      name: row.display.name,
      description: row.display.description,
      currency: row.display.currency,
    },
    source: {
      chainId: String(row.source_chain_id),
      tokenSymbol: row.source_token_symbol,
      tokenAddress: getAddress(row.source_token_address),
      amount: amount(row.source_amount_units, row.source_decimals),
      receiverAddress: getAddress(row.deposit_address),
      fee: amount(row.fee_units, row.source_decimals),
      senderAddress: checksumOrNull(row.sender_address),
      txHash: row.payin_tx_hash,
      amountReceived: amountOrNull(row.amount_received_units, row.source_decimals),
      confirmedAt: iso(row.payin_confirmed_at),
    },
    destination: {
      chainId: String(row.destination_chain_id),
      receiverAddress: getAddress(row.destination_address),
      receiverMemo: null,
      tokenSymbol: row.destination_token_symbol,
      tokenAddress: getAddress(row.destination_token_address),
      amount: amount(row.destination_amount_units, row.destination_decimals),
      txHash: row.payout_tx_hash,
      confirmedAt: iso(row.payout_confirmed_at),
    },
  };
}

/** The payment as `GET /payments/{id}` returns it: the event payload plus the fields only reads carry. */
export function toPaymentResource(row: PaymentRow, app: Pick<MerchantAppRow, 'app_id' | 'name'>, publicBaseUrl: string) {
  return {
    ...toPaymentData(row),
    paymentLink: `${publicBaseUrl}/pay/${row.id}`,
    metadata: row.metadata,
    webhookUrl: row.webhook_url,
    webhookSecretSource: row.webhook_url ? 'merchant_app' : null,
    merchant: { appId: app.app_id, name: app.name },
  };
}

export type PaymentData = ReturnType<typeof toPaymentData>;
export type PaymentResource = ReturnType<typeof toPaymentResource>;
