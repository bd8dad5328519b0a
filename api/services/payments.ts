import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { EvmChains } from '../../chains/evm';
import { findPaymentByOrder, insertPayment } from '../../db/queries/payments';
import type { MerchantAppRow, PaymentRow } from '../../db/tables';
import { AmountError, convertDecimals, feeFor, parseUnits } from '../../lib/money';
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
  if (amountUnits <= 0n) throw fieldError('source.amount', 'must be greater than zero');

  const destinationToken = chains.registry.findToken(app.payout_chain_id, app.payout_token_symbol);
  if (!destinationToken) throw invalidRequest(`the payout wallet of ${app.app_id} uses a token that is not configured`);
  if (!sourceToken.usdPegged || !destinationToken.usdPegged) {
    if (sourceToken.symbol !== destinationToken.symbol) throw fieldError('source.tokenSymbol', 'only stablecoins can be paid out in another token');
  }
  if (sourceChainId !== app.payout_chain_id) {
    // The bridge burns and mints the same base units, so the token must have the same decimals on both sides.
    const bridged = chains.registry.findToken(app.payout_chain_id, sourceToken.symbol);
    const bridges = chains.registry.chain(sourceChainId).bridge && chains.registry.chain(app.payout_chain_id).bridge;
    if (!bridges || !bridged || bridged.decimals !== sourceToken.decimals) {
      throw fieldError('source.tokenSymbol', `${sourceToken.symbol} cannot be bridged from chain ${sourceChainId} to chain ${app.payout_chain_id}`);
    }
  }
  const feeUnits = feeFor(amountUnits, deps.feeBps);
  const payoutUnits = convertDecimals(amountUnits - feeUnits, sourceToken.decimals, destinationToken.decimals);
  if (payoutUnits <= 0n) throw fieldError('source.amount', 'is too small to pay out after the fee');

  const id = randomUUID();
  const now = Date.now();
  const expiresAt = new Date(now + deps.paymentTtlSeconds * 1000);
  const inserted = await insertPayment({
    knex,
    watchUntil: new Date(expiresAt.getTime() + deps.latePayinWindowSeconds * 1000),
    payment: {
      id,
      app_id: app.app_id,
      order_id: orderId,
      type: 'exactIn',
      display: {
        title: body.display.title ?? body.display.name ?? null,
        name: body.display.name ?? body.display.title ?? null,
        description: body.display.description ?? null,
        currency: body.display.currency ?? null,
      },
      metadata: body.metadata ?? null,
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
      expires_at: expiresAt,
    },
  });
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
