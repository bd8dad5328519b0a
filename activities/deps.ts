import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import type { WebhookEventType } from '../domain/webhook-events';
import type { PricingPolicy } from '../domain/payment-plan';
import type { Logger } from '../lib/logger';
import type { Mailer } from '../lib/mail';
import type { WorkerMetrics } from '../lib/metrics';
import type { SecretBox } from '../lib/secrets';
import type { DepositAddressPoolSettings } from '../services/deposit-addresses';

/** What the worker hands `createActivities`: connections and settings, created once per process. */
export interface ActivityDeps {
  knex: Knex;
  chains: ChainAdapters;
  temporal: { client: Client; taskQueue: string };
  /** How long after a payment's run ends its deposit address is still watched (late payins are refunded). */
  latePayinWindowMs: number;
  /** How long a completed payment's payin waits at its deposit before its sweep (`SWEEP_AFTER_SECONDS`). */
  sweepAfterMs: number;
  /** How long a refund awaits its customer's claim, or its merchant's funding (`REFUND_CLAIM_WINDOW_DAYS`). */
  refundClaimWindowDays: number;
  /** How many ready deposit addresses each pooled chain keeps (services/deposit-addresses.ts). */
  depositAddressPool: DepositAddressPoolSettings;
  log: Logger;
  metrics: WorkerMetrics;
  /** Opens the apps' sealed webhook secrets; without it (no PAYRAIL_SECRETS_KEY) every delivery fails as `exhausted`. */
  secrets?: SecretBox;
  webhooks: {
    /** Lets webhooks and Iris (the devnet's stand-in) be private and loopback addresses over http (dev and tests only). */
    allowPrivateNetworks: boolean;
    /** Bound on one delivery's whole HTTP exchange. */
    timeoutMs: number;
  };
  /** Fault injection for crash tests: called right after a transaction was broadcast, before the activity returns. */
  afterBroadcast?: (purpose: string) => void;
  /** Fault injection for crash tests: called right after a webhook delivery was claimed, before it is sent. */
  afterWebhookClaim?: (eventType: WebhookEventType) => void;
  /** Legacy orders: pricing their payments, callbacks and receipts. */
  orders: {
    pricing: PricingPolicy;
    publicBaseUrl: string;
    /** Callbacks may target loopback and private addresses (dev and tests only). */
    allowPrivateCallbackTargets: boolean;
    /** Absent when no SMTP_URL is configured: receipts are then skipped, with a warning. */
    mailer?: Pick<Mailer, 'send'>;
  };
}
