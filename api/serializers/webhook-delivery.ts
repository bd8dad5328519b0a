import type { WebhookDeliveryRow } from '../../db/tables';
import type { WebhookDeliveryRecord } from '../schemas/webhook-deliveries';

/** A delivery log record as spec 2.7 shows it; `deliveryId` is the `event_id` of the body that was sent. */
export function toWebhookDeliveryRecord(row: WebhookDeliveryRow): WebhookDeliveryRecord {
  return {
    deliveryId: row.delivery_id,
    paymentId: row.payment_id,
    eventType: row.event_type,
    statusCode: row.status_code,
    responsePreview: row.response_preview,
    deliveredAt: row.delivered_at ? row.delivered_at.toISOString() : null,
    status: row.status,
    attemptNumber: row.attempt_number,
  };
}
