import { z } from 'zod';
import { PAY_CURRENCY_CODES, USD_PRICE_CURRENCIES } from '../../domain/pay-currencies';

/** NUL and lone UTF-16 surrogates cannot be stored as PostgreSQL text. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const CONTROL = /[\u0000-\u001f\u007f]/;
const storable = (s: string) => !UNSTORABLE.test(s);
const storableMessage = { message: 'must not contain NUL characters or unpaired surrogates' };

/** Optional fields: `null` and `""` mean "not given", as legacy clients send them. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null || v === '' ? undefined : v), schema.optional());

const text = (max: number) =>
  z
    .string({ message: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .refine(storable, storableMessage);

const MAX_PRICE = 10n ** 12n;
const PRICE = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * `price_amount`: a JSON number (as the interface says: a double) or a decimal string, greater than zero, below
 * 10^12, with at most 6 decimal places. Numbers are read through their shortest decimal form, so 19.99 is
 * exactly "19.99"; a number that is not a short decimal (0.1 + 0.2) is refused rather than rounded.
 */
const priceAmount = z.unknown().transform((value, ctx) => {
  let decimal: string;
  if (value === undefined || value === null) {
    ctx.addIssue({ code: 'custom', message: 'is required' });
    return z.NEVER;
  }
  if (typeof value !== 'number' && typeof value !== 'string') {
    ctx.addIssue({ code: 'custom', message: 'must be a number greater than 0, such as 12.5' });
    return z.NEVER;
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be a finite number' });
      return z.NEVER;
    }
    decimal = String(value);
    // Exponent forms: 1e-7 has too many decimals, 1e+21 is too large; both are refused below.
    if (/e/i.test(decimal)) decimal = Math.abs(value) < 1 ? '0.0000000' : '1000000000000';
  } else {
    decimal = value.trim();
  }
  if (decimal.startsWith('-')) {
    ctx.addIssue({ code: 'custom', message: 'must be greater than 0' });
    return z.NEVER;
  }
  if (!PRICE.test(decimal)) {
    ctx.addIssue({ code: 'custom', message: 'must be a number greater than 0, such as 12.5' });
    return z.NEVER;
  }
  const [whole = '0', fraction = ''] = decimal.split('.');
  if (fraction.length > 6) {
    ctx.addIssue({ code: 'custom', message: 'must have at most 6 decimal places' });
    return z.NEVER;
  }
  if (BigInt(whole) >= MAX_PRICE) {
    ctx.addIssue({ code: 'custom', message: 'must be below 1000000000000' });
    return z.NEVER;
  }
  if (/^0(\.0*)?$/.test(decimal)) {
    ctx.addIssue({ code: 'custom', message: 'must be greater than 0' });
    return z.NEVER;
  }
  return decimal;
}).meta({
  // The transform in the OpenAPI document's terms (JSON Schema cannot run it); the decimal rules stay the server's.
  anyOf: [
    { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: Number(MAX_PRICE) },
    { type: 'string', pattern: '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,6})?$' },
  ],
});

const httpUrl = z
  .string({ message: 'must be a string' })
  .max(2048, 'must be at most 2048 characters')
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.username && !url.password;
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute http:// or https:// URL without credentials' },
  );

const merchantOrderId = z.union(
  [
    z
      .string()
      .min(1, 'must not be empty')
      .max(128, 'must be at most 128 characters')
      .refine((s) => !CONTROL.test(s) && storable(s), { message: 'must not contain control characters' }),
    z.number().int('must be a whole number when sent as a number').nonnegative('must not be negative').max(Number.MAX_SAFE_INTEGER, 'is too large').transform(String),
  ],
  { message: 'must be a string or a whole number' },
);

const booleanField = z.boolean({ message: 'must be true or false' });

/** `POST /v1/orders` (spec 2.9). Unknown fields are refused, so a misspelt `merchant_order_id` cannot lose idempotency. */
export const createOrderBodySchema = z
  .object(
    {
      merchant_order_id: optional(merchantOrderId),
      price_amount: priceAmount,
      price_currency: optional(
        z
          .string({ message: 'must be a string' })
          // Any case is taken; the document names the currencies (the enum check is the service's).
          .meta({ enum: [...USD_PRICE_CURRENCIES] })
          .transform((s) => s.trim().toUpperCase())
          .pipe(z.string().regex(/^[A-Z]{3,5}$/, 'must be a currency code such as "USD"')),
      ).transform((v) => v ?? 'USD'),
      pay_currency: optional(
        z
          .string({ message: 'must be a string' })
          .meta({ enum: [...PAY_CURRENCY_CODES] })
          .transform((s) => s.trim().toUpperCase())
          .pipe(z.enum(PAY_CURRENCY_CODES, { message: `must be one of ${PAY_CURRENCY_CODES.join(', ')}` })),
      ),
      title: optional(text(200)),
      description: optional(text(800)),
      email: optional(z.email({ message: 'must be an e-mail address' }).max(254, 'must be at most 254 characters')),
      callback_url: optional(httpUrl),
      cancel_url: optional(httpUrl),
      success_url: optional(httpUrl),
      mobile: optional(booleanField),
      fast: optional(booleanField),
      merchant_token: optional(text(256)),
    },
    { message: 'the body must be a JSON object' },
  )
  .strict();

export type CreateOrderBody = z.infer<typeof createOrderBodySchema>;

export const orderIdParamSchema = z.uuid('must be an order id (UUID)');

export const chooseCurrencyBodySchema = z
  .object({
    pay_currency: z
      .string({ message: 'must be a string' })
      .transform((s) => s.trim().toUpperCase())
      .pipe(z.enum(PAY_CURRENCY_CODES, { message: 'must be a pay currency' })),
  })
  .strict();
