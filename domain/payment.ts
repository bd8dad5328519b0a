/** The payment as the domain sees it: statuses, the stored record, its terms and its lifecycle writes. */
import type { DetectedPayin, PayinDisposition, PayinStatus } from './payins';

export const PAYMENT_STATUSES = [
  'payment_unpaid',
  'payment_started',
  'payment_payin_completed',
  'payment_bridging',
  'payment_payout_started',
  'payment_payout_completed',
  'payment_completed',
  'payment_expired',
  'payment_bounced',
  'payment_refunded',
] as const;

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Statuses in which the customer's payin is confirmed and counted as paid. */
export const PAID_STATUSES: readonly PaymentStatus[] = [
  'payment_payin_completed',
  'payment_bridging',
  'payment_payout_started',
  'payment_payout_completed',
  'payment_completed',
];

/** Statuses after which the payment's run ends and nothing more happens to it (but late payins' refunds). */
export const SETTLED_STATUSES: readonly PaymentStatus[] = ['payment_completed', 'payment_refunded', 'payment_expired'];

/** The short spellings the interface also uses; accepted wherever a status is an input (ARCHITECTURE §3). */
const SHORT_FORMS: Record<string, PaymentStatus> = {
  unpaid: 'payment_unpaid',
  payin_completed: 'payment_payin_completed',
  payout_completed: 'payment_payout_completed',
};

export function parsePaymentStatus(input: string): PaymentStatus | null {
  const status = SHORT_FORMS[input] ?? input;
  return (PAYMENT_STATUSES as readonly string[]).includes(status) ? (status as PaymentStatus) : null;
}

/**
 * Token addresses Payrail uses for a chain's native coin (ETH on the EVM chains), as the deposit factory names it.
 * A native payin has no log of its own: its identity is the transaction's with `NATIVE_LOG_INDEX`.
 */
export const NATIVE_TOKEN_ADDRESS = '0x0000000000000000000000000000000000000000';
export const isNativeToken = (tokenAddress: string): boolean => tokenAddress.toLowerCase() === NATIVE_TOKEN_ADDRESS;

export interface TokenRef {
  chainId: number;
  symbol: string;
  address: string;
  decimals: number;
}

export interface PaymentDisplay {
  title: string | null;
  name: string | null;
  description: string | null;
  currency: string | null;
}

/**
 * The stored payment (the `payments` row). Amounts are base units as decimal strings (numeric columns), addresses
 * in their chain's display form (EIP-55 for EVM), fixed when the payment is created.
 */
export interface PaymentRecord {
  id: string;
  app_id: string;
  order_id: string | null;
  /**
   * Created without the app's API key (`POST {payment_api_url}/payments`, appId in the body). Its `order_id` lives in
   * a namespace of its own: anyone who knows the app id can create one, so it never answers a keyed create.
   */
  keyless: boolean;
  type: 'exactIn';
  status: PaymentStatus;
  /** The sequence of the last lifecycle write applied (see PaymentTransition.sequence). */
  status_sequence: number;
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
  /** Basis points of the amount the payins may fall short of and still complete the payment (the app's, at creation). */
  underpayment_tolerance_bps: number;
  /** When the merchant accepted the payment as paid with less than its amount; null otherwise. */
  accepted_as_paid_at: Date | null;
  /** What its payout kept back for the app's refunds (destination units, domain/refunds.ts `payoutDeduction`); null until the payout is signed. */
  netted_units: string | null;
  webhook_url: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  workflow_started_at: Date | null;
}

/** How the payin reaches the merchant's wallet. */
export type PaymentRoute =
  /** Swept to the treasury on the same chain, paid out from it. */
  | 'same_chain'
  /**
   * Swept to the treasury of the source chain; paid out on another chain from that chain's treasury float (the
   * payment's own funds are bridged only when that float is short and a bridge connects the chains).
   */
  | 'bridge'
  /** A native coin priced at a stored rate: the treasury keeps it and pays the merchant's token from the destination. */
  | 'treasury_keeps';

