import type { WebhookEventType } from '../domain/webhook-events';
import { createWebhookService, type WebhookDeliveryResult, type WebhookServiceDeps } from '../services/webhooks';

export function createWebhookActivities(deps: WebhookServiceDeps) {
  const webhooks = createWebhookService(deps);
  return {
    /**
     * AT MOST ONCE: one POST per (payment, event), never repeated, also when a worker dies mid-delivery (the event is
     * claimed in the database before anything is sent). A failed delivery is logged as `exhausted`, never thrown.
     */
    deliverWebhook: (input: { paymentId: string; eventType: WebhookEventType }): Promise<WebhookDeliveryResult> => webhooks.deliverWebhook(input),
  };
}
