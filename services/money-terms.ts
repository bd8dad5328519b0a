/**
 * Money moves only on terms read from the database. Before any transfer is signed, the intent it serves is checked
 * against the payment row (and, for a refund, against the payin as recorded and as the chain shows it): workflow
 * input and signals are never enough to move money, so whoever can start a workflow or send a signal cannot.
 */
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { findChainTx } from '../db/queries/chain-txs';
import { findPayin, listPayins } from '../db/queries/payins';
import { findRefund, findRefundFundedBy, listPaymentRefunds } from '../db/queries/refunds';
import { fundingExcess, leftToRefund, merchantFunds } from '../domain/refunds';
import { isNativeToken, paidOutUnits, storedSettledUnits } from '../domain/payment';
import { findPaymentById } from '../db/queries/payments';
import { findRebalance } from '../db/queries/rebalances';
import type { PayinRow, PaymentRow } from '../db/tables';
import type { TransferRequest } from '../domain/chain-txs';

/** A transfer that does not match the terms stored for it: never signed, and no retry can change that. */
export class TransferRefused extends Error {
  constructor(intentKey: string, reason: string) {
    super(`transfer ${intentKey} refused: ${reason}`);
    this.name = 'TransferRefused';
  }
}

export type { BridgeStep, TransferRequest } from '../domain/chain-txs';

/** The intents that move funds out of a payment's deposit address (with fuel sent along where a chain needs it). */
const TRANSFERS_OUT_OF_DEPOSITS = ['sweep', 'refund', 'funded-refund'];

const same = (a: string | null, b: string) => a !== null && a.toLowerCase() === b.toLowerCase();

/** Throws `TransferRefused` unless the request is exactly what the stored payment (and payin) call for. */
export async function assertTransferOnTerms(deps: { knex: Knex; chains: ChainAdapters }, request: TransferRequest): Promise<void> {
  const { intentKey } = request;
  const refuse = (reason: string) => new TransferRefused(intentKey, reason);
  const [kind, ...rest] = intentKey.split(':');
  if (kind === 'rebalance-approve' || kind === 'rebalance-burn' || kind === 'rebalance-mint') return assertRebalanceOnTerms(deps, request, kind, rest.join(':'), refuse);
  if (!request.paymentId) throw refuse('no payment');
  const payment = await findPaymentById({ knex: deps.knex, id: request.paymentId });
  if (!payment) throw refuse(`payment ${request.paymentId} does not exist`);
  const expect = (ok: boolean, what: string) => {
    if (!ok) throw refuse(`${what} differs from payment ${payment.id}`);
  };
  // A payment that settled short (within its tolerance, or accepted as paid) moves what arrived, and pays that less the fee.
  const settled = storedSettledUnits(payment);
  const bridged = (settled - BigInt(payment.fee_units)).toString();

  switch (kind) {
    case 'sweep':
      expect(rest.join(':') === payment.id, 'intent');
      expect(request.from === 'deposit' && request.recipient === null, 'destination');
      expect(request.chainId === payment.source_chain_id && same(request.tokenAddress, payment.source_token_address), 'token');
      expect(request.amountUnits === settled.toString(), 'amount');
      return;
    case 'payout':
      expect(rest.join(':') === payment.id, 'intent');
      expect(request.from === 'treasury' && request.recipient !== null && same(request.recipient, payment.destination_address), 'destination');
      expect(request.chainId === payment.destination_chain_id && same(request.tokenAddress, payment.destination_token_address), 'token');
      expect(request.amountUnits === paidOutUnits(payment).toString(), 'amount');
      return;
    case 'bridge-approve':
      expect(rest.join(':') === payment.id && request.from === kind, 'intent');
      expect(request.chainId === payment.source_chain_id, 'chain');
      return;
    case 'bridge-burn':
    case 'bridge-mint':
      expect(rest.join(':') === payment.id && request.from === kind, 'intent');
      expect(request.chainId === (kind === 'bridge-burn' ? payment.source_chain_id : payment.destination_chain_id), 'chain');
      expect(request.amountUnits === bridged, 'amount');
      return;
    case 'refund':
      expect(request.from === 'deposit' && request.chainId === payment.source_chain_id, 'source');
      return assertRefundOfPayin(deps, payment, request, rest, refuse);
    case 'merchant-refund':
    case 'funded-refund':
      return assertMerchantRefund(deps, payment, request, kind, rest.join(':'), refuse);
    case 'recover':
      return assertRecoveryOfFuel(deps, payment, request, rest.join(':'), refuse);
    default:
      throw refuse('unknown intent');
  }
}

/**
 * A rebalance's bridge step moves the rebalance's token, as stored, between the treasuries of its route, and only
 * while it is bridging: approval and start on the source chain, the start and the mint of exactly its amount.
 */