/** What a payment run works with, read from the database when it starts: money never moves on workflow input. */
export interface PaymentTerms {
  paymentId: string;
  appId: string;
  orderId: string | null;
  status: PaymentStatus;
  /** `settlesAtUnits`: what the payins must add up to (the amount less the app's underpayment tolerance). */
  source: TokenRef & { amountUnits: string; feeUnits: string; depositAddress: string; settlesAtUnits: string };
  destination: TokenRef & { receiverAddress: string; amountUnits: string };
  route: PaymentRoute;
  /**
   * Whether a bridge carries the payin's token to the payout chain (services/bridges.ts `bridgeRouteFor`): when the
   * destination float is short, such a payment bridges its own funds; any other waits for the float.
   */
  bridgeRoute: boolean;
  /** ISO 8601; the workflow turns it into a timer relative to its own clock. */
  expiresAt: string;
  /**
   * Whether the payment captured a webhook URL at creation (the URL its events go to, never changed after). Without
   * one no event of the payment can be delivered, so its run schedules no deliveries.
   */
  webhooks: boolean;
  /**
   * How long at least the completed payment's payin waits at its deposit address before it is swept into the source
   * chain's treasury (the worker's `SWEEP_AFTER_SECONDS`; `sweepWaitMs` adds up to as long again). A sweep only
   * refills that treasury, so a burst's payouts take the chains and the worker first.
   */
  sweepAfterMs: number;
}

/**
 * How long a completed payment's payin waits before its sweep: `sweepAfterMs`, then up to as long again, spread by
 * the payment's id (random, so a burst's sweeps spread evenly over that second span instead of reaching the chains
 * together, ahead of the payments that come next).
 */
export function sweepWaitMs(paymentId: string, sweepAfterMs: number): number {
  let hash = 0;
  for (let i = 0; i < paymentId.length; i++) hash = (Math.imul(hash, 31) + paymentId.charCodeAt(i)) >>> 0;
  return sweepAfterMs + Math.floor(((hash % 1000) / 1000) * sweepAfterMs);
}

export function paymentRoute(record: Pick<PaymentRecord, 'source_token_address' | 'source_chain_id' | 'destination_chain_id'>): PaymentRoute {
  if (isNativeToken(record.source_token_address)) return 'treasury_keeps';
  return record.source_chain_id === record.destination_chain_id ? 'same_chain' : 'bridge';
}

export function paymentTerms(record: PaymentRecord, run: Pick<PaymentTerms, 'bridgeRoute' | 'sweepAfterMs'>): PaymentTerms {
  return {
    paymentId: record.id,
    appId: record.app_id,
    orderId: record.order_id,
    status: record.status,
    source: {
      chainId: record.source_chain_id,
      symbol: record.source_token_symbol,
      address: record.source_token_address,
      decimals: record.source_decimals,
      amountUnits: record.source_amount_units,
      feeUnits: record.fee_units,
      depositAddress: record.deposit_address,
      settlesAtUnits: settlesAtUnits(BigInt(record.source_amount_units), record.underpayment_tolerance_bps).toString(),
    },
    destination: {
      chainId: record.destination_chain_id,
      symbol: record.destination_token_symbol,
      address: record.destination_token_address,
      decimals: record.destination_decimals,
      receiverAddress: record.destination_address,
      amountUnits: record.destination_amount_units,
    },
    route: paymentRoute(record),
    bridgeRoute: run.bridgeRoute,
    expiresAt: record.expires_at.toISOString(),
    webhooks: record.webhook_url !== null,
    sweepAfterMs: run.sweepAfterMs,
  };
}

/** The most an app's underpayment tolerance may be, in basis points of a payment's amount. */
export const MAX_UNDERPAYMENT_TOLERANCE_BPS = 100;

/** What payins must add up to for a payment of `amountUnits` to complete: the amount less the tolerance, rounded up. */
export function settlesAtUnits(amountUnits: bigint, toleranceBps: number): bigint {
  return amountUnits - (amountUnits * BigInt(toleranceBps)) / 10_000n;
}

/** What a paid payment settles: its amount, or less when what arrived was short of it (within tolerance, or accepted). */
export function settledUnits(amountUnits: bigint, receivedUnits: bigint): bigint {
  return receivedUnits < amountUnits ? receivedUnits : amountUnits;
}

