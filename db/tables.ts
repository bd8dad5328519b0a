/** Row types of the tables, as node-postgres returns them (numeric and bigint as strings). */

import type { BridgeQuote } from '../domain/bridges';
import type { ChainAction, ChainTxIntent, TransferRequest } from '../domain/chain-txs';
import type { LedgerAccount, LedgerKind } from '../domain/ledger';
import type { OrderRecord, OrderStatus } from '../domain/orders';
import type { PayinDisposition, PayinStatus } from '../domain/payins';
import type { PaymentDisplay, PaymentRecord } from '../domain/payment';
import type { RefundRecord } from '../domain/refunds';
import type { WebhookEventType } from '../domain/webhook-events';

export type { PayinDisposition, PayinStatus, PaymentDisplay, WebhookEventType, OrderStatus };

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
  /** Whether `POST {payment_api_url}/payments` (appId in the body, no key) may create payments for this app. */
  keyless_payments: boolean;
  /** Basis points of a payment's amount its payins may fall short of and still complete it (0–100). */
  underpayment_tolerance_bps: number;
  /** What the app may owe for its refunds, in whole payout tokens (a decimal), set by the operator. */
  refund_credit: string;
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

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'exhausted';

/** The dashboard's signed test event: logged with the deliveries, of no payment. */
export const WEBHOOK_TEST_EVENT = 'webhook_test';

export interface WebhookDeliveryRow {
  delivery_id: string;
  app_id: string;
  /** Null only for a test event. */
  payment_id: string | null;
  event_type: WebhookEventType | typeof WEBHOOK_TEST_EVENT;
  url: string;
  status: WebhookDeliveryStatus;
  status_code: number | null;
  response_preview: string | null;
  attempt_number: number;
  delivered_at: Date | null;
  /** The event's body as it was signed and sent (its `data`, the payment as of the event); null when the attempt died unrecorded. */
  body: string | null;
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
  last_used_at: Date | null;
}

/** The payment: the domain's record is the row. */
export type PaymentRow = PaymentRecord;

/** A merchant refund: the domain's record is the row. */
export type RefundRow = RefundRecord;

export interface DepositAddressRow {
  chain_id: number;
  address: string;
  payment_id: string;
  watch_until: Date;
  /** The deposit's receiving accounts (`deposit_accounts`) were recorded, possibly none. */
  accounts_recorded: boolean;
}

/** An account that receives for a deposit without being its address (TON: a jetton wallet of the deposit wallet). */
export interface DepositAccountRow {
  chain_id: number;
  /** Lower-case, as deposit addresses are stored. */
  account: string;
  deposit_address: string;
  token_address: string;
}

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
  /** Base units kept at the deposit address as dust (all of a held payin, or the dust excess of one that paid). */
  held_units: string;
  /** The sequence of the last write applied (a payment run's or late-payin run's counter). */
  sequence: number;
  created_at: Date;
  updated_at: Date;
}

export type ChainTxStatus = 'signed' | 'confirmed' | 'reverted';

export interface ChainTxRow {
  intent_key: ChainTxIntent['intentKey'];
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
  /** The block the current attempt was broadcast at (null until it was). */
  sent_at_block: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  /** Earlier attempts of the intent (replaced or re-planned): one of them may still be the one mined. */
  replaced_tx_hashes: string[];
  /** The send queue it was signed from (services/chain-txs.ts): one in flight per queue. Null: signed at once. */
  queue_key: string | null;
  /** The chain action it was prepared from (null for bridge calls): what it is prepared from again, and what lands. */
  action: ChainAction | null;
  /** Past this bound (the family's measure, `SignedChainTx.validUntil`) it can no longer land. */
  valid_until: string | null;
  created_at: Date;
  updated_at: Date;
}

/** An intent waiting for its turn on a send queue: not signed yet. */
export interface ChainTxQueueRow {
  intent_key: string;
  chain_id: number;
  queue_key: string;
  payment_id: string | null;
  purpose: string;
  priority: number;
  request: TransferRequest;
  action: ChainAction;
  refused: string | null;
  created_at: Date;
}

/** Treasury balance set aside for a payout or a merchant refund before it is signed; released once it is mined. */
export interface TreasuryReservationRow {
  /** The transfer the tokens are set aside for: `payout:<paymentId>` or `merchant-refund:<refundId>`. */
  intent_key: string;
  payment_id: string;
  chain_id: number;
  token_address: string;
  amount_units: string;
  created_at: Date;
  released_at: Date | null;
}

/** A bridge transfer refilling a short treasury from another chain's treasury (workflows/rebalance.ts). */
export interface RebalanceRow {
  id: string;
  token_symbol: string;
  from_chain_id: number;
  to_chain_id: number;
  amount_units: string;
  status: 'bridging' | 'completed' | 'failed';
  quote: BridgeQuote | null;
  received_units: string | null;
  created_at: Date;
  completed_at: Date | null;
}

/** One movement of the conservation ledger (domain/ledger.ts). */
export interface LedgerEntryRow {
  id: string;
  ref: string;
  chain_id: number;
  token_address: string;
  kind: LedgerKind;
  debit_account: LedgerAccount;
  credit_account: LedgerAccount;
  /** The address of a physical debit (credit) account; null for a logical one. */
  debit_address: string | null;
  credit_address: string | null;
  amount_units: string;
  payment_id: string | null;
  created_at: Date;
}

/** The legacy order: the domain's record is the row. */
export type OrderRow = OrderRecord;

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

/** Where a chain's watcher has scanned up to (inclusive), so a restarted watcher resumes there. */
export interface ChainCursorRow {
  chain_id: number;
  block_number: string;
  block_hash: string;
  updated_at: Date;
}
