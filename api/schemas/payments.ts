import { z } from 'zod';
import type { ChainList } from './chains';
import { appIdSchema, chainIdSchema, isStorable, storable, text, tokenSymbolSchema } from './common';

export const orderIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

const displaySchema = z
  .object({
    title: text(200).optional(),
    name: text(200).optional(),
    description: z.string().max(1000, 'must be at most 1000 characters').refine(isStorable, storable).optional(),
    currency: z.string().regex(/^[A-Z]{3,5}$/, 'must be an upper-case currency code such as "USD"').optional(),
  })
  .strict()
  .refine((d) => d.title !== undefined || d.name !== undefined, { message: 'display.name or display.title is required' })
  // The refinement in the OpenAPI document's terms (JSON Schema cannot run it).
  .meta({ anyOf: [{ required: ['name'] }, { required: ['title'] }] });

const sourceSchema = z.object({
  chainId: chainIdSchema,
  tokenSymbol: tokenSymbolSchema,
  amount: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,36})?$/, 'must be a positive decimal string below 1000000000000, such as "12.50"'),
}).strict();

/**
 * `source` as one server's OpenAPI document states it: one alternative per chain it serves, naming that chain's
 * tokens. The schema above takes any chain and token; the service refuses what this server does not serve.
 */
export function servedSourceSchema(chains: ChainList): z.ZodType {
  const alternatives = chains.data
    .filter((chain) => chain.tokens.length > 0)
    .map((chain) => sourceSchema.extend({ chainId: z.literal(chain.chainId), tokenSymbol: z.enum(chain.tokens.map((t) => t.symbol)) }));
  return alternatives.length > 0 ? z.union(alternatives) : sourceSchema;
}

const metadataSchema = z
  .record(z.string().max(64), z.unknown())
  .refine(isStorable, storable)
  .refine((m) => Buffer.byteLength(JSON.stringify(m), 'utf8') <= 4096, { message: 'must serialise to at most 4096 bytes of JSON' });

/**
 * `POST {payment_api_url}` (key-authenticated): the merchant's wallet is the destination, so none may be sent.
 * Unknown fields are refused: a misspelt `orderID` must not silently lose idempotency.
 */
export const createPaymentBodySchema = z.object({
  type: z.literal('exactIn', { message: 'must be "exactIn"' }).default('exactIn'),
  orderId: orderIdSchema.nullish(),
  display: displaySchema,
  source: sourceSchema,
  destination: z.never({ message: 'must not be set: payouts go to the merchant wallet configured on the server' }).optional(),
  metadata: metadataSchema.nullish(),
}).strict();

/** `POST {payment_api_url}/payments`: the same body, naming the merchant app instead of authenticating as it. */
export const createPaymentByAppIdBodySchema = createPaymentBodySchema.extend({ appId: appIdSchema });

export type CreatePaymentBody = z.infer<typeof createPaymentBodySchema>;

export const paymentIdParamSchema = z.string().uuid('must be a payment id (UUID)');

/** `Idempotency-Key` of `POST {payment_api_url}/{id}/refunds`: the same key and body return the same refund. */
export const idempotencyKeySchema = z
  .string({ message: 'is required: send an Idempotency-Key header' })
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

/**
 * `POST {payment_api_url}/{id}/refunds`: `amount` defaults to what is left to refund. Without `address` the refund
 * awaits its customer's claim (`awaiting_address`, with a `claimUrl`).
 */
export const createRefundBodySchema = z
  .object({
    amount: z.string().regex(/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,36})?$/, 'must be a positive decimal string below 1000000000000, such as "12.50"').optional(),
    reason: text(500).optional(),
    address: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters').refine(isStorable, storable).optional(),
  })
  .strict();

export type CreateRefundBody = z.infer<typeof createRefundBodySchema>;

/** A merchant refund, as the API returns it; fields not yet known are null. */
export const refundResourceSchema = z.object({
  id: z.string().uuid(),
  paymentId: z.string().uuid(),
  amount: z.string(),
  chainId: z.string(),
  tokenSymbol: z.string(),
  status: z.enum(['awaiting_address', 'pending', 'sent', 'completed', 'failed']),
  reason: z.string().nullable(),
  address: z.string().nullable(),
  claimUrl: z.string().nullable(),
  /**
   * Where the merchant pays to fund a refund its refund credit does not cover: the payment's deposit address (and
   * the memo where its network needs one), the least one transfer must bring, and the transfer that funded it. The
   * refund is sent once it is funded. Null when the refund is within the credit (the treasury sends it at once).
   */
  funding: z
    .object({ address: z.string(), memo: z.string().nullable(), amount: z.string(), txHash: z.string().nullable() })
    .nullable()
    .meta({ description: 'Past the app’s refund credit: where the merchant funds the refund, and the transfer that did.' }),
  txHash: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});

export const refundListSchema = z.object({ data: z.array(refundResourceSchema) });

export const refundIdParamSchema = z.string().uuid('must be a refund id (UUID)');

/** `POST /pay/{id}/refunds/{refundId}/claim/{token}`: the customer's address on the payment's source chain. */
export const claimRefundBodySchema = z
  .object({
    address: z.string({ message: 'is required: the address on the network shown that the refund is sent to' }).min(1, 'must not be empty').max(200, 'must be at most 200 characters').refine(isStorable, storable),
  })
  .strict();

/** What the claim page and its endpoint show of a refund: no merchant data but its name. */
export const refundClaimSchema = z.object({
  refundId: z.string().uuid(),
  paymentId: z.string().uuid(),
  merchant: z.string(),
  amount: z.string(),
  tokenSymbol: z.string(),
  network: z.string(),
  chainId: z.string(),
  addressForm: z.string(),
  status: z.enum(['awaiting_address', 'pending', 'sent', 'completed', 'failed']),
  address: z.string().nullable(),
  txHash: z.string().nullable(),
});