async function assertRebalanceOnTerms(
  deps: { knex: Knex; chains: ChainAdapters },
  request: TransferRequest,
  kind: 'rebalance-approve' | 'rebalance-burn' | 'rebalance-mint',
  rebalanceId: string,
  refuse: (reason: string) => TransferRefused,
): Promise<void> {
  const rebalance = await findRebalance({ knex: deps.knex, id: rebalanceId });
  if (!rebalance) throw refuse(`rebalance ${rebalanceId} does not exist`);
  if (rebalance.status !== 'bridging') throw refuse(`rebalance is ${rebalance.status}`);
  const step = kind.replace('rebalance-', 'bridge-');
  if (request.paymentId !== null || request.from !== step) throw refuse('a rebalance step is a bridge step of no payment');
  const chainId = kind === 'rebalance-mint' ? rebalance.to_chain_id : rebalance.from_chain_id;
  if (request.chainId !== chainId) throw refuse('chain differs from the rebalance');
  if (kind === 'rebalance-approve') return;
  if (!same(request.tokenAddress, deps.chains.registry.token(chainId, rebalance.token_symbol).address)) throw refuse('token differs from the rebalance');
  if (request.amountUnits !== rebalance.amount_units) throw refuse('amount differs from the rebalance');
}

/**
 * Fuel (PreparedChainTx.fuel) goes only with a transfer out of the payment's deposit (a sweep or a refund, whose own
 * terms `assertTransferOnTerms` checks), only to its deposit address as stored, and never more than the chain's cap
 * (`maxSweepFuelUnits`: what that call may burn for its fees). The treasury's native coin cannot be sent elsewhere,
 * or in an amount taken from input.
 */
export async function assertFuelOnTerms(deps: { knex: Knex; chains: ChainAdapters }, request: TransferRequest, fuel: { to: string; amountUnits: string }): Promise<void> {
  const refuse = (reason: string) => new TransferRefused(request.intentKey, `fuel ${reason}`);
  const kind = request.intentKey.split(':')[0];
  if (!TRANSFERS_OUT_OF_DEPOSITS.includes(kind!) || request.from !== 'deposit') throw refuse('goes only with a transfer out of a deposit');
  const payment = request.paymentId ? await findPaymentById({ knex: deps.knex, id: request.paymentId }) : undefined;
  if (!payment || request.chainId !== payment.source_chain_id) throw refuse('of no payment on this chain');
  if (!same(fuel.to, payment.deposit_address)) throw refuse('recipient is not the payment’s deposit address');
  const cap = deps.chains.adapter(request.chainId).maxSweepFuelUnits ?? 0n;
  const amount = BigInt(fuel.amountUnits);
  if (amount <= 0n || amount > cap) throw refuse(`amount ${amount} is above the chain’s cap of ${cap}`);
}

/**
 * A recovery takes back to the treasury, in the native coin, what a mined transfer of this payment out of its
 * deposit left there of the fuel sent along with it: never more than the chain's fuel cap, from nowhere else.
 */
async function assertRecoveryOfFuel(
  deps: { knex: Knex; chains: ChainAdapters },
  payment: PaymentRow,
  request: TransferRequest,
  transferKey: string,
  refuse: (reason: string) => TransferRefused,
): Promise<void> {
  const transfer = await findChainTx({ knex: deps.knex, intentKey: transferKey });
  if (!transfer || transfer.payment_id !== payment.id || transfer.status !== 'confirmed' || !TRANSFERS_OUT_OF_DEPOSITS.includes(transferKey.split(':')[0]!)) throw refuse('no mined transfer out of this payment’s deposit');
  if (request.from !== 'deposit' || request.recipient !== null || request.chainId !== payment.source_chain_id || !isNativeToken(request.tokenAddress ?? '')) throw refuse('a recovery moves the native coin from the deposit to the treasury');
  const cap = deps.chains.adapter(request.chainId).maxSweepFuelUnits ?? 0n;
  const amount = BigInt(request.amountUnits ?? 0);
  if (amount <= 0n || amount > cap) throw refuse(`amount ${amount} is above the chain’s fuel cap of ${cap}`);
}

/**
 * A merchant refund goes, in the payment's token, to the refund's address as stored, its amount as stored; only
 * while the refund is pending or sent, and only while the payment's refunds add up to no more than its payins
 * delivered. From the source chain's treasury (`merchant-refund`), or, for a refund its merchant funds
 * (`funded-refund`), from the payment's deposit address once a payin recorded as its funding is confirmed on chain.
 */
