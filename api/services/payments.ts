import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { EvmChains } from '../../chains/evm';
import type { TokenConfig } from '../../chains/registry';
import { findPaymentByOrder, insertPayment, type NewPayment } from '../../db/queries/payments';
import type { MerchantAppRow, PaymentDisplay, PaymentRow } from '../../db/tables';
import { AmountError, convertDecimals, feeFor, parseUnits } from '../../lib/money';
import { USD_DECIMALS } from '../../lib/pricing';
import { ensurePaymentWorkflow } from '../../lib/payment-workflows';
import { invalidRequest } from '../errors';
import type { CreatePaymentBody } from '../schemas/payments';

export interface PaymentServiceDeps {
  knex: Knex;
  chains: EvmChains;
  temporal: { client: Client; taskQueue: string };
  feeBps: number;
  paymentTtlSeconds: number;
  latePayinWindowSeconds: number;
}

const fieldError = (path: string, message: string) => invalidRequest('invalid payment', [{ path, message }]);

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
  display: PaymentDisplay;
  metadata: Record<string, unknown> | null;
  expiresAt: Date;
}

/** Request fields that a draft's errors are reported on. */
export interface DraftFields {
  token: string;
  amount: string;
}

const PAYMENT_FIELDS: DraftFields = { token: 'source.tokenSymbol', amount: 'source.amount' };

/**
 * Turns a draft into the payment row to insert: fee, payout in the merchant's token, deposit address. Shared by
 * the payment API and legacy orders. Throws a 400 naming `fields` when the merchant's wallet cannot be paid.
 */
export function preparePayment(
  deps: Pick<PaymentServiceDeps, 'chains' | 'feeBps' | 'latePayinWindowSeconds'>,
  app: MerchantAppRow,
  draft: PaymentDraft,
  fields: DraftFields = PAYMENT_FIELDS,
): { payment: NewPayment; watchUntil: Date } {
  const { chains } = deps;
  const { sourceChainId, sourceToken, amountUnits } = draft;
  const fail = (path: string, message: string) => invalidRequest('invalid payment', [{ path, message }]);
  if (amountUnits <= 0n) throw fail(fields.amount, 'must be greater than zero');

  const destinationToken = chains.registry.findToken(app.payout_chain_id, app.payout_token_symbol);
  if (!destinationToken) throw invalidRequest(`the payout wallet of ${app.app_id} uses a token that is not configured`);
  const pricedAtRate = draft.usdValueMicros !== undefined;
  if (pricedAtRate && !destinationToken.usdPegged) throw fail(fields.token, `${sourceToken.symbol} can only be paid out in a stablecoin`);
  if (!pricedAtRate && (!sourceToken.usdPegged || !destinationToken.usdPegged)) {
    if (sourceToken.symbol !== destinationToken.symbol) throw fail(fields.token, 'only stablecoins can be paid out in another token');
  }
  if (!pricedAtRate && sourceChainId !== app.payout_chain_id) {
    // The bridge burns and mints the same base units, so the token must have the same decimals on both sides.
    const bridged = chains.registry.findToken(app.payout_chain_id, sourceToken.symbol);
    const bridges = chains.registry.chain(sourceChainId).bridge && chains.registry.chain(app.payout_chain_id).bridge;
    if (!bridges || !bridged || bridged.decimals !== sourceToken.decimals) {
      throw fail(fields.token, `${sourceToken.symbol} cannot be bridged from chain ${sourceChainId} to chain ${app.payout_chain_id}`);
    }
  }
  const feeUnits = feeFor(amountUnits, deps.feeBps);
  const payoutUnits = pricedAtRate
    ? convertDecimals(draft.usdValueMicros! - feeFor(draft.usdValueMicros!, deps.feeBps), USD_DECIMALS, destinationToken.decimals)
    : convertDecimals(amountUnits - feeUnits, sourceToken.decimals, destinationToken.decimals);
  if (payoutUnits <= 0n) throw fail(fields.amount, 'is too small to pay out after the fee');

  const id = randomUUID();
  return {
    watchUntil: new Date(draft.expiresAt.getTime() + deps.latePayinWindowSeconds * 1000),
    payment: {
      id,
      app_id: app.app_id,
      order_id: draft.orderId,
      type: 'exactIn',
      display: draft.display,
      metadata: draft.metadata,
      source_chain_id: sourceChainId,
      source_token_symbol: sourceToken.symbol,
      source_token_address: sourceToken.address,
      source_decimals: sourceToken.decimals,
      source_amount_units: amountUnits.toString(),
      fee_units: feeUnits.toString(),
      deposit_address: chains.depositAddressFor(sourceChainId, id),
      destination_chain_id: app.payout_chain_id,
      destination_token_symbol: destinationToken.symbol,
      destination_token_address: destinationToken.address,
      destination_decimals: destinationToken.decimals,
      destination_address: app.payout_address,
      destination_amount_units: payoutUnits.toString(),
      webhook_url: app.webhook_url,
      expires_at: draft.expiresAt,
    },
  };
}

/**
 * Creates the payment, or returns the existing one for a repeated `orderId`. The row is written first and the
 * workflow started second; the reconciler workflow starts any workflow a crash in between left unstarted.
 */
export async function createPayment(
  deps: PaymentServiceDeps,
  app: MerchantAppRow,
  body: CreatePaymentBody,
): Promise<{ payment: PaymentRow; created: boolean }> {
  const { knex, chains } = deps;
  const ensureWorkflow = (row: PaymentRow) =>
    ensurePaymentWorkflow({ ...deps.temporal, knex, row, latePayinWindowMs: deps.latePayinWindowSeconds * 1000 });

  const orderId = body.orderId ?? null;
  if (orderId !== null) {
    const existing = await findPaymentByOrder({ knex, appId: app.app_id, orderId });
    if (existing) {
      if (!existing.workflow_started_at) await ensureWorkflow(existing);
      return { payment: existing, created: false };
    }
  }

  const sourceChainId = Number(body.source.chainId);
  if (!chains.registry.findChain(sourceChainId)) throw fieldError('source.chainId', `chain ${body.source.chainId} is not supported`);
  const sourceToken = chains.registry.findToken(sourceChainId, body.source.tokenSymbol.toUpperCase());
  if (!sourceToken) throw fieldError('source.tokenSymbol', `${body.source.tokenSymbol} is not supported on chain ${sourceChainId}`);
  let amountUnits: bigint;
  try {
    amountUnits = parseUnits(body.source.amount, sourceToken.decimals);
  } catch (err) {
    if (err instanceof AmountError) throw fieldError('source.amount', err.message);
    throw err;
  }

  const { payment, watchUntil } = preparePayment(deps, app, {
    sourceChainId,
    sourceToken,
    amountUnits,
    orderId,
    display: {
      title: body.display.title ?? body.display.name ?? null,
      name: body.display.name ?? body.display.title ?? null,
      description: body.display.description ?? null,
      currency: body.display.currency ?? null,
    },
    metadata: body.metadata ?? null,
    expiresAt: new Date(Date.now() + deps.paymentTtlSeconds * 1000),
  });
  const inserted = await insertPayment({ knex, watchUntil, payment });
  if (!inserted) {
    // A concurrent request with the same orderId committed first: answer with its payment.
    const winner = await findPaymentByOrder({ knex, appId: app.app_id, orderId: orderId! });
    if (!winner) throw new Error(`payment for order ${orderId} vanished after a conflict`);
    if (!winner.workflow_started_at) await ensureWorkflow(winner);
    return { payment: winner, created: false };
  }
  await ensureWorkflow(inserted);
  return { payment: inserted, created: true };
}
