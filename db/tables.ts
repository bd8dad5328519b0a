/** Row types of the read-model tables, as node-postgres returns them (numeric and bigint as strings). */

import type { PaymentStatus } from '../workflows/types';

export type ApiKeyScope = 'Orders' | 'Admin';

export interface MerchantAppRow {
  app_id: string;
  name: string;
  developer_id: string | null;
  payout_chain_id: number;
  payout_token_symbol: string;
  payout_address: string;
  webhook_url: string | null;
  webhook_secret_ciphertext: string | null;
  webhook_secret_fingerprint: string | null;
  webhook_secret_rotated_at: Date | null;
  created_at: Date;
}

export interface DeveloperRow {
  id: string;
  email: string;
  created_at: Date;
}

export interface LoginCodeRow {
  id: string;
  email: string;
  code_hash: string;
  attempts: number;
  expires_at: Date;
  consumed_at: Date | null;
  created_at: Date;
}

export type WebhookEventType = 'payment_payin_completed' | 'payment_payout_completed';
export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'exhausted';

export interface WebhookDeliveryRow {
  delivery_id: string;
  app_id: string;
  payment_id: string;
  event_type: WebhookEventType;
  url: string;
  status: WebhookDeliveryStatus;
  status_code: number | null;
  response_preview: string | null;
  attempt_number: number;
  delivered_at: Date | null;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  app_id: string;
  scope: ApiKeyScope;
  key_hash: string;
  key_hint: string;
  name: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

export interface PaymentDisplay {
  title: string | null;
  name: string | null;
  description: string | null;
  currency: string | null;
}

export interface PaymentRow {
  id: string;
  app_id: string;
  order_id: string | null;
  type: 'exactIn';
  status: PaymentStatus;
  display: PaymentDisplay;
  metadata: Record<string, unknown> | null;
  source_chain_id: number;
  source_token_symbol: string;
  source_token_address: string;
  source_decimals: number;
  source_amount_units: string;
  fee_units: string;
  deposit_address: string;
  sender_address: string | null;
  payin_tx_hash: string | null;
  amount_received_units: string | null;
  payin_confirmed_at: Date | null;
  destination_chain_id: number;
  destination_token_symbol: string;
  destination_token_address: string;
  destination_decimals: number;
  destination_address: string;
  destination_amount_units: string;
  payout_tx_hash: string | null;
  payout_confirmed_at: Date | null;
  webhook_url: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  workflow_started_at: Date | null;
}

export interface DepositAddressRow {
  chain_id: number;
  address: string;
  payment_id: string;
  watch_until: Date;
}

export type PayinStatus = 'detected' | 'confirmed' | 'dropped';
export type PayinDisposition = 'payment' | 'refund';

export interface PayinRow {
  id: string;
  payment_id: string;
  chain_id: number;
  tx_hash: string;
  log_index: number;
  token_address: string;
  sender_address: string;
  amount_units: string;
  block_number: string;
  status: PayinStatus;
  disposition: PayinDisposition | null;
  created_at: Date;
  updated_at: Date;
}

export type ChainTxStatus = 'signed' | 'confirmed' | 'reverted';

export interface ChainTxRow {
  intent_key: string;
  payment_id: string | null;
  purpose: string;
  chain_id: number;
  signer: string;
  nonce: string;
  to_address: string;
  token_address: string | null;
  amount_units: string | null;
  raw_tx: string;
  tx_hash: string;
  status: ChainTxStatus;
  block_number: string | null;
  created_at: Date;
  updated_at: Date;
}

export type { OrderStatus } from '../workflows/order-types';
import type { OrderStatus } from '../workflows/order-types';

export interface OrderRow {
  id: string;
  app_id: string;
  merchant_order_id: string | null;
  status: OrderStatus;
  /** numeric(24,6) as node-postgres returns it, e.g. "12.500000". */
  price_amount: string;
  price_currency: string;
  pay_currency: string | null;
  currency_options: string[];
  selected_currency: string | null;
  payment_id: string | null;
  rate: string | null;
  rate_source: string | null;
  title: string | null;
  description: string | null;
  email: string | null;
  callback_url: string | null;
  cancel_url: string | null;
  success_url: string | null;
  mobile: boolean;
  fast: boolean;
  merchant_token: string | null;
  expires_at: Date;
  paid_at: Date | null;
  receipt_sent_at: Date | null;
  created_at: Date;
  updated_at: Date;
  workflow_started_at: Date | null;
}

export interface OrderCallbackAttemptRow {
  id: string;
  order_id: string;
  callback_id: string;
  order_status: OrderStatus;
  attempt: number;
  url: string;
  status_code: number | null;
  error: string | null;
  response_preview: string | null;
  duration_ms: number;
  attempted_at: Date;
}
