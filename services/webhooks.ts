import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { invalidField } from '../domain/errors';
import { webhookEnvelope, webhookTestEnvelope, type WebhookEventType } from '../domain/webhook-events';
import { findMerchantApp } from '../db/queries/merchants';
import { findPaymentById } from '../db/queries/payments';
import { claimWebhookDelivery, exhaustUnfinishedWebhookDelivery, recordWebhookDeliveryOutcome } from '../db/queries/webhook-deliveries';
import { WEBHOOK_TEST_EVENT, type WebhookDeliveryStatus } from '../db/tables';
import { postJson, type PostResult } from '../lib/http-client';
import type { Logger } from '../lib/logger';
import type { SecretBox } from '../lib/secrets';
import { loggableUrl, vetUrl, type VettedTarget } from '../lib/url-policy';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, webhookSignature } from '../lib/webhooks/verify';
import { webhookUrlPolicy } from './accounts';
import { withDisplayedDeposit, type ChainAdapters } from './chains';

export interface WebhookServiceDeps {
  knex: Knex;
  /** The chains, whose families say how an event shows the deposit address (as the API does). */
  chains: Pick<ChainAdapters, 'registry'>;
  log: Logger;
  /** Opens the apps' sealed webhook secrets; without it (no PAYRAIL_SECRETS_KEY) every delivery fails as `exhausted`. */
  secrets?: SecretBox;
  webhooks: {
    /** Lets webhooks target private and loopback addresses (dev and tests only). */
    allowPrivateNetworks: boolean;
    /** Bound on one delivery's whole HTTP exchange. */
    timeoutMs: number;
  };
  /** Fault injection for crash tests: called right after a webhook delivery was claimed, before it is sent. */
  afterWebhookClaim?: (eventType: WebhookEventType) => void;
}

export type WebhookDeliveryResult =
  /** The payment has no webhook URL, or its app no secret: nothing to send, nothing logged. */
  | { status: 'not_configured' }
  /** An earlier attempt claimed the event; it is never sent twice. */
  | { status: 'already_claimed' }
  | { status: Exclude<WebhookDeliveryStatus, 'pending'>; deliveryId: string; statusCode: number | null };

/** The one attempt: `sentAt` is when the POST was made, null when nothing was sent. */
type Attempt = PostResult & { sentAt: Date | null };
const nothingSent = (error: string): Attempt => ({ sentAt: null, statusCode: null, responsePreview: null, error });

