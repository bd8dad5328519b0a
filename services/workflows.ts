/**
 * How payments, orders and late payins become workflows: one place that knows their ids, inputs, search attributes
 * and memos. Used by the API (create), the reconciler (orphans) and the chain watcher (payins).
 */
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Knex } from 'knex';
import type { DetectedPayin } from '../domain/payins';
import { SETTLED_STATUSES } from '../domain/payment';
import { formatUnits, parseUnits } from '../domain/money';
import { markOrderWorkflowStarted } from '../db/queries/orders';
import { markPaymentWorkflowsStarted } from '../db/queries/payments';
import { markRefundWorkflowStarted } from '../db/queries/refunds';
import type { OrderRow, PaymentRow, RefundRow } from '../db/tables';
import type { latePayinWorkflow, orderWorkflow, paymentWorkflow, refundWorkflow } from '../workflows';
import { latePayinWorkflowId, orderWorkflowId, paymentWorkflowId, refundWorkflowId } from '../workflows/ids';

/** The payment's workflow id, for links to it (the dashboard's Temporal UI link). */
export { paymentWorkflowId };
import { LOCAL_WAITS_WORKFLOW_TASK_TIMEOUT } from '../workflows/activity-options';
import { chooseCurrencyUpdate, payinDetectedSignal, refundFundedSignal } from '../workflows/messages';
import { MerchantAppIdKey, OrderIdKey, OrderStatusKey, PaymentStatusKey, SourceChainIdKey } from '../workflows/search-attributes';
import type { OrderWorkflowInput, PaymentWorkflowInput } from '../workflows/types';
import type { OrderPaymentRef } from '../domain/orders';