/**
 * The merchant's payout of a payment that settled `settled`: the planned payout, or, for a short payment, what
 * arrived less the fee in the payout's token (the planned payout's share of it), rounded down.
 */
export function payoutUnits(terms: { amountUnits: bigint; feeUnits: bigint; plannedPayoutUnits: bigint }, settled: bigint): bigint {
  if (settled >= terms.amountUnits) return terms.plannedPayoutUnits;
  if (settled <= terms.feeUnits) return 0n;
  return (terms.plannedPayoutUnits * (settled - terms.feeUnits)) / (terms.amountUnits - terms.feeUnits);
}

/**
 * What a stored payment settles, as the chain-confirmed payins its run recorded say: less than its amount only when
 * they reached its tolerance or the merchant accepted it as paid. Its payout follows (`storedPayoutUnits`).
 */
export function storedSettledUnits(record: Pick<PaymentRecord, 'source_amount_units' | 'amount_received_units' | 'underpayment_tolerance_bps' | 'accepted_as_paid_at'>): bigint {
  const amount = BigInt(record.source_amount_units);
  if (record.amount_received_units === null) return amount;
  const received = BigInt(record.amount_received_units);
  const short = received < amount && (record.accepted_as_paid_at !== null || received >= settlesAtUnits(amount, record.underpayment_tolerance_bps));
  return short ? received : amount;
}

export function storedPayoutUnits(record: Pick<PaymentRecord, 'source_amount_units' | 'amount_received_units' | 'underpayment_tolerance_bps' | 'accepted_as_paid_at' | 'fee_units' | 'destination_amount_units'>): bigint {
  const terms = { amountUnits: BigInt(record.source_amount_units), feeUnits: BigInt(record.fee_units), plannedPayoutUnits: BigInt(record.destination_amount_units) };
  return payoutUnits(terms, storedSettledUnits(record));
}

/** What the payout transaction sends the merchant: the payout less what it kept back for the app's refunds. */
export function paidOutUnits(record: Parameters<typeof storedPayoutUnits>[0] & Pick<PaymentRecord, 'netted_units'>): bigint {
  return storedPayoutUnits(record) - BigInt(record.netted_units ?? 0);
}

/**
 * One lifecycle write to the read model; fields left out keep their stored values. `sequence` orders the writes of
 * the runs that own the payment: a write whose sequence is not newer than the stored one changes nothing, so a
 * zombie activity attempt cannot set a payment back. A newer write does not take the payment back either, unless
 * its run leaves the very status stored (`from`, see `replaceableStatuses`).
 */
export interface PaymentTransition {
  paymentId: string;
  status: PaymentStatus;
  /** The run's write order: a write not newer than the stored one changes nothing. */
  sequence: number;
  /** The status the run leaves with this write; only from it may the write take the payment back. */
  from?: PaymentStatus;
  payin?: { senderAddress: string; txHash: string; amountReceivedUnits: string; confirmedAt: string };
  payout?: { txHash: string; confirmedAt: string };
}

/**
 * One of a payment run's writes to the read model; `recordPaymentProgress` applies several in order, in one step: a
 * payin's state, the payment's status, or the deposit address's watch kept for late payins (from now).
 */
export type PaymentProgress =
  | { kind: 'payin'; payin: DetectedPayin; status: PayinStatus; disposition?: PayinDisposition; sequence: number }
  | ({ kind: 'status' } & Omit<PaymentTransition, 'paymentId'>)
  | { kind: 'watch' };

/**
 * How far along its lifecycle each status is. Bridging and payout started alternate while a bridge carries a
 * payment's funds (payout started, bridging, payout started again); a payment expires or completes, never both.
 */
const PAYMENT_STATUS_PROGRESS: Readonly<Record<PaymentStatus, number>> = {
  payment_unpaid: 0,
  payment_started: 1,
  payment_payin_completed: 2,
  payment_bridging: 3,
  payment_payout_started: 3,
  payment_payout_completed: 4,
  payment_completed: 5,
  payment_expired: 5,
  payment_bounced: 6,
  payment_refunded: 7,
};

