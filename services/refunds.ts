/**
 * Merchant refunds: a merchant returns some or all of a completed payment to its customer, at an address it names or
 * one the customer gives at the refund's claim link (services/refund-claims.ts). The API records the refund
 * (idempotent per app and `Idempotency-Key`) and, once it has an address, starts its run, `refund-<id>`
 * (workflows/refund.ts), whose steps are below: the transaction from the source chain's treasury, and its booking.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { intentKeys } from '../domain/chain-txs';
import { DomainError, invalidField } from '../domain/errors';
import { AmountError, formatUnits, parseUnits } from '../domain/money';
import { MERCHANT_REFUND_SEQUENCE } from '../domain/payment';
import { fullyRefunded, leftToRefund, merchantFunds, REFUNDABLE_STATUS } from '../domain/refunds';
import { applyPaymentTransition, findPaymentById } from '../db/queries/payments';
import { findRefund, findRefundByKey, insertRefund, listPaymentRefunds, lockPaymentForRefund, updateRefundStatus } from '../db/queries/refunds';
import type { PaymentRow, RefundRow } from '../db/tables';
import { createChainTxService, type ChainTxService, type ChainTxServiceDeps } from './chain-txs';
import { recordRefundOwed, refundCreditCovers } from './refund-netting';
import { watchDepositForFunding } from './refund-funding';
import { claimTokenHashOf, mailClaimLink, refundAddressOf, type RefundClaimDeps } from './refund-claims';
import { TreasuryShort } from './treasury-reservations';
import { startRefundWorkflow } from './workflows';

export type RefundServiceDeps = RefundClaimDeps;

/**
 * What a merchant asks for: `amount` (decimal, default what is left), an optional reason, the address to pay. Without
 * an address the refund awaits one from its customer, at its claim link.
 */
export interface CreateRefundCommand {
  amount?: string;
  reason?: string;
  address?: string;
}

/** What makes two requests under one idempotency key the same request. */
const fingerprintOf = (paymentId: string, body: CreateRefundCommand): string =>
  createHash('sha256')
    .update(JSON.stringify([paymentId, body.amount ?? null, body.reason ?? null, body.address ?? null]))
    .digest('hex');

/**
 * Refunds a completed payment of `appId` (its Admin key asked): records the refund and starts its run. The same
 * idempotency key with the same request returns the refund it made (`created` false), with another request is an
 * `idempotency_conflict`. A payment's refunds never add up to more than its payins delivered: refunds of one payment
 * are decided one at a time, under its row's lock. A refund the app's refund credit does not cover waits for the
 * merchant's funding at the payment's deposit address (services/refund-funding.ts). A refund without an address is
 * signed for nothing until its claim gives one; its claim link is mailed to the order's customer when there is an
 * e-mail.
 */
export async function createRefund(
  deps: RefundServiceDeps,
  appId: string,
  paymentId: string,
  idempotencyKey: string,
  body: CreateRefundCommand,
): Promise<{ refund: RefundRow; payment: PaymentRow; created: boolean }> {
  const fingerprint = fingerprintOf(paymentId, body);
  const sameRequest = async (refund: RefundRow) => {
    if (refund.request_fingerprint !== fingerprint) throw new DomainError('idempotency_conflict', `the Idempotency-Key ${idempotencyKey} was used for another request`);
    const payment = (await findPaymentById({ knex: deps.knex, id: refund.payment_id }))!;
    // The first request may have stopped before it started the run.
    if (refund.status !== 'awaiting_address') await startRefundWorkflow(deps, refund, payment);
    return { refund, payment, created: false };
  };
  const earlier = await findRefundByKey({ knex: deps.knex, appId, idempotencyKey });
  if (earlier) return sameRequest(earlier);

  const found = await findPaymentById({ knex: deps.knex, id: paymentId });
  // A key never learns whether another app's payment exists.
  if (!found || found.app_id !== appId) throw new DomainError('not_found', 'payment not found');
  const address = body.address === undefined ? null : refundAddressOf(deps.chains, found, body.address);
  let asked: bigint | undefined;
  if (body.amount !== undefined) {
    try {
      asked = parseUnits(body.amount, found.source_decimals);
    } catch (err) {
      if (err instanceof AmountError) throw invalidField('amount', err.message);
      throw err;
    }
    if (asked <= 0n) throw invalidField('amount', 'must be more than 0');
  }

  const inserted = await deps.knex.transaction(async (trx) => {
    const payment = (await lockPaymentForRefund({ trx, paymentId }))!;
    if (payment.status !== REFUNDABLE_STATUS) throw new DomainError('conflict', `payment ${paymentId} is ${payment.status}: only a completed payment is refunded`);
    const left = leftToRefund(payment, await listPaymentRefunds({ knex: trx, paymentId }));
    const amount = asked ?? left;
    const leftText = `${formatUnits(left, payment.source_decimals)} ${payment.source_token_symbol}`;
    if (amount <= 0n) throw invalidField('amount', 'nothing is left to refund of this payment');
    if (amount > left) throw invalidField('amount', `is more than what is left to refund of this payment (${leftText})`);
    const fronted = await refundCreditCovers(trx, payment, amount);
    if (!fronted) await watchDepositForFunding(trx, paymentId, deps.refundClaimWindowDays);
    const id = randomUUID();
    const refund = await insertRefund({
      knex: trx,
      row: {
        id,
        payment_id: paymentId,
        app_id: appId,
        idempotency_key: idempotencyKey,
        request_fingerprint: fingerprint,
        amount_units: amount.toString(),
        funding_units: fronted ? null : amount.toString(),
        reason: body.reason ?? null,
        address,
        status: address ? 'pending' : 'awaiting_address',
        claim_token_hash: address ? null : claimTokenHashOf(deps, id),
      },
    });
    return refund && { refund, payment };
  });
  // Another request took the key meanwhile: its refund answers this one.
  if (!inserted) return sameRequest((await findRefundByKey({ knex: deps.knex, appId, idempotencyKey }))!);
  if (inserted.refund.address) await startRefundWorkflow(deps, inserted.refund, inserted.payment);
  else await mailClaimLink(deps, inserted.refund, inserted.payment);
  return { ...inserted, created: true };
}

