import { z } from 'zod';
import { MAX_UNDERPAYMENT_TOLERANCE_BPS } from '../../domain/payment';
import { chainIdSchema, decimalString, isStorable, storable, text, timestamp, tokenSymbolSchema } from './common';

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
    /** The `loginId` that `POST /auth/login-code` answered: the code counts only for the login that asked for it. */
    loginId: z.uuid({ message: 'must be the loginId the login-code request answered' }),
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

const API_KEY_SCOPES = ['Orders', 'Admin'] as const;

export const createApiKeyBodySchema = z
  .object({
    name: text(100).optional(),
    scope: z.enum(API_KEY_SCOPES, { message: 'must be "Orders" or "Admin"' }).default('Orders'),
  })
  .strict();

/** `PATCH /apps/{appId}`: the app's settings; fields left out keep their values. */
export const appUpdateBodySchema = z
  .object({
    keylessPayments: z.boolean({ message: 'must be true or false' }).optional(),
    underpaymentToleranceBps: z.int({ message: 'must be a whole number of basis points' }).min(0, 'must be at least 0').max(MAX_UNDERPAYMENT_TOLERANCE_BPS, `must be at most ${MAX_UNDERPAYMENT_TOLERANCE_BPS} (1%)`).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'name at least one setting, e.g. keylessPayments' });

export const webhookUpdateBodySchema = z.object({ webhookUrl: webhookUrlSchema }).strict();

export const apiKeyIdSchema = z.uuid({ message: 'must be an API key id (UUID)' });

export const statsQuerySchema = z.object({
  period: z.enum(['today', '7d', '30d'], { message: 'must be "today", "7d" or "30d"' }),
});

/**
 * `POST /auth/login-code` (202): the same answer whether or not the address has an account, with the id of this
 * login, which the code is traded with: a code works only with the login that asked for it.
 */
export const loginCodeSentSchema = z.object({ message: z.string(), expiresInSeconds: z.number().int(), loginId: z.string() });

export type LoginCodeSent = z.infer<typeof loginCodeSentSchema>;

/** `POST /auth/token`: a dashboard token for the `Authorization: Bearer` header. */
export const dashboardTokenSchema = z.object({ token: z.string(), expiresAt: timestamp, developerId: z.string() });

export type DashboardToken = z.infer<typeof dashboardTokenSchema>;

/** `POST` and `GET /auth/session`: who is logged in to the dashboard. The session id travels only in its cookie. */
export const dashboardSessionSchema = z.object({ developerId: z.string(), email: z.string(), expiresAt: timestamp });

export type DashboardSession = z.infer<typeof dashboardSessionSchema>;

/** A merchant app as the dashboard sees it: never its webhook secret, only the fingerprint. */
export const appResourceSchema = z.object({
  appId: z.string(),
  name: z.string(),
  developerId: z.string().nullable(),
  payout: z.object({ chainId: z.string(), tokenSymbol: z.string(), address: z.string() }),
  webhookUrl: z.string().nullable(),
  /** Whether payments may be created without an API key (appId in the body), as the hosted page does. */
  keylessPayments: z.boolean(),
  /** Basis points of the amount a payment's payins may fall short of and still complete it (kept per payment at creation). */
  underpaymentToleranceBps: z.int(),
  webhookSecretFingerprint: z.string().nullable(),
  webhookSecretRotatedAt: timestamp.nullable(),
  createdAt: timestamp,
});

export type AppResource = z.infer<typeof appResourceSchema>;

/** `POST /register` (201): the app, and its webhook secret, shown this once. */
export const registeredAppSchema = appResourceSchema.extend({ webhookSecret: z.string() });

export type RegisteredApp = z.infer<typeof registeredAppSchema>;

/** `GET /apps`: the developer's apps. */
export const appListSchema = z.object({ data: z.array(appResourceSchema) });

export type AppList = z.infer<typeof appListSchema>;

/** An API key without its secret; `hint` (prefix and last characters) tells keys apart. */
export const apiKeyResourceSchema = z.object({
  id: z.uuid(),
  name: z.string().nullable(),
  scope: z.enum(API_KEY_SCOPES),
  hint: z.string(),
  createdAt: timestamp,
  revokedAt: timestamp.nullable(),
  lastUsedAt: timestamp.nullable(),
});

export type ApiKeyResource = z.infer<typeof apiKeyResourceSchema>;

/** `POST /apps/{appId}/keys` (201): the key, shown this once. */
export const createdApiKeySchema = apiKeyResourceSchema.extend({ key: z.string() });

export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

/** `GET /apps/{appId}/keys`: revoked keys too, with when they were revoked. */
export const apiKeyListSchema = z.object({ data: z.array(apiKeyResourceSchema) });

export type ApiKeyList = z.infer<typeof apiKeyListSchema>;

/** `POST /apps/{appId}/webhook/rotate`: the new secret, shown this once, and its fingerprint. */
export const webhookSecretRotationSchema = appResourceSchema
  .pick({ webhookSecretFingerprint: true, webhookSecretRotatedAt: true })
  .extend({ webhookSecret: z.string() });

export type WebhookSecretRotation = z.infer<typeof webhookSecretRotationSchema>;

/** `POST /apps/{appId}/webhook/test`: how the one attempt went; it is logged with the deliveries. */
export const webhookTestResultSchema = z.object({
  deliveryId: z.uuid(),
  status: z.enum(['delivered', 'exhausted']),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
});

export type WebhookTestResult = z.infer<typeof webhookTestResultSchema>;

/** Statistics of one period (spec 2.8): `GET /me/stats` and the dashboard's `GET /apps/{appId}/stats`. */
export const merchantStatsSchema = z.object({
  period: statsQuerySchema.shape.period,
  volumeUsdc: decimalString,
  paymentCount: z.number().int(),
  avgOrderUsdc: decimalString,
  netToWalletUsdc: decimalString,
  chart: z.array(z.object({ date: z.iso.date(), volumeUsdc: decimalString, paymentCount: z.number().int() })),
});

export type MerchantStats = z.infer<typeof merchantStatsSchema>;
