import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import type { TokenConfig } from '../chains/registry';
import { DomainError, invalidField } from '../domain/errors';
import { AmountError, parseUnits } from '../domain/money';
import { conflictingRequestTerms, type PaymentDisplay, type PaymentRequestTerms } from '../domain/payment';
import { planPayment, type PlanToken, type PricingPolicy } from '../domain/payment-plan';
import { findPaymentByOrder, insertPayment, type NewPayment } from '../db/queries/payments';
import type { MerchantAppRow, PaymentRow } from '../db/tables';
import { newDepositAddress } from './deposit-addresses';
import { ensurePaymentWorkflow, startNewPaymentWorkflow } from './workflows';

export interface PaymentServiceDeps {
  knex: Knex;
  chains: ChainAdapters;
  temporal: { client: Client; taskQueue: string };
  pricing: PricingPolicy;
  paymentTtlSeconds: number;
  latePayinWindowSeconds: number;
}

/** What a merchant asks for (spec 4.1): the customer pays `source`; the payout goes to the app's wallet. */
export interface CreatePaymentCommand {
  orderId?: string | null;
  display: { title?: string; name?: string; description?: string; currency?: string };
  source: { chainId: string; tokenSymbol: string; amount: string };
  metadata?: Record<string, unknown> | null;
}

/** What a payment is for, before it has an id, a deposit address, a fee or a payout. */
export interface PaymentDraft {
  sourceChainId: number;
  sourceToken: TokenConfig;
  amountUnits: bigint;
  /**
   * Only for a source token not pegged to USD (a native coin): the payment's USD value in micro-USD at the rate it
   * was priced at. The merchant's payout is computed from it, and no bridge is needed (the treasury keeps the coin).
   */
  usdValueMicros?: bigint;
  orderId: string | null;
  /** Created without the app's key: its orderId is in the keyless namespace. */
  keyless: boolean;
  display: PaymentDisplay;
  metadata: Record<string, unknown> | null;
  expiresAt: Date;
}

/** Request fields a draft's refusals name. */
export interface DraftFields {
  token: string;
  amount: string;
}

const PAYMENT_FIELDS: DraftFields = { token: 'source.tokenSymbol', amount: 'source.amount' };

const planToken = (chainId: number, token: TokenConfig): PlanToken => ({ chainId, ...token });

/** A payment ready to insert but for its id and deposit address, which `insertPreparedPayment` gives it. */
export interface PreparedPayment {
  payment: Omit<NewPayment, 'id' | 'deposit_address'>;
  watchUntil: Date;
}

/**
 * Turns a draft into the payment row to insert: the plan (fee, payout in the merchant's token, route). Throws a
 * DomainError naming `fields` when the merchant's wallet cannot be paid.
 */
export function preparePayment(
  deps: Pick<PaymentServiceDeps, 'chains' | 'pricing' | 'latePayinWindowSeconds'>,
  app: MerchantAppRow,
  draft: PaymentDraft,
  fields: DraftFields = PAYMENT_FIELDS,
): PreparedPayment {
  const { registry } = deps.chains;
  const destinationToken = registry.findPayableToken(app.payout_chain_id, app.payout_token_symbol);
  if (!destinationToken) throw invalidField(fields.token, `the payout wallet of ${app.app_id} uses a token that is not configured`);
  const plan = planPayment({
    source: planToken(draft.sourceChainId, draft.sourceToken),
    destination: planToken(app.payout_chain_id, destinationToken),
    amountUnits: draft.amountUnits,
    usdValueMicros: draft.usdValueMicros,
    pricing: deps.pricing,
    fields,
  });
  return {
    watchUntil: new Date(draft.expiresAt.getTime() + deps.latePayinWindowSeconds * 1000),
    payment: {
      app_id: app.app_id,
      order_id: draft.orderId,
      keyless: draft.keyless,
      type: 'exactIn',
      display: draft.display,
      metadata: draft.metadata,
      source_chain_id: draft.sourceChainId,
      source_token_symbol: draft.sourceToken.symbol,
      source_token_address: draft.sourceToken.address,
      source_decimals: draft.sourceToken.decimals,
      source_amount_units: draft.amountUnits.toString(),
      fee_units: plan.feeUnits.toString(),
      destination_chain_id: app.payout_chain_id,
      destination_token_symbol: destinationToken.symbol,
      destination_token_address: destinationToken.address,
      destination_decimals: destinationToken.decimals,
      destination_address: app.payout_address,
      destination_amount_units: plan.payoutUnits.toString(),
      underpayment_tolerance_bps: app.underpayment_tolerance_bps,
      webhook_url: app.webhook_url,
      expires_at: draft.expiresAt,
    },
  };
}