/** A payment's refunds, for its own app only. */
export async function listRefunds(deps: { knex: Knex }, appId: string, paymentId: string): Promise<{ payment: PaymentRow; refunds: RefundRow[] }> {
  const payment = await findPaymentById({ knex: deps.knex, id: paymentId });
  if (!payment || payment.app_id !== appId) throw new DomainError('not_found', 'payment not found');
  return { payment, refunds: await listPaymentRefunds({ knex: deps.knex, paymentId }) };
}

/** The refund and its payment, as stored: the only terms a refund moves on. */
async function refundTerms(knex: Knex, refundId: string): Promise<{ refund: RefundRow; payment: PaymentRow }> {
  const refund = await findRefund({ knex, id: refundId });
  if (!refund) throw new DomainError('not_found', `refund ${refundId} does not exist`);
  const payment = (await findPaymentById({ knex, id: refund.payment_id }))!;
  return { refund, payment };
}

/**
 * Signs (once: intent `merchant-refund:<id>`, or `funded-refund:<id>` for one its merchant funded) and sends the
 * refund's transfer, from the source chain's treasury, or from the payment's deposit address where the merchant
 * funded it, on the refund and payment as stored now (and checked again by `assertTransferOnTerms`); marks the
 * refund `sent`.
 */
export async function sendMerchantRefund(deps: ChainTxServiceDeps, refundId: string): Promise<{ intentKey: string }> {
  const { refund, payment } = await refundTerms(deps.knex, refundId);
  if (!refund.address) throw new DomainError('conflict', `refund ${refundId} has no address yet`);
  if (merchantFunds(refund) && !refund.funding_tx_hash) throw new DomainError('conflict', `refund ${refundId} is not funded yet`);
  const txs = createChainTxService(deps);
  const transfer = { paymentId: payment.id, chainId: payment.source_chain_id, tokenAddress: payment.source_token_address, amountUnits: refund.amount_units };
  const sent = merchantFunds(refund)
    ? await txs.sweepDeposit({ ...transfer, intentKey: intentKeys.fundedRefund(refund.id), recipient: { kind: 'address', address: refund.address }, purpose: 'merchant refund (funded)' })
    : await sendFromTreasury(txs, { ...transfer, intentKey: intentKeys.merchantRefund(refund.id), to: refund.address, purpose: 'merchant refund' });
  await updateRefundStatus({ knex: deps.knex, id: refund.id, status: 'sent', ...(sent.txHash ? { txHash: sent.txHash } : {}) });
  return { intentKey: sent.intentKey };
}

/**
 * A refund from the treasury reserves its amount there first, beside the payouts' reservations, so neither spends
 * tokens the other counts on; a treasury short of it throws `TreasuryShort` (the refund's run waits for an operator).
 */
async function sendFromTreasury(txs: ChainTxService, transfer: Parameters<ChainTxService['transferFromTreasury']>[0] & { paymentId: string }): Promise<{ intentKey: string; txHash: string | null }> {
  const { reserved, balanceUnits } = await txs.reserveFromTreasury(transfer);
  if (!reserved) throw new TreasuryShort(transfer.intentKey, balanceUnits, transfer.amountUnits);
  return txs.transferFromTreasury(transfer);
}

/**
 * The refund landed (booked in the ledger with its transaction): the app owes it unless its merchant funded it
 * (services/refund-netting.ts), it is
 * `completed`, and its payment is `payment_refunded` once its completed refunds return all it delivered. Each write
 * is idempotent.
 */
export async function completeMerchantRefund(deps: { knex: Knex }, input: { refundId: string; txHash: string; confirmedAt: string }): Promise<void> {
  const { refund, payment } = await refundTerms(deps.knex, input.refundId);
  await recordRefundOwed(deps, refund, payment);
  await updateRefundStatus({ knex: deps.knex, id: refund.id, status: 'completed', txHash: input.txHash, completedAt: new Date(input.confirmedAt) });
  if (fullyRefunded(payment, await listPaymentRefunds({ knex: deps.knex, paymentId: payment.id }))) {
    await applyPaymentTransition({ knex: deps.knex, transition: { paymentId: payment.id, status: 'payment_refunded', sequence: MERCHANT_REFUND_SEQUENCE } });
  }
}

/** The refund's transaction reverted: the refund is `failed`, and its amount may be refunded again. */
export async function failMerchantRefund(deps: { knex: Knex }, input: { refundId: string; txHash: string }): Promise<void> {
  await updateRefundStatus({ knex: deps.knex, id: input.refundId, status: 'failed', txHash: input.txHash });
}
