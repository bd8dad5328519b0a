/**
 * Refund claim links: a merchant refunds without naming an address, and the customer names one at the refund's claim
 * URL (the hosted claim page, `api/routes/refund-claims.ts`). The link's token is derived from the refund's id under
 * the operator's `PAYRAIL_SECRETS_KEY` (so the API can show the link again), and the row keeps only its SHA-256: a
 * database read alone cannot claim. A refund takes an address once (customer or merchant, whoever is first); past the
 * claim window (`REFUND_CLAIM_WINDOW_DAYS`) the merchant may send it to the payment's sender instead.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { z } from 'zod';
import type { ChainAdapters } from '../chains/adapters';
import { DomainError, invalidField } from '../domain/errors';
import { formatUnits } from '../domain/money';
import { claimWindowEnd } from '../domain/refunds';
import { findMerchantApp } from '../db/queries/merchants';
import { findOrderByPaymentId } from '../db/queries/orders';
import { findFirstPayingPayin } from '../db/queries/payins';
import { findPaymentById } from '../db/queries/payments';
import { addressAwaitingRefund, findRefund } from '../db/queries/refunds';
import type { PaymentRow, RefundRow } from '../db/tables';
import type { Logger } from '../lib/logger';
import type { Mailer } from '../lib/mail';
import type { SecretBox } from '../lib/secrets';
import { startRefundWorkflow } from './workflows';
import type { Client } from '@temporalio/client';

export interface RefundClaimDeps {
  knex: Knex;
  chains: ChainAdapters;
  temporal: { client: Client; taskQueue: string };
  secretBox: Pick<SecretBox, 'token'>;
  /** The hosted pages' public origin: claim links are on it, like payment links. */
  publicBaseUrl: string;
  refundClaimWindowDays: number;
  mailer?: Pick<Mailer, 'send'>;
  log: Logger;
}

/** What a claim link names: the payment, the refund, and the token that proves the link was given. */
export interface ClaimLink {
  paymentId: string;
  refundId: string;
  token: string;
}

const CLAIM_PURPOSE = 'refund-claim';
const uuid = z.uuid();

const claimToken = (deps: Pick<RefundClaimDeps, 'secretBox'>, refundId: string) => deps.secretBox.token(CLAIM_PURPOSE, refundId);
const sha256 = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** What a new refund without an address stores of its claim link's token. */
export const claimTokenHashOf = (deps: Pick<RefundClaimDeps, 'secretBox'>, refundId: string): string => sha256(claimToken(deps, refundId));

/** The claim link of a refund awaiting its address; null once it has one (a link is claimed once). */
export function claimUrlOf(deps: Pick<RefundClaimDeps, 'secretBox' | 'publicBaseUrl'>, refund: Pick<RefundRow, 'id' | 'payment_id' | 'status'>): string | null {
  if (refund.status !== 'awaiting_address') return null;
  return `${deps.publicBaseUrl}/pay/${refund.payment_id}/refunds/${refund.id}/claim/${claimToken(deps, refund.id)}`;
}

/**
 * The refund a claim link names, with its payment: the payment, the refund and the token must all belong together,
 * or it is `not_found` (a token never opens another refund, nor a refund under another payment's URL).
 */
export async function findClaimedRefund(deps: { knex: Knex }, link: ClaimLink): Promise<{ refund: RefundRow; payment: PaymentRow }> {
  const refund = uuid.safeParse(link.refundId).success ? await findRefund({ knex: deps.knex, id: link.refundId }) : undefined;
  const stored = Buffer.from(refund?.claim_token_hash ?? '', 'hex');
  const given = Buffer.from(sha256(link.token), 'hex');
  if (!refund || refund.payment_id !== link.paymentId || stored.length !== given.length || !timingSafeEqual(stored, given)) {
    throw new DomainError('not_found', 'refund claim not found');
  }
  return { refund, payment: (await findPaymentById({ knex: deps.knex, id: refund.payment_id }))! };
}

/** What the claim page shows: nothing of the merchant's but its name, nothing of the customer's but the address. */
export interface ClaimView {
  refundId: string;
  paymentId: string;
  merchant: string;
  amount: string;
  tokenSymbol: string;
  /** The network the address must be on: the payment's source chain. */
  network: string;
  chainId: string;
  /** How a valid address of that network looks. */
  addressForm: string;
  status: RefundRow['status'];
  /** The address the refund goes to, once given. */
  address: string | null;
  txHash: string | null;
}

export async function claimView(deps: Pick<RefundClaimDeps, 'knex' | 'chains'>, refund: RefundRow, payment: PaymentRow): Promise<ClaimView> {
  const app = await findMerchantApp({ knex: deps.knex, appId: payment.app_id });
  return {
    refundId: refund.id,
    paymentId: payment.id,
    merchant: app?.name ?? payment.app_id,
    amount: formatUnits(BigInt(refund.amount_units), payment.source_decimals),
    tokenSymbol: payment.source_token_symbol,
    network: deps.chains.adapter(payment.source_chain_id).config.name,
    chainId: String(payment.source_chain_id),
    addressForm: deps.chains.family(payment.source_chain_id).addresses.form,
    status: refund.status,
    address: refund.address,
    txHash: refund.tx_hash,
  };
}