/**
 * Inserts a prepared payment with a new id and deposit address (services/deposit-addresses.ts), on `knex` (the
 * caller's transaction, if any). Null when its orderId has a payment already: a pooled address then goes back.
 */
export async function insertPreparedPayment(deps: { knex: Knex; chains: ChainAdapters }, prepared: PreparedPayment): Promise<PaymentRow | null> {
  const deposit = await newDepositAddress(deps, prepared.payment.source_chain_id);
  const inserted = await insertPayment({
    knex: deps.knex,
    watchUntil: prepared.watchUntil,
    payment: { ...prepared.payment, id: deposit.paymentId, deposit_address: deposit.address },
  });
  if (!inserted) await deposit.release();
  return inserted;
}

/** How a create request reached us: with the app's API key, or keyless (appId in the body). */
export interface CreateContext {
  keyless: boolean;
}

/**
 * Creates the payment, or returns the existing one for a repeated `orderId` asking for the same terms (a different
 * ask is refused with `idempotency_conflict` and changes nothing). Keyed and keyless creates have separate
 * `orderId` namespaces, so a keyed create is never answered with a payment anyone could have created. The row is
 * written first and the workflow started second; the reconciler workflow starts any workflow a crash in between
 * left unstarted.
 */
export async function createPayment(
  deps: PaymentServiceDeps,
  app: MerchantAppRow,
  command: CreatePaymentCommand,
  context: CreateContext,
): Promise<{ payment: PaymentRow; created: boolean }> {
  const { knex, chains } = deps;
  const { keyless } = context;
  if (keyless && !app.keyless_payments) {
    throw new DomainError('keyless_payments_disabled', `${app.app_id} does not take payments created without its API key; send X-API-Key to POST {payment_api_url}`);
  }

  const sourceChainId = Number(command.source.chainId);
  if (!chains.registry.findChain(sourceChainId)) throw invalidField('source.chainId', `chain ${command.source.chainId} is not supported`);
  const sourceToken = chains.registry.findPayableToken(sourceChainId, command.source.tokenSymbol.toUpperCase());
  if (!sourceToken) throw invalidField('source.tokenSymbol', `${command.source.tokenSymbol} is not supported on chain ${sourceChainId}`);
  let amountUnits: bigint;
  try {
    amountUnits = parseUnits(command.source.amount, sourceToken.decimals);
  } catch (err) {
    if (err instanceof AmountError) throw invalidField('source.amount', err.message);
    throw err;
  }
  const orderId = command.orderId ?? null;
  const terms: PaymentRequestTerms = {
    sourceChainId,
    sourceTokenSymbol: sourceToken.symbol,
    amountUnits,
    display: {
      title: command.display.title ?? command.display.name ?? null,
      name: command.display.name ?? command.display.title ?? null,
      description: command.display.description ?? null,
      currency: command.display.currency ?? null,
    },
    metadata: command.metadata ?? null,
  };
  /** The payment already holding this orderId, if the request asks for the same; else a refusal. */
  const existingAnswer = async (existing: PaymentRow) => {
    const conflicts = conflictingRequestTerms(existing, terms);
    if (conflicts.length > 0) {
      throw new DomainError(
        'idempotency_conflict',
        `orderId ${orderId} already has a payment with other terms (${conflicts.join(', ')}); re-send the same request or use another orderId`,
      );
    }
    if (!existing.workflow_started_at) await ensurePaymentWorkflow(deps, existing);
    return { payment: existing, created: false };
  };

  const prepared = preparePayment(deps, app, {
    sourceChainId,
    sourceToken,
    amountUnits,
    orderId,
    keyless,
    display: terms.display,
    metadata: terms.metadata,
    expiresAt: new Date(Date.now() + deps.paymentTtlSeconds * 1000),
  });
  // Inserted without looking first: a repeated orderId (a retry, or a concurrent request) conflicts and inserts nothing.
  const inserted = await insertPreparedPayment({ knex, chains }, prepared);
  if (!inserted) {
    // This orderId has a payment already: it answers, if it asks the same.
    const winner = await findPaymentByOrder({ knex, appId: app.app_id, orderId: orderId!, keyless });
    if (!winner) throw new Error(`payment for order ${orderId} vanished after a conflict`);
    return existingAnswer(winner);
  }
  await startNewPaymentWorkflow(deps, inserted);
  return { payment: inserted, created: true };
}
