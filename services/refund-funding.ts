/**
 * Refunds the merchant funds. A refund past its app's refund credit (services/refund-netting.ts) is not fronted by
 * the treasury: the merchant pays its amount into the payment's deposit address (watched again for the funding
 * window), the payin is claimed as the refund's funding when its late-payin run confirms it, and the refund is sent
 * from that deposit; what the payin brought beyond the refund goes back to its sender. The app owes nothing for it
 * (docs/interface-decisions.md "Who pays a refund").
 */
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { paymentDestination } from '../chains/family';
import { intentKeys } from '../domain/chain-txs';
import { formatUnits } from '../domain/money';
import { payinId, type DetectedPayin } from '../domain/payins';
import { fundingExcess, fundingWindowEnd, fundsRefund, merchantFunds } from '../domain/refunds';
import { claimLatePayin, findPayin } from '../db/queries/payins';
import { extendDepositWatch, findPaymentById } from '../db/queries/payments';
import { findRefund, findRefundFundedBy, lockPaymentForRefund, lockRefund, lockRefundsAwaitingFunding, markRefundFunded, updateRefundStatus } from '../db/queries/refunds';
import type { PaymentRow, RefundRow } from '../db/tables';
import { createChainTxService, type ChainTxServiceDeps } from './chain-txs';

const DAY_MS = 24 * 3600 * 1000;

/** Where and what the merchant pays to fund a refund, as the API shows it. */
export interface RefundFunding {
  /** The payment's deposit address, as the family's wallets write it. */
  address: string;
  /** The memo the transfer must carry where deposits share one account (Stellar); null elsewhere. */
  memo: string | null;
  /** The least one transfer must bring (decimal, in the payment's source token). */
  amount: string;
  /** The payin that funded it, once one did. */
  txHash: string | null;
}

export function refundFundingOf(chains: ChainAdapters, refund: RefundRow, payment: PaymentRow): RefundFunding | null {
  if (!merchantFunds(refund)) return null;
  const address = chains.registry.displayAddress(payment.source_chain_id, payment.deposit_address);
  return {
    ...paymentDestination(chains.adapter(payment.source_chain_id), address),
    amount: formatUnits(BigInt(refund.funding_units!), payment.source_decimals),
    txHash: refund.funding_tx_hash,
  };
}

/** The deposit address is watched until the refund's funding window ends: a funding payin is seen. Within `trx`. */
export async function watchDepositForFunding(trx: Knex.Transaction, paymentId: string, windowDays: number): Promise<void> {
  await extendDepositWatch({ knex: trx, paymentId, windowMs: windowDays * DAY_MS });
}

/**
 * A confirmed late payin into a completed payment's deposit: the funding of the payment's oldest refund waiting for
 * one that it covers (one transfer of the payment's token of at least the refund's funding amount), recorded as such
 * under the payment's lock. Returns that refund, or null when the payin funds none. Idempotent: a payin claimed
 * before answers its refund again.
 */
export async function claimRefundFunding(deps: { knex: Knex }, input: { paymentId: string; payin: DetectedPayin; sequence: number }): Promise<RefundRow | null> {
  const { paymentId, payin } = input;
  const recorded = await findPayin({ knex: deps.knex, chainId: payin.chainId, txHash: payin.txHash, logIndex: payin.logIndex });
  if (recorded?.disposition === 'funding') return (await findRefundFundedBy({ knex: deps.knex, paymentId, txHash: payin.txHash, logIndex: payin.logIndex })) ?? null;
  if (recorded?.disposition) return null;
  return deps.knex.transaction(async (trx) => {
    const payment = await lockPaymentForRefund({ trx, paymentId });
    if (!payment) return null;
    const refund = (await lockRefundsAwaitingFunding({ trx, paymentId })).find((r) => fundsRefund(r, payment, payin));
    if (!refund) return null;
    if (!(await claimLatePayin({ knex: trx, ...input, claim: 'funding' }))) return null;
    await markRefundFunded({ knex: trx, id: refund.id, txHash: payin.txHash, logIndex: payin.logIndex });
    return refund;
  });
}

/**
 * Where a refund's run stands with its funding: `not_needed` (the treasury fronts it), `funded`, `awaiting` (within
 * its funding window), or `expired`: the window ended without one, and the refund is `failed` (its amount may be
 * refunded again). Decided under the refund's lock, so a payin claimed at the end either funds it or finds it failed.
 */
export type RefundFundingState = 'not_needed' | 'funded' | 'awaiting' | 'expired';

export async function refundFundingState(deps: { knex: Knex; refundClaimWindowDays: number }, refundId: string): Promise<RefundFundingState> {
  return deps.knex.transaction(async (trx) => {
    const refund = await lockRefund({ trx, id: refundId });
    if (!refund) throw new Error(`refund ${refundId} does not exist`);
    if (!merchantFunds(refund)) return 'not_needed';
    if (refund.funding_tx_hash) return 'funded';
    if (refund.status === 'failed') return 'expired';
    if (Date.now() < fundingWindowEnd(refund, deps.refundClaimWindowDays).getTime()) return 'awaiting';
    await updateRefundStatus({ knex: trx, id: refundId, status: 'failed' });
    return 'expired';
  });
}

/**
 * What the refund's funding payin brought beyond the refund sent, or all of it when the refund failed, back to its
 * sender from the deposit (the intent `refund:<payin>`, on the payin's terms: services/money-terms.ts). Null when
 * nothing is left to return.
 */
export async function returnFundingExcess(deps: ChainTxServiceDeps, refundId: string): Promise<{ intentKey: string } | null> {
  const refund = await findRefund({ knex: deps.knex, id: refundId });
  if (!refund?.funding_tx_hash || refund.funding_log_index === null) return null;
  const payment = (await findPaymentById({ knex: deps.knex, id: refund.payment_id }))!;
  const payin = (await findPayin({ knex: deps.knex, chainId: payment.source_chain_id, txHash: refund.funding_tx_hash, logIndex: refund.funding_log_index }))!;
  const excess = fundingExcess(payin.amount_units, refund);
  if (excess <= 0n) return null;
  const identity = { chainId: payin.chain_id, txHash: payin.tx_hash, logIndex: payin.log_index };
  return createChainTxService(deps).sweepDeposit({
    intentKey: intentKeys.refund(payinId(identity)),
    paymentId: payment.id,
    chainId: payment.source_chain_id,
    tokenAddress: payin.token_address,
    recipient: { kind: 'address', address: payin.sender_address },
    amountUnits: excess.toString(),
    purpose: 'refund funding excess',
  });
}