/** An address of the payment's source chain in its family's stored form (its own checksum rules), or a 400 on `field`. */
export function refundAddressOf(chains: ChainAdapters, payment: Pick<PaymentRow, 'source_chain_id'>, given: string, field = 'address'): string {
  const { addresses } = chains.family(payment.source_chain_id);
  const address = addresses.normalize(given.trim());
  if (!address) throw invalidField(field, `must be an address of chain ${payment.source_chain_id} (${addresses.form})`);
  return address;
}

/**
 * A refund that has its address already is a `conflict`. Before saying so, its run is started if it is still
 * `pending`: the request that gave the address may have stopped before it started the run (starting is idempotent).
 */
async function alreadyAddressed(deps: RefundClaimDeps, refund: RefundRow, payment: PaymentRow): Promise<DomainError> {
  if (refund.status === 'pending') await startRefundWorkflow(deps, refund, payment);
  return new DomainError('conflict', `refund ${refund.id} has its address already`);
}

/** Gives the awaiting refund its address and starts its run; a refund that has one already is a `conflict`. */
async function sendAwaitingRefund(deps: RefundClaimDeps, refund: RefundRow, payment: PaymentRow, address: string): Promise<RefundRow> {
  const addressed = await addressAwaitingRefund({ knex: deps.knex, id: refund.id, address });
  if (!addressed) throw await alreadyAddressed(deps, (await findRefund({ knex: deps.knex, id: refund.id }))!, payment);
  await startRefundWorkflow(deps, addressed, payment);
  return addressed;
}

/**
 * The customer's claim: the address (of the payment's source chain, by its family's rules) the refund goes to. Once
 * only: a second claim, or a claim after the merchant sent the refund to the sender, is a `conflict`.
 */
export async function claimRefund(deps: RefundClaimDeps, link: ClaimLink, body: { address: string }): Promise<{ refund: RefundRow; payment: PaymentRow }> {
  const { refund, payment } = await findClaimedRefund(deps, link);
  if (refund.status !== 'awaiting_address') throw await alreadyAddressed(deps, refund, payment);
  const address = refundAddressOf(deps.chains, payment, body.address);
  return { refund: await sendAwaitingRefund(deps, refund, payment, address), payment };
}

/**
 * The merchant's answer to a claim nobody made: once the claim window has passed, the refund goes to the sender of the
 * payment's first paying payin, as the chain reported it. Before that, or for a refund not awaiting its address, a
 * `conflict`.
 */
export async function sendRefundToSender(deps: RefundClaimDeps, appId: string, paymentId: string, refundId: string): Promise<{ refund: RefundRow; payment: PaymentRow }> {
  const payment = await findPaymentById({ knex: deps.knex, id: paymentId });
  if (!payment || payment.app_id !== appId) throw new DomainError('not_found', 'payment not found');
  const refund = uuid.safeParse(refundId).success ? await findRefund({ knex: deps.knex, id: refundId }) : undefined;
  if (!refund || refund.payment_id !== payment.id) throw new DomainError('not_found', 'refund not found');
  if (refund.status !== 'awaiting_address') throw await alreadyAddressed(deps, refund, payment);
  const windowEnd = claimWindowEnd(refund, deps.refundClaimWindowDays);
  if (Date.now() < windowEnd.getTime()) throw new DomainError('conflict', `the customer may claim refund ${refund.id} until ${windowEnd.toISOString()}`);
  const payin = await findFirstPayingPayin({ knex: deps.knex, paymentId: payment.id });
  const sender = payin && deps.chains.family(payment.source_chain_id).addresses.normalize(payin.sender_address);
  if (!sender) throw new DomainError('conflict', `payment ${payment.id} has no payin whose sender the refund could go back to`);
  return { refund: await sendAwaitingRefund(deps, refund, payment, sender), payment };
}

/**
 * Mails a new refund's claim link to its order's customer, when the payment was made for a legacy order with an
 * e-mail. At most once, best effort: the merchant has the link in the answer too, so a mail that fails is logged.
 */
export async function mailClaimLink(deps: RefundClaimDeps, refund: RefundRow, payment: PaymentRow): Promise<void> {
  const url = claimUrlOf(deps, refund);
  const order = await findOrderByPaymentId({ knex: deps.knex, paymentId: payment.id });
  if (!url || !order?.email) return;
  if (!deps.mailer) {
    deps.log.warn({ refundId: refund.id }, 'SMTP_URL is not set: the claim link was not mailed');
    return;
  }
  const view = await claimView(deps, refund, payment);
  const text = [
    `${view.merchant} is refunding ${view.amount} ${view.tokenSymbol} to you.`,
    ``,
    `Open this link and enter an address of yours on ${view.network} to receive it:`,
    url,
    ``,
    `The link works once. Only an address on ${view.network} is accepted.`,
    ``,
    `Payrail refund ${refund.id} of payment ${payment.id}`,
  ].join('\n');
  try {
    await deps.mailer.send({ to: order.email, subject: `Your refund from ${view.merchant}`, text });
  } catch (err) {
    deps.log.warn({ err, refundId: refund.id }, 'the claim link could not be mailed');
  }
}
