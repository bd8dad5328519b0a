/** Webhook events (spec 6.1): which statuses send one, and the signed body. */
import { paymentData } from './payment-resource';
import type { PaymentRecord } from './payment';

export const WEBHOOK_EVENT_TYPES = ['payment_payin_completed', 'payment_payout_completed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * The event body. `data` is the payment as of the event: the read model now, with the event's status and, in a
 * payin event, no payout fields, also when the delivery starts late (after the payout, say).
 */
export function webhookEnvelope(event: { deliveryId: string; eventType: WebhookEventType; payment: PaymentRecord; sentAt: Date }) {
  const data = paymentData(event.payment);
  const destination = event.eventType === 'payment_payin_completed' ? { ...data.destination, txHash: null, confirmedAt: null } : data.destination;
  return { event_id: event.deliveryId, type: event.eventType, timestamp: event.sentAt.toISOString(), data: { ...data, status: event.eventType, destination } };
}

/** The test event a merchant sends from the dashboard: signed like every event, about no payment. */
export function webhookTestEnvelope(event: { deliveryId: string; appId: string; sentAt: Date }) {
  return {
    event_id: event.deliveryId,
    type: 'webhook_test' as const,
    timestamp: event.sentAt.toISOString(),
    data: { appId: event.appId, message: 'A test event from the Payrail dashboard: your endpoint received and can verify it.' },
  };
}
