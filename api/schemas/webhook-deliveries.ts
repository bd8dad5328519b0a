import { z } from 'zod';

/** `GET /me/webhook/deliveries?limit=N`: 1–100, default 20. Other query parameters are ignored. */
export const listWebhookDeliveriesQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^[0-9]{1,3}$/, 'must be a whole number from 1 to 100')
    .transform(Number)
    .pipe(z.number().min(1, 'must be a whole number from 1 to 100').max(100, 'must be a whole number from 1 to 100'))
    .default(20),
});
