import {
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  log,
  proxyActivities,
  setHandler,
  sleep,
  startChild,
  type ChildWorkflowHandle,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { OrderActivities } from '../activities';
import { CALLBACK_STATUSES, orderStatusFor, type OrderPaymentRef, type OrderStatus } from '../domain/orders';
import { SETTLED_STATUSES, type PaymentStatus } from '../domain/payment';
import { LOCAL_WAITS_WORKFLOW_TASK_TIMEOUT, readModelOptions } from './activity-options';
import { paymentWorkflowId } from './ids';
import { cancelOrderUpdate, chooseCurrencyUpdate, orderStateQuery, paymentUpdatedSignal } from './messages';
import { paymentWorkflow } from './payment';
import { MerchantAppIdKey, OrderIdKey, OrderStatusKey, PaymentStatusKey, SourceChainIdKey } from './search-attributes';
import type { OrderWorkflowInput } from './types';

const readModel = proxyActivities<OrderActivities>(readModelOptions);

/** Pricing and writing the payment: a few tries (a price feed may be briefly stale), then the choice fails. */
const pricing = proxyActivities<OrderActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumAttempts: 4,
    nonRetryableErrorTypes: ['UnsupportedPayCurrency', 'PaymentNotPossible', 'OrderGone', 'NotConfigured'],
  },
});

/** Callbacks: retried with exponential backoff until the merchant answers 2xx, for at most a day. */
const callbacks = proxyActivities<OrderActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '24 hours',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes', nonRetryableErrorTypes: ['CallbackUrlRefused', 'NoCallbackUrl', 'OrderGone', 'NotConfigured'] },
});

const mail = proxyActivities<OrderActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumAttempts: 6 },
});

type PaymentAttempt = { ok: true; payment: OrderPaymentRef } | { ok: false; message: string };

/**
 * One legacy order (`order-<id>`): waits for a currency (fixed by the merchant or chosen on the hosted page),
 * runs the payment as a child workflow, follows it, and tells the merchant by callback. Expires when no payment
 * was made in time.
 */
