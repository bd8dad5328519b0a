import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhook-events';
import { pageLimit, timestamp } from './common';

/** `GET /me/webhook/deliveries?limit=N`: 1–100, default 20. Other query parameters are ignored. */
export const listWebhookDeliveriesQuerySchema = z.object({ limit: pageLimit(20) });

/** What a delivery carries: a payment's event, or the dashboard's test event (of no payment). */
export const DELIVERY_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, 'webhook_test'] as const;

/** A delivery log record (spec 2.7); `deliveryId` is the `event_id` of the body that was sent. */
export const webhookDeliveryRecordSchema = z.object({
  deliveryId: z.uuid(),
  /** Null for a test event. */
  paymentId: z.uuid().nullable(),
  eventType: z.enum(DELIVERY_EVENT_TYPES),
  statusCode: z.number().int().nullable(),
  responsePreview: z.string().nullable(),
  deliveredAt: timestamp.nullable(),
  status: z.enum(['pending', 'delivered', 'exhausted']),
  attemptNumber: z.number().int(),
});

export type WebhookDeliveryRecord = z.infer<typeof webhookDeliveryRecordSchema>;

/** `GET /me/webhook/deliveries`: the newest records of all the developer's apps. */
export const webhookDeliveryLogSchema = z.object({ data: z.array(webhookDeliveryRecordSchema) });

export type WebhookDeliveryLog = z.infer<typeof webhookDeliveryLogSchema>;