/**
 * The stored statuses a newer write may replace: those not further along than the status it writes, and the status
 * its run leaves (a reorg that removes a payin before finality takes the payment back). A workflow task lost after
 * its local activities wrote is retried from the run's last recorded state, on a later clock: its writes are newer
 * but mostly repeat the lost ones (which would show a paid-out payment as `payment_started` again); they do not take
 * the payment back, and where the retry decides otherwise (a payin dropped, the expiry passed) its writes win.
 */
export function replaceableStatuses(transition: Pick<PaymentTransition, 'status' | 'from'>): PaymentStatus[] {
  const reached = PAYMENT_STATUS_PROGRESS[transition.status];
  return PAYMENT_STATUSES.filter((status) => PAYMENT_STATUS_PROGRESS[status] <= reached || status === transition.from);
}

/** The writes a payment's progress is made of, as their own activities take them. */
export interface PaymentProgressWrites {
  recordPayin(input: { paymentId: string; payin: DetectedPayin; status: PayinStatus; disposition?: PayinDisposition; sequence: number }): Promise<void>;
  recordPaymentTransition(transition: PaymentTransition): Promise<void>;
  extendDepositWatch(input: { paymentId: string }): Promise<void>;
}

/** Applies `steps` in order, each as its own write would (the worker's `recordPaymentProgress`, and the workflow tests' fake). */
export async function applyPaymentProgress(paymentId: string, steps: PaymentProgress[], writes: PaymentProgressWrites): Promise<void> {
  for (const step of steps) {
    if (step.kind === 'payin') await writes.recordPayin({ paymentId, payin: step.payin, status: step.status, disposition: step.disposition, sequence: step.sequence });
    else if (step.kind === 'status') await writes.recordPaymentTransition({ paymentId, status: step.status, from: step.from, sequence: step.sequence, payin: step.payin, payout: step.payout });
    else await writes.extendDepositWatch({ paymentId });
  }
}

/**
 * Where the sequences of each kind of run start (the columns are 32-bit integers). A payment run numbers its writes
 * by the tenths of a second it has run (`nextPaymentWriteSequence`), which reach this after three years; a late-payin
 * run only ever follows the closed payment run, so its writes must win over all of the payment run's.
 */
export const LATE_PAYIN_SEQUENCE_BASE = 1_000_000_000;

/** A merchant refund's one write to its payment (`payment_refunded` once refunds return it all): after every other run's. */
export const MERCHANT_REFUND_SEQUENCE = 2_000_000_000;

/**
 * A payment run's next write sequence: after its previous one, and at least the tenths of a second from the
 * workflow's start to the start of the workflow task that decides the write (`elapsedMs`). A workflow task lost after
 * its local activities wrote (its worker killed) is retried seconds later on a later clock, and may decide otherwise
 * (the expiry passed, a timer fired meanwhile): the retry's writes then carry higher sequences than the lost try's,
 * and win over them.
 */
export function nextPaymentWriteSequence(previous: number, elapsedMs: number): number {
  return Math.max(previous + 1, Math.floor(elapsedMs / 100));
}

/** What a create request fixes about a payment; a re-send of its `orderId` must ask for exactly this again. */
export interface PaymentRequestTerms {
  sourceChainId: number;
  sourceTokenSymbol: string;
  amountUnits: bigint;
  display: PaymentDisplay;
  metadata: Record<string, unknown> | null;
}

/** JSON with object keys sorted at every level: the same value always gives the same text (jsonb reorders keys). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The request fields in which `terms` differ from the stored payment's (none: the same request again). */
export function conflictingRequestTerms(record: PaymentRecord, terms: PaymentRequestTerms): string[] {
  const differs: Array<[string, boolean]> = [
    ['source.chainId', record.source_chain_id !== terms.sourceChainId],
    ['source.tokenSymbol', record.source_token_symbol !== terms.sourceTokenSymbol],
    ['source.amount', BigInt(record.source_amount_units) !== terms.amountUnits],
    ['display', canonicalJson(record.display) !== canonicalJson(terms.display)],
    ['metadata', canonicalJson(record.metadata) !== canonicalJson(terms.metadata)],
  ];
  return differs.filter(([, different]) => different).map(([field]) => field);
}
