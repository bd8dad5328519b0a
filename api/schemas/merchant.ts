import { z } from 'zod';
import { chainIdSchema, isStorable, storable, text, tokenSymbolSchema } from './common';

/** Addresses are compared and stored lower-case: the developer is the same whatever case they type. */
const emailSchema = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .toLowerCase()
  .pipe(z.email({ message: 'must be an e-mail address' }))
  // The document shows the accepted (input) form, which the pipe's check is not part of.
  .meta({ format: 'email' });

export const loginCodeRequestSchema = z.object({ email: emailSchema }).strict();

export const tokenRequestSchema = z
  .object({
    email: emailSchema,
    code: z.string().regex(/^[0-9]{6}$/, 'must be the 6-digit code from the e-mail'),
  })
  .strict();

/** Checked here for form only; `checkWebhookUrl` then applies the https and private-network policy. */
const webhookUrlSchema = z.string().max(2048, 'must be at most 2048 characters').refine(isStorable, storable);

/** Checked here for form only; the payout chain's adapter then checks it is an address of that chain. */
const payoutAddressSchema = z.string().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters');

export const registerBodySchema = z
  .object({
    name: text(100).optional(),
    webhookUrl: webhookUrlSchema,
    /** Let `POST {payment_api_url}/payments` (appId in the body, no key) create payments for the app; off unless asked. */
    keylessPayments: z.boolean().default(false),
    payout: z.object({ chainId: chainIdSchema, tokenSymbol: tokenSymbolSchema, address: payoutAddressSchema }).strict(),
  })
  .strict();

export type RegisterBody = z.infer<typeof registerBodySchema>;

export const createApiKeyBodySchema = z
  .object({
    name: text(100).optional(),
    scope: z.enum(['Orders', 'Admin'], { message: 'must be "Orders" or "Admin"' }).default('Orders'),
  })
  .strict();

/** `PATCH /apps/{appId}`: the app's settings; fields left out keep their values. */
export const appUpdateBodySchema = z
  .object({ keylessPayments: z.boolean({ message: 'must be true or false' }).optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'name at least one setting, e.g. keylessPayments' });

export const webhookUpdateBodySchema = z.object({ webhookUrl: webhookUrlSchema }).strict();

export const apiKeyIdSchema = z.uuid({ message: 'must be an API key id (UUID)' });

export const statsQuerySchema = z.object({
  period: z.enum(['today', '7d', '30d'], { message: 'must be "today", "7d" or "30d"' }),
});
