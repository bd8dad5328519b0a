import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { markOrderWorkflowStarted } from '../db/queries/orders';
import type { OrderRow } from '../db/tables';
import { formatUnits, parseUnits } from './money';
import type { orderWorkflow } from '../workflows';
import { orderWorkflowId } from '../workflows/ids';
import type { OrderWorkflowInput } from '../workflows/order-types';
import { MerchantAppIdKey, OrderIdKey, OrderStatusKey } from '../workflows/search-attributes';

export function orderWorkflowInput(row: OrderRow): OrderWorkflowInput {
  return {
    orderId: row.id,
    appId: row.app_id,
    merchantOrderId: row.merchant_order_id,
    payCurrency: row.pay_currency,
    currencyOptions: row.currency_options,
    expiresAt: row.expires_at.toISOString(),
    callbacks: row.callback_url !== null,
    receipt: row.email !== null,
  };
}

/**
 * Starts the order's workflow, or finds it already started (the API and the reconciler may both try), then
 * records that it runs.
 */
export async function ensureOrderWorkflow(options: { client: Client; knex: Knex; taskQueue: string; row: OrderRow }): Promise<void> {
  const { client, knex, taskQueue, row } = options;
  try {
    await client.workflow.start<typeof orderWorkflow>('orderWorkflow', {
      workflowId: orderWorkflowId(row.id),
      taskQueue,
      args: [orderWorkflowInput(row)],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: OrderStatusKey, value: row.status },
        { key: MerchantAppIdKey, value: row.app_id },
        ...(row.merchant_order_id ? [{ key: OrderIdKey, value: row.merchant_order_id }] : []),
      ],
      memo: {
        title: row.title ?? '',
        price: `${formatUnits(parseUnits(row.price_amount, 6), 6)} ${row.price_currency}`,
        payCurrency: row.pay_currency ?? `customer chooses (${row.currency_options.join(', ')})`,
        merchant: row.app_id,
        merchantOrderId: row.merchant_order_id ?? '',
        expiresAt: row.expires_at.toISOString(),
      },
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await markOrderWorkflowStarted({ knex, id: row.id });
}