async function assertMerchantRefund(
  deps: { knex: Knex; chains: ChainAdapters },
  payment: PaymentRow,
  request: TransferRequest,
  kind: 'merchant-refund' | 'funded-refund',
  refundId: string,
  refuse: (reason: string) => TransferRefused,
): Promise<void> {
  const refund = await findRefund({ knex: deps.knex, id: refundId });
  if (!refund || refund.payment_id !== payment.id) throw refuse('no such refund of this payment');
  if (refund.status !== 'pending' && refund.status !== 'sent') throw refuse(`refund is ${refund.status}`);
  const from = merchantFunds(refund) ? 'deposit' : 'treasury';
  if (kind !== (merchantFunds(refund) ? 'funded-refund' : 'merchant-refund') || request.from !== from) throw refuse(`this refund is sent from the source chain’s ${from}`);
  if (request.chainId !== payment.source_chain_id || !same(request.tokenAddress, payment.source_token_address)) throw refuse('a merchant refund moves the payment’s token on its source chain');
  if (!refund.address || !same(request.recipient, refund.address)) throw refuse('recipient is not the refund’s address');
  if (request.amountUnits !== refund.amount_units) throw refuse('amount is not the refund’s');
  if (leftToRefund(payment, await listPaymentRefunds({ knex: deps.knex, paymentId: payment.id })) < 0n) throw refuse('the payment’s refunds add up to more than it delivered');
  if (from === 'treasury') return;
  const funding = refund.funding_tx_hash && refund.funding_log_index !== null
    ? await findPayin({ knex: deps.knex, chainId: payment.source_chain_id, txHash: refund.funding_tx_hash, logIndex: refund.funding_log_index })
    : undefined;
  if (!funding || funding.payment_id !== payment.id || funding.disposition !== 'funding') throw refuse('the refund is not funded');
  if (!same(funding.token_address, payment.source_token_address) || BigInt(funding.amount_units) < BigInt(refund.amount_units)) throw refuse('its funding does not cover the refund');
  await assertPayinOnChain(deps, payment, funding, refuse);
}

/**
 * A refund goes to the payin's sender, in its token, at most its amount (at most the payment's excess when the
 * payin paid the payment), and only for a payin recorded against this payment and confirmed on chain now.
 */
async function assertRefundOfPayin(
  deps: { knex: Knex; chains: ChainAdapters },
  payment: PaymentRow,
  request: TransferRequest,
  key: string[],
  refuse: (reason: string) => TransferRefused,
): Promise<void> {
  // `refund:<chainId>:<txHash>:<logIndex>` (`intentKeys.refund(payinId(payin))`).
  const [txHash, logIndex] = key.slice(-2);
  const payin = txHash && logIndex ? await findPayin({ knex: deps.knex, chainId: request.chainId, txHash, logIndex: Number(logIndex) }) : undefined;
  if (!payin || payin.payment_id !== payment.id) throw refuse('no such payin of this payment');
  if (!request.recipient || !same(request.recipient, payin.sender_address)) throw refuse('recipient is not the payin’s sender');
  if (!same(request.tokenAddress, payin.token_address)) throw refuse('token is not the payin’s token');
  let allowed = BigInt(payin.amount_units);
  if (payin.disposition === 'funding') {
    const funded = await findRefundFundedBy({ knex: deps.knex, paymentId: payment.id, txHash: payin.tx_hash, logIndex: payin.log_index });
    allowed = funded ? fundingExcess(payin.amount_units, funded) : 0n;
  }
  if (payin.disposition === 'payment') {
    const counted = (await listPayins({ knex: deps.knex, paymentId: payment.id })).filter((p) => p.disposition === 'payment');
    const excess = counted.reduce((sum, p) => sum + BigInt(p.amount_units), 0n) - BigInt(payment.source_amount_units);
    allowed = excess < allowed ? excess : allowed;
  }
  const amount = BigInt(request.amountUnits ?? 0);
  if (amount <= 0n || amount > allowed) throw refuse(`amount above the ${allowed} units this payin allows`);
  await assertPayinOnChain(deps, payment, payin, refuse);
}

/** The recorded payin is confirmed on chain now, as recorded (the chain's transfer at its identity). */
async function assertPayinOnChain(deps: { knex: Knex; chains: ChainAdapters }, payment: PaymentRow, payin: PayinRow, refuse: (reason: string) => TransferRefused): Promise<void> {
  const payinOnChain = {
    chainId: payin.chain_id,
    txHash: payin.tx_hash,
    logIndex: payin.log_index,
    blockNumber: Number(payin.block_number),
    tokenAddress: payin.token_address,
    from: payin.sender_address,
    to: payment.deposit_address,
    amountUnits: payin.amount_units,
  };
  const onChain = await deps.chains.adapter(payin.chain_id).checkPayin(payinOnChain, deps.chains.registry.chain(payin.chain_id).confirmations);
  if (onChain.state !== 'confirmed') throw refuse(`payin is ${onChain.state} on chain`);
}