export async function orderWorkflow(input: OrderWorkflowInput): Promise<OrderStatus> {
  const { orderId } = input;
  let status: OrderStatus = 'new';
  let payment: OrderPaymentRef | null = null;
  let paymentStatus: PaymentStatus | null = null;
  let creating: Promise<PaymentAttempt> | undefined;
  /** The payment's run, when this order started it. */
  let paymentRun: ChildWorkflowHandle<typeof paymentWorkflow> | undefined;
  let creatingCurrency: string | null = null;
  let expired = false;
  let cancelled = false;

  // Status writes and callbacks each go out one at a time, in the order they happened.
  let writes: Promise<void> = Promise.resolve();
  let callbackChain: Promise<void> = Promise.resolve();
  let receipt: Promise<void> = Promise.resolve();

  let sequence = 0;
  function transition(next: OrderStatus): Promise<void> {
    if (next === status) return writes;
    status = next;
    upsertSearchAttributes([{ key: OrderStatusKey, value: next }]);
    const write = { orderId, status: next, sequence: ++sequence };
    writes = writes.then(() => readModel.recordOrderTransition(write));
    if (input.callbacks && CALLBACK_STATUSES.includes(next)) {
      const callbackId = uuid4();
      callbackChain = callbackChain.then(() =>
        callbacks.deliverOrderCallback({ orderId, callbackId, status: next }).then(
          () => undefined,
          (err: unknown) => log.warn('callback not delivered', { orderId, status: next, error: String(err) }),
        ),
      );
    }
    if (next === 'paid' && input.receipt) {
      receipt = receipt.then(() =>
        mail.sendOrderReceipt({ orderId }).then(
          () => undefined,
          (err: unknown) => log.warn('receipt not mailed', { orderId, error: String(err) }),
        ),
      );
    }
    return writes;
  }

  /** Creates the order's payment once; concurrent choices of the same currency share the attempt. */
  function ensurePayment(payCurrency: string): Promise<PaymentAttempt> {
    if (payment) return Promise.resolve({ ok: true, payment });
    if (creating) return creating;
    creatingCurrency = payCurrency;
    creating = (async (): Promise<PaymentAttempt> => {
      try {
        const created = await pricing.createOrderPayment({ orderId, payCurrency });
        try {
          paymentRun = await startChild(paymentWorkflow, {
            workflowId: paymentWorkflowId(created.paymentId),
            args: [{ paymentId: created.paymentId, expiresAt: created.expiresAt }],
            // The payment outlives the order: it keeps refunding late payins to its deposit address.
            parentClosePolicy: ParentClosePolicy.ABANDON,
            workflowTaskTimeout: LOCAL_WAITS_WORKFLOW_TASK_TIMEOUT,
            typedSearchAttributes: [
              { key: PaymentStatusKey, value: 'payment_unpaid' },
              { key: MerchantAppIdKey, value: created.searchAttributes.merchantAppId },
              { key: SourceChainIdKey, value: created.searchAttributes.sourceChainId },
              ...(created.searchAttributes.orderId ? [{ key: OrderIdKey, value: created.searchAttributes.orderId }] : []),
            ],
            memo: created.memo,
          });
        } catch (err) {
          // Already running (this order started it before): follow that run.
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        }
        payment = { paymentId: created.paymentId, payCurrency: created.memo.payCurrency ?? payCurrency };
        paymentStatus ??= 'payment_unpaid';
        return { ok: true, payment };
      } catch (err) {
        creating = undefined;
        creatingCurrency = null;
        log.warn('order payment not created', { orderId, payCurrency, error: String(err) });
        return { ok: false, message: err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err) };
      }
    })();
    return creating;
  }

  setHandler(orderStateQuery, () => ({ status, payment, paymentStatus }));
  setHandler(paymentUpdatedSignal, (update) => {
    if (payment && update.paymentId !== payment.paymentId) return;
    paymentStatus = update.status;
  });
  setHandler(
    chooseCurrencyUpdate,
    async (payCurrency) => {
      const attempt = await ensurePayment(payCurrency);
      if (!attempt.ok) throw ApplicationFailure.nonRetryable(attempt.message, 'PaymentNotCreated');
      return attempt.payment;
    },
    {
      validator: (payCurrency: string) => {
        if (!input.currencyOptions.includes(payCurrency)) throw new Error(`${payCurrency} is not offered for this order`);
        if (payment) {
          if (payment.payCurrency !== payCurrency) throw new Error(`this order already has a payment in ${payment.payCurrency}`);
          return;
        }
        if (cancelled || expired || status !== 'new') throw new Error(`the order is ${expired ? 'expired' : status}`);
        if (creating && creatingCurrency !== payCurrency) throw new Error(`a payment in ${creatingCurrency} is being prepared`);
      },
    },
  );
  setHandler(
    cancelOrderUpdate,
    async () => {
      cancelled = true;
      await transition('canceled');
      return status;
    },
    {
      validator: () => {
        if (expired || (status !== 'new' && status !== 'pending')) throw new Error(`an order that is ${expired ? 'expired' : status} cannot be cancelled`);
        if (creating && !payment) throw new Error('a payment is being prepared; try again in a moment');
      },
    },
  );

  if (input.payCurrency) void ensurePayment(input.payCurrency);
  void sleep(Math.max(0, Date.parse(input.expiresAt) - workflowInfo().startTime.getTime())).then(() => {
    expired = true;
  });

  // Until there is a payment: the customer chooses, cancels, or lets the order expire.
  await condition(() => payment !== null || cancelled || (expired && creating === undefined));
  if (payment) {
    if (status === 'new') await transition('pending');
    // Then the order follows its payment until the payment settles.
    let seen: PaymentStatus | null = null;
    for (;;) {
      await condition(() => paymentStatus !== seen);
      seen = paymentStatus!;
      const next = orderStatusFor(seen, status);
      if (next) await transition(next);
      if (SETTLED_STATUSES.includes(seen)) break;
    }
  } else if (!cancelled) {
    await transition('expired');
  }

  await writes;
  await callbackChain;
  await receipt;
  await condition(allHandlersFinished);
  // The order's run ends once its payment's run has ended (moments after the payment settled), never before it.
  if (paymentRun) await paymentRun.result().catch(() => undefined);
  return status;
}