export function createWebhookService(deps: WebhookServiceDeps) {
  const { knex, log } = deps;

  /** Signs and POSTs the event's body (stamped `sentAt`); every failure (no key, refused URL, timeout, …) is part of the result. */
  async function attempt(event: { url: string; sealedSecret: string; body: string; sentAt: Date }): Promise<Attempt> {
    const { body, sentAt } = event;
    if (!deps.secrets) return nothingSent('PAYRAIL_SECRETS_KEY is not configured on this worker');
    let target: VettedTarget;
    try {
      // Checked again at send time, on the addresses the connection will use (DNS may have changed).
      target = await vetUrl(event.url, webhookUrlPolicy({ webhookAllowPrivateNetworks: deps.webhooks.allowPrivateNetworks }));
    } catch (err) {
      return nothingSent(`refused: ${(err as Error).message}`);
    }
    const secret = deps.secrets.open(event.sealedSecret);
    const timestamp = String(sentAt.getTime());
    const response = await postJson({
      target,
      body,
      timeoutMs: deps.webhooks.timeoutMs,
      headers: {
        'user-agent': 'Payrail-Webhooks/1',
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: webhookSignature(secret, timestamp, body),
      },
    });
    return { ...response, sentAt };
  }

  /** The claimed delivery's one attempt, its outcome written to the delivery log: 2xx is `delivered`, anything else `exhausted`. */
  async function attemptAndRecord(
    deliveryId: string,
    event: { url: string; sealedSecret: string; envelope: (sentAt: Date) => object },
  ): Promise<{ status: 'delivered' | 'exhausted'; result: Attempt }> {
    const sentAt = new Date();
    // Serialised once: these exact bytes are signed, sent and kept in the delivery log (the events listed by key).
    const body = JSON.stringify(event.envelope(sentAt));
    let result: Attempt;
    try {
      result = await attempt({ url: event.url, sealedSecret: event.sealedSecret, body, sentAt });
    } catch (err) {
      // E.g. a secret sealed under another key: still this event's one attempt.
      result = nothingSent((err as Error).message);
    }
    const status = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 ? 'delivered' : 'exhausted';
    await recordWebhookDeliveryOutcome({
      knex,
      deliveryId,
      outcome: { status, statusCode: result.statusCode, responsePreview: result.responsePreview, deliveredAt: result.sentAt, body },
    });
    return { status, result };
  }

  return {
    /**
     * AT MOST ONCE: one POST per (payment, event), never repeated, also when a worker dies mid-delivery. The
     * delivery is claimed (its row inserted, unique per payment and event) before anything is sent; an attempt
     * that finds the claim taken sends nothing. A retry can therefore only follow a failure before the claim
     * (safe: nothing was sent) or close the claim of an attempt that died (`exhausted`, outcome unknown).
     * A failed delivery is logged as `exhausted` and never thrown.
     */
    async deliverWebhook(input: { paymentId: string; eventType: WebhookEventType }): Promise<WebhookDeliveryResult> {
      const { paymentId, eventType } = input;
      const payment = await findPaymentById({ knex, id: paymentId });
      if (!payment) throw new Error(`payment ${paymentId} not found`);
      const app = await findMerchantApp({ knex, appId: payment.app_id });
      // The URL is the one the payment captured at creation; the secret is the app's current one (rotation is immediate).
      const { webhook_url: url } = payment;
      const sealedSecret = app?.webhook_secret_ciphertext;
      if (!url || !sealedSecret) return { status: 'not_configured' };

      const deliveryId = randomUUID();
      const claimed = await claimWebhookDelivery({
        knex,
        delivery: { delivery_id: deliveryId, app_id: payment.app_id, payment_id: paymentId, event_type: eventType, url },
      });
      if (!claimed) {
        await exhaustUnfinishedWebhookDelivery({ knex, paymentId, eventType });
        log.warn({ paymentId, eventType }, 'webhook event already claimed by an earlier attempt; not sending it again');
        return { status: 'already_claimed' };
      }
      deps.afterWebhookClaim?.(eventType);

      const { status, result } = await attemptAndRecord(deliveryId, { url, sealedSecret, envelope: (sentAt) => webhookEnvelope({ deliveryId, eventType, payment: withDisplayedDeposit(deps.chains.registry, payment), sentAt }) });
      const entry = { paymentId, eventType, deliveryId, url: loggableUrl(url), statusCode: result.statusCode, error: result.error };
      if (status === 'delivered') log.info(entry, 'webhook delivered');
      else log.warn(entry, 'webhook delivery failed; it is not retried');
      return { status, deliveryId, statusCode: result.statusCode };
    },

    /**
     * AT MOST ONCE per call: signs and POSTs a test event to the app's webhook URL with its current secret, and
     * logs it like any delivery (event `webhook_test`, no payment). A failure is part of the result.
     */
    async sendTestWebhook(appId: string): Promise<{ deliveryId: string; status: Exclude<WebhookDeliveryStatus, 'pending'>; statusCode: number | null; error: string | null }> {
      const app = await findMerchantApp({ knex, appId });
      if (!app?.webhook_url || !app.webhook_secret_ciphertext) throw invalidField('webhookUrl', 'set a webhook URL first');
      const { webhook_url: url, webhook_secret_ciphertext: sealedSecret } = app;
      const deliveryId = randomUUID();
      await claimWebhookDelivery({ knex, delivery: { delivery_id: deliveryId, app_id: appId, payment_id: null, event_type: WEBHOOK_TEST_EVENT, url } });
      const { status, result } = await attemptAndRecord(deliveryId, { url, sealedSecret, envelope: (sentAt) => webhookTestEnvelope({ deliveryId, appId, sentAt }) });
      return { deliveryId, status, statusCode: result.statusCode, error: result.error };
    },
  };
}
