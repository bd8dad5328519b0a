import { z } from 'zod';
import { pageLimit } from './common';

/** `GET /me/webhook/deliveries?limit=N`: 1–100, default 20. Other query parameters are ignored. */
export const listWebhookDeliveriesQuerySchema = z.object({ limit: pageLimit(20) });
