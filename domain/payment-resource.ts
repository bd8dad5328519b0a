/**
 * The payment as the interface shows it (spec 2.1–2.4): decimal strings, ISO times, every field present and `null`
 * until known. `paymentData` is the full schema that webhook events carry; reads add the fields only reads have.
 */
import { formatUnits } from './money';
import { paidOutUnits, type PaymentRecord } from './payment';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const amount = (units: string, decimals: number) => formatUnits(BigInt(units), decimals);
const amountOrNull = (units: string | null, decimals: number) => (units === null ? null : amount(units, decimals));

export function paymentData(record: PaymentRecord) {
  return {
    id: record.id,
    appId: record.app_id,
    orderId: record.order_id,
    keyless: record.keyless,
    status: record.status,
    type: record.type,
    createdAt: record.created_at.toISOString(),
    updatedAt: record.updated_at.toISOString(),
    expiresAt: record.expires_at.toISOString(),
    display: {
      title: record.display.title,
      name: record.display.name,
      description: record.display.description,
      currency: record.display.currency,
    },
    source: {
      chainId: String(record.source_chain_id),
      tokenSymbol: record.source_token_symbol,
      tokenAddress: record.source_token_address,
      amount: amount(record.source_amount_units, record.source_decimals),
      receiverAddress: record.deposit_address,
      fee: amount(record.fee_units, record.source_decimals),
      senderAddress: record.sender_address,
      txHash: record.payin_tx_hash,
      amountReceived: amountOrNull(record.amount_received_units, record.source_decimals),
      confirmedAt: iso(record.payin_confirmed_at),
    },
    destination: {
      chainId: String(record.destination_chain_id),
      receiverAddress: record.destination_address,
      receiverMemo: null,
      tokenSymbol: record.destination_token_symbol,
      tokenAddress: record.destination_token_address,
      amount: amount(paidOutUnits(record).toString(), record.destination_decimals),
      txHash: record.payout_tx_hash,
      confirmedAt: iso(record.payout_confirmed_at),
    },
  };
}
