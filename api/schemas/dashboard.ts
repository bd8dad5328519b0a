import { z } from 'zod';
import { ORDER_STATUSES } from '../../domain/orders';
import { PAYMENT_STATUSES, parsePaymentStatus } from '../../domain/payment';
import { decimalString, isStorable, pageLimit, storable, timestamp } from './common';
import { paymentDataSchema } from './payment-data';
import { refundResourceSchema } from './payments';
import { DELIVERY_EVENT_TYPES, webhookDeliveryRecordSchema } from './webhook-deliveries';

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
  eventType: z.enum(DELIVERY_EVENT_TYPES, { message: `must be one of ${DELIVERY_EVENT_TYPES.join(', ')}` }).optional(),
  paymentId: z.uuid({ message: 'must be a payment id (UUID)' }).optional(),
  cursor,
  limit: pageLimit(25),
});

/** `GET /apps/{appId}/orders`. */
export const orderListQuerySchema = z.object({ cursor, limit: pageLimit(25) });

/** `GET /dashboard/config`: what every page needs first (asked before logging in). */
export const dashboardConfigSchema = z.object({
  /** `addressForm`: how the chain's family writes an address (the payout wallet field's hint). */
  chains: z.array(z.object({ chainId: z.string(), name: z.string(), explorerUrl: z.string().nullable(), tokens: z.array(z.string()), addressForm: z.string() })),
  temporalUiUrl: z.string().nullable(),
  devMailSinkUrl: z.string().nullable(),
  /** Every payment status in lifecycle order, as the API names them (the status filter's choices). */
  paymentStatuses: z.array(z.enum(PAYMENT_STATUSES)),
});

export type DashboardConfig = z.infer<typeof dashboardConfigSchema>;

/** A page of a list, newest first; `nextCursor` asks for the next one, and is null on the last. */
const listPage = <Row extends z.ZodType>(row: Row) => z.object({ data: z.array(row), nextCursor: z.uuid().nullable() });

/** A payment as the dashboard lists it: the interface's payment, and what its completed refunds gave back (null: none). */
export const listedPaymentSchema = paymentDataSchema.extend({ refunded: decimalString.nullable() });

export type ListedPayment = z.infer<typeof listedPaymentSchema>;

/** `GET /apps/{appId}/payments`. */
export const paymentPageSchema = listPage(listedPaymentSchema);

export type PaymentPage = z.infer<typeof paymentPageSchema>;

/** `GET /apps/{appId}/payments/changes`: the payments changed since the time asked, oldest change first. */
export const paymentChangesSchema = z.object({ data: z.array(listedPaymentSchema) });

export type PaymentChanges = z.infer<typeof paymentChangesSchema>;

/** What the merchant did to a payment, shown in its timeline beside the statuses it entered. */
export const TIMELINE_EVENTS = ['accepted_as_paid', 'refund_requested', 'refund_completed'] as const;

/** `GET /apps/{appId}/payments/{paymentId}`: the payment with its timeline, explorer links and deliveries. */
export const paymentDetailSchema = z.object({
  payment: paymentDataSchema,
  paymentLink: z.string(),
  /**
   * Every status the payment entered, from `payment_unpaid` at its creation, and what its merchant did to it
   * (accepted it as paid, asked for a refund, a refund landed; `note` says which), in the order they happened.
   */
  timeline: z.array(
    z.union([z.object({ status: z.enum(PAYMENT_STATUSES), at: timestamp }), z.object({ event: z.enum(TIMELINE_EVENTS), at: timestamp, note: z.string() })]),
  ),
  /** While the payment collects: its payins in its token, confirmed and still confirming, and what is left to pay. */
  arrived: z.object({ confirmed: decimalString, confirming: decimalString, left: decimalString }).nullable(),
  /** "Accept as paid" is offered: the payment collects, before its expiry, with a confirmed payin short of the amount. */
  acceptable: z.boolean(),
  /** What is left to refund of a refundable (completed) payment; null when it cannot be refunded. */
  refundable: decimalString.nullable(),
  /** The payment's refunds, oldest first. */
  refunds: z.array(refundResourceSchema),
  /** What its payout kept back for the app's refunds (payout token); null until its payout is signed. */
  keptForRefunds: decimalString.nullable(),
  /** The chains' explorers and the Temporal UI, where the operator configured them. */
  links: z.object({ payinTx: z.string().nullable(), payoutTx: z.string().nullable(), workflow: z.string().nullable() }),
  deliveries: z.array(webhookDeliveryRecordSchema),
  /** Transfers of tokens nobody configured into the deposit address: recorded, never counted or refunded. */
  quarantined: z.array(
    z.object({
      chainId: z.string(),
      tokenAddress: z.string(),
      amountUnits: z.string().regex(/^[0-9]+$/),
      txHash: z.string(),
      logIndex: z.number().int(),
      txLink: z.string().nullable(),
      recordedAt: timestamp,
    }),
  ),
});

export type PaymentDetail = z.infer<typeof paymentDetailSchema>;

/** A row of the delivery log: the record, where it was sent and when it was queued. */
export const deliveryLogEntrySchema = webhookDeliveryRecordSchema.extend({ url: z.string(), createdAt: timestamp });

/** `GET /apps/{appId}/deliveries`. */
export const deliveryPageSchema = listPage(deliveryLogEntrySchema);

export type DeliveryPage = z.infer<typeof deliveryPageSchema>;

/** `GET /apps/{appId}/orders`: legacy orders as the dashboard lists them. */
export const orderPageSchema = listPage(
  z.object({
    id: z.uuid(),
    merchantOrderId: z.string().nullable(),
    status: z.enum(ORDER_STATUSES),
    priceAmount: decimalString,
    priceCurrency: z.string(),
    payCurrency: z.string().nullable(),
    paymentId: z.uuid().nullable(),
    title: z.string().nullable(),
    createdAt: timestamp,
  }),
);

export type OrderPage = z.infer<typeof orderPageSchema>;

/** `GET /apps/{appId}/orders/{orderId}/callbacks`: every attempt of every callback of the order. */
export const callbackAttemptListSchema = z.object({
  data: z.array(
    z.object({
      callbackId: z.string(),
      orderStatus: z.enum(ORDER_STATUSES),
      attempt: z.number().int(),
      url: z.string(),
      statusCode: z.number().int().nullable(),
      error: z.string().nullable(),
      responsePreview: z.string().nullable(),
      durationMs: z.number().int(),
      attemptedAt: timestamp,
    }),
  ),
});

export type CallbackAttemptList = z.infer<typeof callbackAttemptListSchema>;

/** `POST /apps/{appId}/payments/{paymentId}/accept`: the payment, accepted as paid (it then settles what arrived). */
export const acceptedPaymentSchema = z.object({ payment: paymentDataSchema });

export type AcceptedPayment = z.infer<typeof acceptedPaymentSchema>;
