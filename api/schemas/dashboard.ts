import { z } from 'zod';
import { PAYMENT_STATUSES, parsePaymentStatus } from '../../domain/payment';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhook-events';
import { isStorable, pageLimit, storable } from './common';

const cursor = z.uuid({ message: 'must be the nextCursor of the previous page' }).optional();

/** A date (`2026-11-23`, meaning its UTC midnight) or an ISO 8601 time with an offset. */
const time = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], { message: 'must be a date (YYYY-MM-DD) or an ISO 8601 time' })
  .transform((value) => new Date(value.length === 10 ? `${value}T00:00:00Z` : value));

/** `GET /apps/{appId}/payments`: status filter, search, created range (`to` is exclusive), cursor. */
export const paymentListQuerySchema = z.object({
  status: z
    .string()
    .transform((s, ctx) => parsePaymentStatus(s) ?? (ctx.addIssue({ code: 'custom', message: `must be one of ${PAYMENT_STATUSES.join(', ')}` }), z.NEVER))
    .optional(),
  q: z.string().trim().min(1).max(200, 'must be at most 200 characters').refine(isStorable, storable).optional(),
  from: time.optional(),
  to: time.optional(),
  cursor,
  limit: pageLimit(25),
});

/** `GET /apps/{appId}/payments/changes?since=`: the live view's poll. */
export const paymentChangesQuerySchema = z.object({ since: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 time' }).transform((s) => new Date(s)) });

/** `GET /apps/{appId}/deliveries`. */
export const deliveryListQuerySchema = z.object({
  status: z.enum(['delivered', 'exhausted'], { message: 'must be "delivered" or "exhausted"' }).optional(),
  eventType: z.enum([...WEBHOOK_EVENT_TYPES, 'webhook_test'], { message: `must be one of ${[...WEBHOOK_EVENT_TYPES, 'webhook_test'].join(', ')}` }).optional(),
  paymentId: z.uuid({ message: 'must be a payment id (UUID)' }).optional(),
  cursor,
  limit: pageLimit(25),
});

/** `GET /apps/{appId}/orders`. */
export const orderListQuerySchema = z.object({ cursor, limit: pageLimit(25) });

export const paymentIdParamSchema = z.uuid({ message: 'must be a payment id (UUID)' });
