import { getExternalWorkflowHandle, log, proxyLocalActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import type { DetectedPayin } from '../domain/payins';
import { nextPaymentWriteSequence, SETTLED_STATUSES, type PaymentProgress, type PaymentStatus, type PaymentTransition } from '../domain/payment';
import { readModelOptions } from './activity-options';
import { paymentUpdatedSignal } from './messages';
import { PaymentStatusKey } from './search-attributes';

const readModel = proxyLocalActivities<PaymentActivities>(readModelOptions);

type PayinWrite = 'detected' | 'confirmed' | 'dropped';
type StatusFields = Pick<PaymentTransition, 'payin' | 'payout'>;

/**
 * A payment run's status (its `PaymentStatus` search attribute) and its writes to the read model, in sequence
 * (workflows/payment.ts). Consecutive writes go in one `recordPaymentProgress` step; a payment started by a legacy
 * order tells the order of every status it enters.
 */
export class PaymentRecord {
  private current: PaymentStatus = 'payment_unpaid';
  private sequence = 0;

  constructor(private readonly paymentId: string) {}

  get status(): PaymentStatus {
    return this.current;
  }

  /** Enters `status` and records it; a final status also keeps the deposit address watched, in the same write. */
  async transition(status: PaymentStatus, fields: StatusFields = {}): Promise<void> {
    const step = this.enter(status, fields);
    // A settled status (the run's last) keeps the deposit address watched for late payins.
    return this.write(step, ...(SETTLED_STATUSES.includes(status) ? [{ kind: 'watch' as const }] : []));
  }

  /** Records where a payin stands. */
  payin(payin: DetectedPayin, status: PayinWrite, disposition?: 'payment' | 'refund'): Promise<void> {
    return this.write(this.payinStep(payin, status, disposition));
  }

  /** The run enters `status` (its state, its search attribute); the returned step, written with others, records it. */
  enter(status: PaymentStatus, fields: StatusFields = {}): Extract<PaymentProgress, { kind: 'status' }> {
    const from = this.current;
    this.current = status;
    upsertSearchAttributes([{ key: PaymentStatusKey, value: status }]);
    return { kind: 'status', status, from, sequence: this.nextSequence(), ...fields };
  }

  /** A payin's write, to be written with others. */
  payinStep(payin: DetectedPayin, status: PayinWrite, disposition?: 'payment' | 'refund'): PaymentProgress {
    return { kind: 'payin', payin, status, disposition, sequence: this.nextSequence() };
  }

  /** The next write's sequence, from the workflow's start (its history's first event) to this task's start (the sandbox's clock). */
  private nextSequence(): number {
    // eslint-disable-next-line no-restricted-syntax
    this.sequence = nextPaymentWriteSequence(this.sequence, Date.now() - workflowInfo().startTime.getTime());
    return this.sequence;
  }

  /** Records consecutive writes in one step, then tells the run's order (if one started it) of the statuses. */
  async write(...steps: PaymentProgress[]): Promise<void> {
    await readModel.recordPaymentProgress({ paymentId: this.paymentId, steps });
    const order = workflowInfo().parent?.workflowId;
    for (const step of steps) {
      if (!order || step.kind !== 'status') continue;
      // An order that has ended no longer listens; that is not an error.
      await getExternalWorkflowHandle(order)
        .signal(paymentUpdatedSignal, { paymentId: this.paymentId, status: step.status })
        .catch((err: unknown) => log.info('order did not take the payment update', { paymentId: this.paymentId, status: step.status, error: String(err) }));
    }
  }
}
