/**
 * Underpayments the merchant resolves: "accept as paid" completes a payment that collects with less than its amount;
 * the payment's run decides (it refuses without a confirmed payin, or after expiry) and pays out what arrived less
 * the fee. The app's underpayment tolerance is a setting (`PATCH /apps/{appId}`), kept on each payment it creates.
 */
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { DomainError } from '../domain/errors';
import { findPaymentById } from '../db/queries/payments';
import type { PaymentRow } from '../db/tables';
import { paymentWorkflowId } from '../workflows/ids';
import { acceptAsPaidUpdate } from '../workflows/messages';

/** The statuses of a payment that collects: a payin arrived, the amount not yet reached. */
const COLLECTING = new Set(['payment_started']);

export async function acceptAsPaid(deps: { knex: Knex; temporal: { client: Client } }, appId: string, paymentId: string): Promise<PaymentRow> {
  const payment = await findPaymentById({ knex: deps.knex, id: paymentId });
  if (!payment || payment.app_id !== appId) throw new DomainError('not_found', 'payment not found');
  const refuse = (why: string) => new DomainError('conflict', `payment ${paymentId} cannot be accepted as paid: ${why}`);
  if (payment.expires_at.getTime() <= Date.now()) throw refuse('it has expired');
  if (!COLLECTING.has(payment.status)) throw refuse(`it is ${payment.status}, not collecting a payin`);
  try {
    await deps.temporal.client.workflow.getHandle(paymentWorkflowId(paymentId)).executeUpdate(acceptAsPaidUpdate);
  } catch (err) {
    // The run's validator refused: nothing confirmed yet, or it stopped collecting meanwhile.
    if (err instanceof WorkflowUpdateFailedError) throw refuse(err.cause?.message ?? err.message);
    throw err;
  }
  return (await findPaymentById({ knex: deps.knex, id: paymentId }))!;
}
