import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { OrderStatus } from '../domain/orders';
import { applyOrderTransition } from '../db/queries/orders';
import { deliverOrderCallback } from '../services/callbacks';
import { createOrderPayment, sendOrderReceipt } from '../services/orders';
import type { CreatedOrderPayment } from '../workflows/types';
import type { ActivityDeps } from './deps';
import { asActivity } from './failures';

/** A callback's whole exchange is bounded by this; the activity allows 30 s in all. */
const CALLBACK_TIMEOUT_MS = 10_000;

export function createOrderActivities(deps: ActivityDeps) {
  const { knex, chains, log } = deps;
  const { pricing, publicBaseUrl, allowPrivateCallbackTargets, mailer } = deps.orders;
  return {
    /**
     * Idempotent: prices the order in `payCurrency` and writes its payment row (and deposit address), or returns the
     * payment the order already has. The order workflow then starts the payment as its child.
     */
    createOrderPayment: (input: { orderId: string; payCurrency: string }): Promise<CreatedOrderPayment> =>
      asActivity(() => createOrderPayment({ knex, chains, pricing, latePayinWindowSeconds: deps.latePayinWindowMs / 1000, log }, input)),

    /** Idempotent: absolute values, and a write not newer than the stored sequence changes nothing. */
    async recordOrderTransition(input: { orderId: string; status: OrderStatus; sequence?: number }): Promise<void> {
      await applyOrderTransition({ knex, ...input });
    },

    /**
     * AT LEAST ONCE, by design (the legacy interface asks for a 2xx): one attempt per call, logged whatever happens;
     * throws unless the merchant answered 2xx, so the retry policy tries again with backoff. Merchants deduplicate on
     * `callback_id`. A URL the policy refuses is final.
     */
    async deliverOrderCallback(input: { orderId: string; callbackId: string; status: OrderStatus }): Promise<{ attempt: number; statusCode: number }> {
      const attempt = Context.current().info.attempt;
      const outcome = await asActivity(() =>
        deliverOrderCallback({ knex, chains, publicBaseUrl, secrets: deps.secrets, allowPrivateCallbackTargets, callbackTimeoutMs: CALLBACK_TIMEOUT_MS }, { ...input, attempt }),
      );
      if (outcome.delivered) return { attempt, statusCode: outcome.statusCode };
      if (outcome.final) throw ApplicationFailure.nonRetryable(outcome.reason, 'CallbackUrlRefused');
      // Benign: the merchant's endpoint failing is not Payrail's error (logged at debug); the attempt log has it.
      throw ApplicationFailure.create({ message: outcome.reason, type: 'CallbackFailed', category: ApplicationFailureCategory.BENIGN });
    },

    /** Idempotent: mails the receipt of a paid order to its `email`, once (claimed in the database first). */
    sendOrderReceipt: (input: { orderId: string }): Promise<{ sent: boolean }> => asActivity(() => sendOrderReceipt({ knex, log, mailer, publicBaseUrl }, input.orderId)),
  };
}

export type OrderActivities = ReturnType<typeof createOrderActivities>;
