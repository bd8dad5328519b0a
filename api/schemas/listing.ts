/**
 * What a merchant's server lists by key (issue 41): its payments, its webhook events and its statements. Cursors
 * are opaque to clients: base64url text the server wrote for the page before.
 */
import { z } from 'zod';
import { LEDGER_KINDS } from '../../domain/ledger';
import { PAYMENT_STATUSES, parsePaymentStatus } from '../../domain/payment';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhook-events';
import { decimalString, pageLimit, timestamp } from './common';
import { paymentDataSchema } from './payment-data';
import { orderIdSchema } from './payments';

/** A cursor's text: what the server encodes and a client sends back unchanged. */
export function encodeCursor(parts: string[]): string {
  return Buffer.from(parts.join('|'), 'utf8').toString('base64url');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const cursorText = z.string().max(200, 'must be the nextCursor of the previous page').regex(/^[A-Za-z0-9_-]+$/, 'must be the nextCursor of the previous page');
/** A cursor of one kind (`tag`), decoded to its parts; any other text is refused as a bad request. */
const cursorOf = <T>(tag: string, parse: (parts: string[]) => T | null) =>
  cursorText.transform((text, ctx) => {
    const [found, ...parts] = Buffer.from(text, 'base64url').toString('utf8').split('|');
    const parsed = found === tag ? parse(parts) : null;
    return parsed ?? (ctx.addIssue({ code: 'custom', message: 'must be the nextCursor of the previous page, with the same ordering' }), z.NEVER);
  });

/** A date (`2026-11-23`, meaning its UTC midnight) or an ISO 8601 time with an offset. */
const time = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], { message: 'must be a date (YYYY-MM-DD) or an ISO 8601 time' })
  .transform((value) => new Date(value.length === 10 ? `${value}T00:00:00Z` : value));

const status = z
  .string()
  .transform((s, ctx) => parsePaymentStatus(s) ?? (ctx.addIssue({ code: 'custom', message: `must be one of ${PAYMENT_STATUSES.join(', ')} (or a short form)` }), z.NEVER));

/** Newest first: after the payment of this id. */
export const createdCursor = cursorOf('c', ([id]) => (id && UUID.test(id) ? { id } : null));
/** By change, oldest first: after this change stamp (microseconds) and payment id. */
export const changeCursor = cursorOf('u', ([updatedUs, id]) => (updatedUs && /^[0-9]{1,18}$/.test(updatedUs) && id && UUID.test(id) ? { updatedUs, id } : null));

/**
 * `GET {payment_api_url}`: the key's app's payments. Newest first; with `updatedSince`, in the order of their last
 * change, oldest first, so a client syncing by `updatedSince` and `cursor` neither skips nor repeats a change.
 * `createdTo` is exclusive.
 */
export const keyPaymentListQuerySchema = z.object({
  status: status.optional(),
  orderId: orderIdSchema.optional(),
  createdFrom: time.optional(),
  createdTo: time.optional(),
  updatedSince: time.optional(),
  cursor: cursorText.optional(),
  limit: pageLimit(25),
});

/** The payment as the owning app's key reads it (spec 2.1): the full schema with the merchant's own fields. */
export const paymentResourceSchema = paymentDataSchema.extend({
  paymentLink: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  webhookUrl: z.string().nullable(),
  webhookSecretSource: z.literal('merchant_app').nullable(),
  merchant: z.object({ appId: z.string(), name: z.string() }).nullable(),
});

/**
 * A page: `nextCursor` is the position after its last item (the request's own cursor when it has none; null when
 * neither), and `hasMore` says whether more items follow now. A client syncing by change keeps the cursor and
 * asks again later from it.
 */
const listPage = <Row extends z.ZodType>(row: Row) => z.object({ data: z.array(row), nextCursor: z.string().nullable(), hasMore: z.boolean() });

export const keyPaymentPageSchema = listPage(paymentResourceSchema);
export type KeyPaymentPage = z.infer<typeof keyPaymentPageSchema>;

export const eventCursor = cursorOf('e', ([id]) => (id && UUID.test(id) ? { id } : null));

/** `GET /events`: newest first; `delivered=false` keeps the events whose one delivery did not succeed. */
export const eventListQuerySchema = z.object({
  type: z.enum(WEBHOOK_EVENT_TYPES, { message: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }).optional(),
  since: time.optional(),
  delivered: z.enum(['true', 'false'], { message: 'must be "true" or "false"' }).transform((v) => v === 'true').optional(),
  cursor: eventCursor.optional(),
  limit: pageLimit(25),
});

export const eventIdParamSchema = z.uuid({ message: 'must be an event id (UUID)' });

/** A webhook event (spec 6.1) with its one delivery's outcome (spec 2.7). */
export const webhookEventSchema = z.object({
  eventId: z.uuid(),
  eventType: z.enum(WEBHOOK_EVENT_TYPES),
  paymentId: z.uuid(),
  createdAt: timestamp,
  /** The envelope's `data` as it was signed and sent; null when the attempt died before recording it. */
  data: z.record(z.string(), z.unknown()).nullable(),
  delivery: z.object({
    status: z.enum(['pending', 'delivered', 'exhausted']),
    statusCode: z.number().int().nullable(),
    deliveredAt: timestamp.nullable(),
    url: z.string(),
  }),
});
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

export const eventPageSchema = listPage(webhookEventSchema);
export type EventPage = z.infer<typeof eventPageSchema>;

const MAX_STATEMENT_DAYS = 366;

/** `GET /apps/{appId}/statement`: the period `[from, to)` (at most a year), as JSON or CSV. */
export const statementQuerySchema = z
  .object({
    from: time,
    to: time,
    format: z.enum(['json', 'csv'], { message: 'must be "json" or "csv"' }).default('json'),
  })
  .refine((q) => q.from < q.to, { message: 'from must be before to', path: ['to'] })
  .refine((q) => q.to.getTime() - q.from.getTime() <= MAX_STATEMENT_DAYS * 86_400_000, { message: `the period must be at most ${MAX_STATEMENT_DAYS} days`, path: ['to'] });

const figures = z.object({ payins: decimalString, payouts: decimalString, fees: decimalString, refunds: decimalString, held: decimalString, netted: decimalString, atDeposits: decimalString });

export const statementSchema = z.object({
  appId: z.string(),
  from: timestamp,
  to: timestamp,
  books: z.array(
    z.object({ chainId: z.string(), tokenSymbol: z.string().nullable(), tokenAddress: z.string(), decimals: z.number().int(), opening: figures, closing: figures }),
  ),
  movements: z.array(
    z.object({
      at: timestamp,
      kind: z.enum(LEDGER_KINDS),
      paymentId: z.uuid(),
      orderId: z.string().nullable(),
      chainId: z.string(),
      tokenSymbol: z.string().nullable(),
      tokenAddress: z.string(),
      amount: decimalString,
      amountUnits: z.string().regex(/^[0-9]+$/),
      debit: z.string(),
      credit: z.string(),
      txHash: z.string().nullable(),
      ref: z.string(),
    }),
  ),
});
