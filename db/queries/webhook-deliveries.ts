import type { Knex } from 'knex';
import type { WebhookDeliveryRow, WebhookDeliveryStatus, WebhookEventType } from '../tables';

/**
 * Claims the one delivery of an event by inserting its row as `pending`. Returns false when the event already has
 * a row: it was claimed before (by this activity on an earlier attempt, or concurrently) and must not be sent again.
 */
export async function claimWebhookDelivery(options: {
  knex: Knex;
  delivery: Pick<WebhookDeliveryRow, 'delivery_id' | 'app_id' | 'payment_id' | 'event_type' | 'url'>;
}): Promise<boolean> {
  const inserted = await options
    .knex<WebhookDeliveryRow>('webhook_deliveries')
    .insert({ ...options.delivery, status: 'pending', attempt_number: 1 })
    .onConflict(['payment_id', 'event_type'])
    .ignore()
    .returning('delivery_id');
  return inserted.length > 0;
}

/** The outcome of the one attempt. Unconditional: what the attempt saw is the truth, whatever was written before. */
export async function recordWebhookDeliveryOutcome(options: {
  knex: Knex;
  deliveryId: string;
  outcome: { status: Exclude<WebhookDeliveryStatus, 'pending'>; statusCode: number | null; responsePreview: string | null; deliveredAt: Date | null; body: string };
}): Promise<void> {
  const { knex, deliveryId, outcome } = options;
  await knex<WebhookDeliveryRow>('webhook_deliveries').where({ delivery_id: deliveryId }).update({
    status: outcome.status,
    status_code: outcome.statusCode,
    response_preview: outcome.responsePreview,
    delivered_at: outcome.deliveredAt,
    body: outcome.body,
  });
}

/**
 * Closes a claim whose attempt never recorded an outcome (its worker died mid-delivery): `exhausted`, outcome
 * unknown. Only a still-pending row changes, so an outcome the attempt did record is kept.
 */
export async function exhaustUnfinishedWebhookDelivery(options: { knex: Knex; paymentId: string; eventType: WebhookEventType }): Promise<void> {
  await options
    .knex<WebhookDeliveryRow>('webhook_deliveries')
    .where({ payment_id: options.paymentId, event_type: options.eventType, status: 'pending' })
    .update({ status: 'exhausted' });
}

/** The delivery log of these apps, newest first. An attempt still in flight (`pending`) shows once it has ended. */
export async function listWebhookDeliveries(options: { knex: Knex; appIds: string[]; limit: number }): Promise<WebhookDeliveryRow[]> {
  return options
    .knex<WebhookDeliveryRow>('webhook_deliveries')
    .whereIn('app_id', options.appIds)
    .whereNot({ status: 'pending' })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'delivery_id', order: 'desc' },
    ])
    .limit(options.limit);
}

/** One page of an app's finished deliveries, newest first, after the delivery `afterId` (keyset). */
export async function listAppWebhookDeliveries(options: {
  knex: Knex;
  appId: string;
  filter: { status?: string; eventType?: string; paymentId?: string };
  afterId?: string;
  limit: number;
}): Promise<WebhookDeliveryRow[]> {
  const { knex, appId, filter, afterId, limit } = options;
  const query = knex<WebhookDeliveryRow>('webhook_deliveries').where('app_id', appId).whereNot({ status: 'pending' });
  if (filter.status) query.where('status', filter.status);
  if (filter.eventType) query.where('event_type', filter.eventType);
  if (filter.paymentId) query.where('payment_id', filter.paymentId);
  if (afterId) {
    query.whereRaw('(created_at, delivery_id) < (select created_at, delivery_id from webhook_deliveries where delivery_id = ? and app_id = ?)', [afterId, appId]);
  }
  return query.orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'delivery_id', order: 'desc' },
  ]).limit(limit);
}

/** The webhook events of an app (its payments' two event types, not the dashboard's test events), as a merchant's server reads them by key. */
export interface WebhookEventFilter {
  eventType?: WebhookEventType;
  since?: Date;
  /** true: only events whose one delivery succeeded; false: only those whose delivery did not (exhausted, or still in flight). */
  delivered?: boolean;
}

/** One page of an app's webhook events, newest first, after the event `afterId` (keyset on `(created_at, delivery_id)`). */
export async function listAppWebhookEvents(options: {
  knex: Knex;
  appId: string;
  filter: WebhookEventFilter;
  afterId?: string;
  limit: number;
}): Promise<WebhookDeliveryRow[]> {
  const { knex, appId, filter, afterId, limit } = options;
  const query = knex<WebhookDeliveryRow>('webhook_deliveries').where('app_id', appId).whereNotNull('payment_id');
  if (filter.eventType) query.where('event_type', filter.eventType);
  if (filter.since) query.where('created_at', '>=', filter.since);
  if (filter.delivered === true) query.where('status', 'delivered');
  if (filter.delivered === false) query.whereNot('status', 'delivered');
  if (afterId) {
    query.whereRaw('(created_at, delivery_id) < (select created_at, delivery_id from webhook_deliveries where delivery_id = ? and app_id = ?)', [afterId, appId]);
  }
  return query.orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'delivery_id', order: 'desc' },
  ]).limit(limit);
}

/** One webhook event of an app by its id (the body's `event_id`); another app's event is not found. */
export async function findAppWebhookEvent(options: { knex: Knex; appId: string; eventId: string }): Promise<WebhookDeliveryRow | undefined> {
  return options
    .knex<WebhookDeliveryRow>('webhook_deliveries')
    .where({ app_id: options.appId, delivery_id: options.eventId })
    .whereNotNull('payment_id')
    .first();
}
