import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { markPaymentWorkflowStarted } from '../db/queries/payments';
import type { PaymentRow } from '../db/tables';
import { formatUnits } from './money';
import type { paymentWorkflow } from '../workflows';
import { paymentWorkflowId } from '../workflows/ids';
import { MerchantAppIdKey, OrderIdKey, PaymentStatusKey, SourceChainIdKey } from '../workflows/search-attributes';
import type { PaymentWorkflowInput } from '../workflows/types';

export function paymentWorkflowInput(row: PaymentRow, latePayinWindowMs: number): PaymentWorkflowInput {
  return {
    paymentId: row.id,
    appId: row.app_id,
    orderId: row.order_id,
    source: {
      chainId: row.source_chain_id,
      symbol: row.source_token_symbol,
      address: row.source_token_address,
      decimals: row.source_decimals,
      amountUnits: row.source_amount_units,
      feeUnits: row.fee_units,
      depositAddress: row.deposit_address,
    },
    destination: {
      chainId: row.destination_chain_id,
      symbol: row.destination_token_symbol,
      address: row.destination_token_address,
      decimals: row.destination_decimals,
      receiverAddress: row.destination_address,
      amountUnits: row.destination_amount_units,
    },
    expiresAt: row.expires_at.toISOString(),
    latePayinWindowMs,
  };
}

/** The memo operators read in the Temporal UI. */
export function paymentWorkflowMemo(row: PaymentRow): Record<string, string> {
  return {
    title: row.display.title ?? row.display.name ?? '',
    amount: `${formatUnits(BigInt(row.source_amount_units), row.source_decimals)} ${row.source_token_symbol}`,
    from: `chain ${row.source_chain_id}, deposit ${row.deposit_address}`,
    to: `chain ${row.destination_chain_id} ${row.destination_token_symbol}, ${row.destination_address}`,
    merchant: row.app_id,
    orderId: row.order_id ?? '',
  };
}

/**
 * Starts the payment's workflow, or finds it already started: the API and the reconciler may both try.
 * Then records that it runs, which takes the row off the reconciler's list.
 */
export async function ensurePaymentWorkflow(options: {
  client: Client;
  knex: Knex;
  taskQueue: string;
  row: PaymentRow;
  latePayinWindowMs: number;
}): Promise<void> {
  const { client, knex, taskQueue, row, latePayinWindowMs } = options;
  try {
    await client.workflow.start<typeof paymentWorkflow>('paymentWorkflow', {
      workflowId: paymentWorkflowId(row.id),
      taskQueue,
      args: [paymentWorkflowInput(row, latePayinWindowMs)],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: PaymentStatusKey, value: row.status },
        { key: MerchantAppIdKey, value: row.app_id },
        { key: SourceChainIdKey, value: String(row.source_chain_id) },
        ...(row.order_id ? [{ key: OrderIdKey, value: row.order_id }] : []),
      ],
      memo: paymentWorkflowMemo(row),
    });
  } catch (err) {
    // A closed run with this id means it was started long ago; nothing to do.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await markPaymentWorkflowStarted({ knex, id: row.id });
}
