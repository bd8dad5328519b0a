import type { DetectedPayin, PayinDisposition, PayinStatus } from '../domain/payins';
import { applyPaymentProgress, paymentRoute, paymentTerms, type PaymentProgress, type PaymentTerms, type PaymentTransition } from '../domain/payment';
import { DomainError } from '../domain/errors';
import { claimLatePayin, findPayin, holdPayinDust, upsertPayin } from '../db/queries/payins';
import { applyPaymentTransition, extendDepositWatch, findPaymentById, markAcceptedAsPaid } from '../db/queries/payments';
import { bridgeRouteFor } from '../services/bridges';
import { recordHeldEntry, recordPayinEntry } from '../services/ledger';
import { refundHoldReason } from '../services/refund-economics';
import { claimRefundFunding } from '../services/refund-funding';
import { wakeRefundWorkflow } from '../services/workflows';
import { startOrphanedWorkflows } from '../services/reconcile';
import type { ActivityDeps } from './deps';
import { asActivity } from './failures';

/** The payment's read model and terms, and the reconciler: every write is idempotent. */
export function createPaymentRecordActivities(deps: ActivityDeps) {
  const { knex, log } = deps;

  /** Idempotent: absolute values, and a write not newer than the stored sequence changes nothing. */
  async function recordPaymentTransition(transition: PaymentTransition): Promise<void> {
    await applyPaymentTransition({ knex, transition });
  }

  /** Idempotent: upsert keyed by the payin's identity (chain, tx, log index), ordered by sequence. */
  async function recordPayin(input: { paymentId: string; payin: DetectedPayin; status: PayinStatus; disposition?: PayinDisposition; sequence: number }): Promise<void> {
    await upsertPayin({ knex, ...input });
    if (input.status === 'confirmed' && input.disposition) await recordPayinEntry(deps, input.paymentId, input.payin);
  }

  /** Idempotent: keeps the deposit address watched for the late-payin window from now; never shortens a watch. */
  async function keepDepositWatched(input: { paymentId: string }): Promise<void> {
    await extendDepositWatch({ knex, paymentId: input.paymentId, windowMs: deps.latePayinWindowMs });
  }

  return {
    /** Idempotent (read-only): the payment's terms as stored, the only terms money moves on. */
    async loadPaymentTerms(input: { paymentId: string }): Promise<PaymentTerms> {
      return asActivity(async () => {
        const row = await findPaymentById({ knex, id: input.paymentId });
        if (!row) throw new DomainError('not_found', `payment ${input.paymentId} does not exist`);
        const route = paymentRoute(row);
        const source = { chainId: row.source_chain_id, symbol: row.source_token_symbol, decimals: row.source_decimals };
        return paymentTerms(row, { bridgeRoute: route === 'bridge' && bridgeRouteFor(deps.chains, source, row.destination_chain_id), sweepAfterMs: deps.sweepAfterMs });
      });
    },

    recordPaymentTransition,
    recordPayin,

    /**
     * Idempotent: each write is (see recordPayin, recordPaymentTransition, extendDepositWatch). A payment run's
     * consecutive writes in one step: one local activity for several, which is most of a payment's cost in the worker.
     */
    recordPaymentProgress: (input: { paymentId: string; steps: PaymentProgress[] }): Promise<void> =>
      applyPaymentProgress(input.paymentId, input.steps, { recordPayin, recordPaymentTransition, extendDepositWatch: keepDepositWatched }),

    /**
     * Idempotent (a payin held once stays held, whatever a later estimate says): whether returning `amountUnits` of
     * the payin would be a refund at a loss: dust, or a network cost above the configured share of its value
     * (services/refund-economics.ts). Such a refund is held at the deposit address and recorded on the payin,
     * visible to operators.
     */
    async holdDust(input: { paymentId: string; payin: DetectedPayin; amountUnits: string }): Promise<{ held: boolean }> {
      const { chainId, txHash, logIndex } = input.payin;
      const recorded = await findPayin({ knex, chainId, txHash, logIndex });
      if (recorded?.held_units !== input.amountUnits) {
        const reason = await refundHoldReason(deps, input);
        if (!reason) return { held: false };
        log.warn({ paymentId: input.paymentId, payin: input.payin, heldUnits: input.amountUnits, reason }, 'refund held at the deposit address: it would be made at a loss');
      }
      await holdPayinDust({ knex, paymentId: input.paymentId, payin: input.payin, heldUnits: input.amountUnits });
      await recordHeldEntry(deps, input.paymentId, input.payin, input.amountUnits);
      return { held: true };
    },

    /**
     * Idempotent: claims a late payin for its refund; false (always, from then on) when its payment counted it, or
     * when it funds a merchant's refund of the payment (whose run it then wakes).
     */
    async claimPayinRefund(input: { paymentId: string; payin: DetectedPayin; sequence: number }): Promise<boolean> {
      const funded = await claimRefundFunding(deps, input);
      if (funded) {
        await recordPayinEntry(deps, input.paymentId, input.payin);
        await wakeRefundWorkflow(deps, funded.id);
        return false;
      }
      const refund = await claimLatePayin({ knex, ...input, claim: 'refund' });
      if (refund) await recordPayinEntry(deps, input.paymentId, input.payin);
      return refund;
    },

    extendDepositWatch: keepDepositWatched,

    /** Idempotent: the first acceptance's time stays. */
    async recordAcceptedAsPaid(input: { paymentId: string }): Promise<void> {
      await markAcceptedAsPaid({ knex, paymentId: input.paymentId });
    },

    /** Idempotent: starting a workflow that already runs finds the running one. */
    async startOrphanedWorkflows(input: { olderThanMs: number }): Promise<number> {
      return startOrphanedWorkflows({ knex, temporal: deps.temporal, log }, input);
    },
  };
}