export interface WorkflowStarterDeps {
  knex: Knex;
  temporal: { client: Client; taskQueue: string };
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

export function paymentSearchAttributes(row: Pick<PaymentRow, 'status' | 'app_id' | 'source_chain_id'>, orderId: string | null) {
  return [
    { key: PaymentStatusKey, value: row.status },
    { key: MerchantAppIdKey, value: row.app_id },
    { key: SourceChainIdKey, value: String(row.source_chain_id) },
    ...(orderId ? [{ key: OrderIdKey, value: orderId }] : []),
  ];
}

/** A payment workflow's input: the payment and its expiry. Its terms are read from the database. */
export const paymentWorkflowInput = (row: Pick<PaymentRow, 'id' | 'expires_at'>): PaymentWorkflowInput => ({ paymentId: row.id, expiresAt: row.expires_at.toISOString() });

/** Start options of a payment's workflow. */
function paymentStartOptions(row: PaymentRow, taskQueue: string) {
  return {
    workflowId: paymentWorkflowId(row.id),
    taskQueue,
    args: [paymentWorkflowInput(row)] as [PaymentWorkflowInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    // A payment runs once: its closed run is never started again.
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    workflowTaskTimeout: LOCAL_WAITS_WORKFLOW_TASK_TIMEOUT,
    typedSearchAttributes: paymentSearchAttributes(row, row.order_id),
    memo: paymentWorkflowMemo(row),
  };
}

/**
 * Starts the payment's workflow, or finds it already started: the API and the reconciler may both try. Then records
 * that it runs, which takes the row off the reconciler's list.
 */
export async function ensurePaymentWorkflow(deps: WorkflowStarterDeps, row: PaymentRow): Promise<void> {
  await startPaymentWorkflow(deps, row);
  await markPaymentWorkflowsStarted({ knex: deps.knex, ids: [row.id] });
}

/**
 * `ensurePaymentWorkflow` for a payment the API has just created: its answer does not wait for the marker, which
 * only takes the row off the reconciler's list, so the process marks its new runs together (`markSoon`). A marker
 * lost (the process stopped, the database refused it) leaves the row to the reconciler, which finds the run started
 * and marks it then.
 */
export async function startNewPaymentWorkflow(deps: WorkflowStarterDeps, row: PaymentRow): Promise<void> {
  await startPaymentWorkflow(deps, row);
  markSoon(deps.knex, row.id);
}

/**
 * How long new runs' markers gather before one statement writes them. Well under the reconciler's grace for a row
 * without a marker; at a hundred creates a second, one statement instead of five.
 */
const MARK_GATHER_MS = 50;

/** Per database (one per process in practice): ids waiting for the next marker statement. */
const unmarkedRuns = new WeakMap<Knex, string[]>();

function markSoon(knex: Knex, id: string): void {
  const waiting = unmarkedRuns.get(knex);
  if (waiting) {
    waiting.push(id);
    return;
  }
  unmarkedRuns.set(knex, [id]);
  setTimeout(() => {
    const ids = unmarkedRuns.get(knex)!;
    unmarkedRuns.delete(knex);
    markPaymentWorkflowsStarted({ knex, ids }).catch(() => undefined);
  }, MARK_GATHER_MS).unref();
}

/**
 * The run starts with a start delay that ends at the payment's expiry: until a payin's signal-with-start
 * (`routePayin`) ends the delay, or the expiry does, it is a visible, running workflow that costs no workflow task
 * at all. Most payments created are never paid (an abandoned checkout), and those then take one task, at the
 * expiry, instead of one at the create and one at the expiry.
 */
async function startPaymentWorkflow(deps: WorkflowStarterDeps, row: PaymentRow): Promise<void> {
  const untilExpiry = row.expires_at.getTime() - Date.now();
  try {
    await deps.temporal.client.workflow.start<typeof paymentWorkflow>('paymentWorkflow', {
      ...paymentStartOptions(row, deps.temporal.taskQueue),
      ...(untilExpiry > 0 ? { startDelay: untilExpiry } : {}),
    });
  } catch (err) {
    // A closed run with this id means it was started long ago; nothing to do.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * Signals the payin to the payment's run, starting the run if it never started; false when the run has closed.
 * No start delay here: a run this starts runs the payin at once (a signal-with-start that starts a delayed run
 * waits out the delay); one that waits out its delay is woken by it.
 */
async function signalPaymentRun(deps: WorkflowStarterDeps, row: PaymentRow, payin: DetectedPayin): Promise<boolean> {
  try {
    await deps.temporal.client.workflow.signalWithStart<typeof paymentWorkflow, [DetectedPayin]>('paymentWorkflow', {
      ...paymentStartOptions(row, deps.temporal.taskQueue),
      signal: payinDetectedSignal,
      signalArgs: [payin],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
  if (!row.workflow_started_at) await markPaymentWorkflowsStarted({ knex: deps.knex, ids: [row.id] });
  return true;
}

/**
 * Hands a payin to the run that owns its deposit address. A running payment takes it as a signal (a payment whose
 * workflow was never started is started with it); a settled or closed payment's payin starts (or finds) its late-payin
 * workflow, which claims it as a refund's funding or refunds it. Idempotent: payments and late-payin workflows both
 * deduplicate on the payin.
 */
export async function routePayin(deps: WorkflowStarterDeps, row: PaymentRow, payin: DetectedPayin): Promise<'payment' | 'late-payin'> {
  const { client, taskQueue } = deps.temporal;
  // A settled payment's run may still be open (its sweep waits its `SWEEP_AFTER_SECONDS`), but it counts no payin:
  // the payin is late, and only a late-payin run claims it as the funding of a merchant's refund.
  if (!SETTLED_STATUSES.includes(row.status) && (await signalPaymentRun(deps, row, payin))) return 'payment';
  try {
    await client.workflow.start<typeof latePayinWorkflow>('latePayinWorkflow', {
      workflowId: latePayinWorkflowId(payin),
      taskQueue,
      args: [{ paymentId: row.id, payin }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: MerchantAppIdKey, value: row.app_id },
        { key: SourceChainIdKey, value: String(payin.chainId) },
      ],
      memo: { payment: paymentWorkflowId(row.id), payin: `${formatUnits(BigInt(payin.amountUnits), row.source_decimals)} from ${payin.from}`, txHash: payin.txHash },
    });
  } catch (err) {
    // Closed already: this payin was refunded (or found not refundable) before.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return 'late-payin';
}

/**
 * Starts a merchant refund's workflow, or finds it started (a request re-sent with its idempotency key starts it if
 * the first request stopped short of it). A refund runs once: its closed run is never started again.
 */
export async function startRefundWorkflow(deps: WorkflowStarterDeps, refund: RefundRow, payment: PaymentRow): Promise<void> {
  try {
    await deps.temporal.client.workflow.start<typeof refundWorkflow>('refundWorkflow', {
      workflowId: refundWorkflowId(refund.id),
      taskQueue: deps.temporal.taskQueue,
      args: [{ refundId: refund.id, paymentId: payment.id }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowTaskTimeout: LOCAL_WAITS_WORKFLOW_TASK_TIMEOUT,
      typedSearchAttributes: [
        { key: MerchantAppIdKey, value: payment.app_id },
        { key: SourceChainIdKey, value: String(payment.source_chain_id) },
      ],
      memo: { payment: paymentWorkflowId(payment.id), amount: `${formatUnits(BigInt(refund.amount_units), payment.source_decimals)} ${payment.source_token_symbol}`, to: refund.address ?? '' },
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await markRefundWorkflowStarted({ knex: deps.knex, id: refund.id });
}

/**
 * Wakes a refund's run waiting for its funding (`refundFundedSignal`). A refund whose run has not started (it awaits
 * its address) or has ended has nothing to wake: a run reads its funding when it starts.
 */
export async function wakeRefundWorkflow(deps: Pick<WorkflowStarterDeps, 'temporal'>, refundId: string): Promise<void> {
  try {
    await deps.temporal.client.workflow.getHandle(refundWorkflowId(refundId)).signal(refundFundedSignal);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

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

function orderStartOptions(row: OrderRow, taskQueue: string) {
  return {
    workflowId: orderWorkflowId(row.id),
    taskQueue,
    args: [orderWorkflowInput(row)] as [OrderWorkflowInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
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
  };
}

/** Starts the order's workflow, or finds it already started (the API and the reconciler may both try). */
export async function ensureOrderWorkflow(deps: WorkflowStarterDeps, row: OrderRow): Promise<void> {
  try {
    await deps.temporal.client.workflow.start<typeof orderWorkflow>('orderWorkflow', orderStartOptions(row, deps.temporal.taskQueue));
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await markOrderWorkflowStarted({ knex: deps.knex, id: row.id });
}

/**
 * Starts the order's workflow (or finds it) and, in the same call, asks it to create the payment in `payCurrency`
 * (update-with-start): no window in which the update could reach a workflow that does not exist yet.
 */
export async function startOrderWithPayment(deps: WorkflowStarterDeps, row: OrderRow, payCurrency: string): Promise<OrderPaymentRef> {
  const startWorkflowOperation = new WithStartWorkflowOperation<typeof orderWorkflow>('orderWorkflow', orderStartOptions(row, deps.temporal.taskQueue));
  const ref = await deps.temporal.client.workflow.executeUpdateWithStart(chooseCurrencyUpdate, { args: [payCurrency], startWorkflowOperation });
  await markOrderWorkflowStarted({ knex: deps.knex, id: row.id });
  return ref;
}

/** The order's running workflow, for its hosted-page updates. */
export const orderWorkflowHandle = (deps: WorkflowStarterDeps, orderId: string): WorkflowHandle<typeof orderWorkflow> =>
  deps.temporal.client.workflow.getHandle(orderWorkflowId(orderId));
