import { extendDepositWatch, applyPaymentTransition } from '../db/queries/payments';
import { upsertPayin } from '../db/queries/payins';
import type { PayinDisposition, PayinStatus } from '../db/tables';
import type { DetectedPayin, PaymentTransition } from '../workflows/types';
import type { ActivityDeps } from './deps';
import { notifyOrderOfPayment } from './orders';

export function createReadModelActivities(deps: Pick<ActivityDeps, 'knex' | 'temporal' | 'log'>) {
  const { knex } = deps;
  return {
    /** Idempotent: writes absolute values. */
    async recordPaymentTransition(transition: PaymentTransition): Promise<void> {
      await applyPaymentTransition({ knex, transition });
      // A legacy order follows its payment; it learns of each step from here (at least once).
      await notifyOrderOfPayment(deps, transition);
    },

    /** Idempotent: upsert keyed by (chain, tx, log index). */
    async recordPayin(input: {
      paymentId: string;
      payin: DetectedPayin;
      status: PayinStatus;
      disposition?: PayinDisposition;
    }): Promise<void> {
      await upsertPayin({ knex, ...input });
    },

    /** Idempotent: only ever moves the watch end later. */
    async extendDepositWatch(input: { paymentId: string; windowMs: number }): Promise<void> {
      await extendDepositWatch({ knex, ...input });
    },
  };
}
