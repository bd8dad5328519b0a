/**
 * Who pays a merchant refund: the merchant. The treasury sends it at once, and the app owes it (the ledger's
 * `receivable`, booked when the refund lands) until its next payouts keep it back (`netting`, decided once when a
 * payout is signed). What an app may owe is bounded by its refund credit, set by the operator; a refund past it is
 * funded by the merchant instead (docs/interface-decisions.md "Who pays a refund").
 */
import type { Knex } from 'knex';
import { parseUnits } from '../domain/money';
import { paidOutUnits, storedPayoutUnits } from '../domain/payment';
import { merchantFunds, owedForRefund, payoutDeduction } from '../domain/refunds';
import { insertLedgerEntries, sumAppReceivable } from '../db/queries/ledger';
import { findPaymentById } from '../db/queries/payments';
import { listOpenAppRefunds, lockAppForRefunds, recordPaymentNetting } from '../db/queries/refunds';
import type { PaymentRow, RefundRow } from '../db/tables';

const samePayoutAsset = (p: Pick<PaymentRow, 'destination_chain_id' | 'destination_token_address'>, q: Pick<PaymentRow, 'destination_chain_id' | 'destination_token_address'>) =>
  p.destination_chain_id === q.destination_chain_id && p.destination_token_address.toLowerCase() === q.destination_token_address.toLowerCase();

/**
 * Whether the app's refund credit covers a refund: what it owes (booked), what its open refunds will owe, and this
 * one, in the refunded payment's payout token. One past it is funded by the merchant (services/refund-funding.ts).
 * Called under the payment's lock, within `trx`; the app's row stays locked until `trx` ends.
 */
export async function refundCreditCovers(trx: Knex.Transaction, payment: PaymentRow, refundUnits: bigint): Promise<boolean> {
  const app = await lockAppForRefunds({ trx, appId: payment.app_id });
  if (!app) throw new Error(`app ${payment.app_id} of payment ${payment.id} does not exist`);
  const owed = await sumAppReceivable({ knex: trx, appId: app.app_id, chainId: payment.destination_chain_id, tokenAddress: payment.destination_token_address });
  const open = (await listOpenAppRefunds({ knex: trx, appId: app.app_id })).filter((r) => samePayoutAsset(r, payment)).reduce((sum, r) => sum + owedForRefund(r, BigInt(r.amount_units)), 0n);
  const credit = parseUnits(app.refund_credit, payment.destination_decimals);
  return owed + open + owedForRefund(payment, refundUnits) <= credit;
}

/** A refund landed: the app owes it, in its payment's payout token, until payouts keep it back. Idempotent by its ref. */
export async function recordRefundOwed(deps: { knex: Knex }, refund: RefundRow, payment: PaymentRow): Promise<void> {
  // A refund its merchant funded was never Payrail's money.
  if (merchantFunds(refund)) return;
  await insertLedgerEntries({
    knex: deps.knex,
    entries: [{
      ref: `owed:${refund.id}`, chainId: payment.destination_chain_id, tokenAddress: payment.destination_token_address, kind: 'netting', debit: 'receivable', credit: 'merchant',
      debitAddress: null, creditAddress: null, amountUnits: owedForRefund(payment, BigInt(refund.amount_units)).toString(), paymentId: payment.id,
    }],
  });
}

/**
 * What the payment's payout sends the merchant: its payout less what it keeps back for the app's refunds, decided
 * once (the first decision is recorded on the payment and in the ledger; later calls read it). An app that owes
 * something decides under its lock, so two payouts never keep back the same debt; one that owes nothing keeps
 * nothing back without it (a debt booked meanwhile is kept back by a later payout), as a burst of its payouts
 * would otherwise queue on its row one by one.
 */
export async function payoutAfterNetting(deps: { knex: Knex }, paymentId: string): Promise<bigint> {
  const payment = (await findPaymentById({ knex: deps.knex, id: paymentId }))!;
  if (payment.netted_units !== null) return paidOutUnits(payment);
  const owedBy = (knex: Knex) => sumAppReceivable({ knex, appId: payment.app_id, chainId: payment.destination_chain_id, tokenAddress: payment.destination_token_address });
  // Another decision recorded first: that one stands.
  const decided = async (knex: Knex) => paidOutUnits((await findPaymentById({ knex, id: paymentId }))!);
  if ((await owedBy(deps.knex)) <= 0n) {
    return (await recordPaymentNetting({ knex: deps.knex, paymentId, nettedUnits: '0' })) ? storedPayoutUnits(payment) : decided(deps.knex);
  }
  return deps.knex.transaction(async (trx) => {
    await lockAppForRefunds({ trx, appId: payment.app_id });
    const payout = storedPayoutUnits(payment);
    const kept = payoutDeduction(await owedBy(trx), payout);
    if (!(await recordPaymentNetting({ knex: trx, paymentId, nettedUnits: kept.toString() }))) return decided(trx);
    await insertLedgerEntries({
      knex: trx,
      entries: [{
        ref: `netting:${paymentId}`, chainId: payment.destination_chain_id, tokenAddress: payment.destination_token_address, kind: 'netting', debit: 'merchant', credit: 'receivable',
        debitAddress: null, creditAddress: null, amountUnits: kept.toString(), paymentId,
      }],
    });
    return payout - kept;
  });
}
