/**
 * The legacy order workflow against faked activities on the time-skipping test server, with the real 60-minute
 * order expiry. The order's child is the real payment workflow (on the same fakes); it tells its parent of every
 * status through the workflow API.
 */
import assert from 'node:assert/strict';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { OrderStatus } from '../../domain/orders';
import { loadConfig } from '../../lib/config';
import type { orderWorkflow } from '../../workflows';
import { orderWorkflowId, paymentWorkflowId } from '../../workflows/ids';
import { cancelOrderUpdate, chooseCurrencyUpdate, orderStateQuery, payinDetectedSignal } from '../../workflows/messages';
import { OrderStatusKey, PaymentStatusKey } from '../../workflows/search-attributes';
import type { OrderWorkflowInput } from '../../workflows/types';
import { eventually } from '../support/poll';
import { getTestEnv, getWorkflowBundle } from '../support/temporal';
import { FakeActivities, detectedPayin, paymentTerms, runWorkflow, terminateIfRunning } from '../workflows/harness';

/** The configuration's default order expiry (ORDER_TTL_SECONDS: 60 minutes, spec 8). */
const ORDER_TTL_MS = loadConfig({ DATABASE_URL: 'postgres://defaults' }).orderTtlSeconds * 1000;

describe('legacy order workflow (mocked activities, time-skipping server)', function () {
  this.timeout(60_000);
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;
  let seq = 0;

  before(async function () {
    this.timeout(180_000);
    [env, workflowBundle] = await Promise.all([getTestEnv(), getWorkflowBundle()]);
  });

  /** Runs one order; its payment (if one is chosen) is `payment-<paymentId>` on the same fakes. */
  async function runOrder<T>(opts: {
    order: Pick<OrderWorkflowInput, 'payCurrency' | 'currencyOptions' | 'callbacks' | 'receipt'>;
    body: (handle: WorkflowHandle<typeof orderWorkflow>, fakes: FakeActivities, paymentId: string) => Promise<T>;
  }): Promise<T> {
    const now = await env.currentTimeMs();
    const orderId = `order_${now.toString(36)}_${++seq}`;
    const paymentId = `order_payment_${now.toString(36)}_${seq}`;
    const fakes = new FakeActivities();
    // An order's payment expires with the order.
    fakes.terms.set(paymentId, paymentTerms({ paymentId, now, expiresInMs: ORDER_TTL_MS }));
    fakes.orderPayment = (input) => ({
      paymentId,
      searchAttributes: { merchantAppId: 'merchant_test', sourceChainId: '31337', orderId: 'A-1' },
      memo: { payCurrency: input.payCurrency },
    });
    const input: OrderWorkflowInput = {
      ...opts.order,
      orderId,
      appId: 'merchant_test',
      merchantOrderId: 'A-1',
      expiresAt: new Date(now + ORDER_TTL_MS).toISOString(),
    };
    try {
      return await runWorkflow<typeof orderWorkflow, T>({
        env,
        workflowBundle,
        fakes,
        workflowType: 'orderWorkflow',
        workflowId: orderWorkflowId(orderId),
        args: [input],
        searchAttributes: false,
        body: (handle) => opts.body(handle, fakes, paymentId),
      });
    } finally {
      await terminateIfRunning(env, paymentWorkflowId(paymentId));
    }
  }

  const callbacks = (fakes: FakeActivities): OrderStatus[] => fakes.callsOf('deliverOrderCallback').map((c) => c.status);

  async function child(paymentId: string) {
    const handle = env.client.workflow.getHandle(paymentWorkflowId(paymentId));
    const described = await eventually('the child payment to start', 20_000, () => handle.describe().catch(() => undefined));
    return { handle, described };
  }

  it('a fixed pay_currency: the payment runs as its child and reports to it; paid, one callback, one receipt; ends after the payment', async () => {
    await runOrder({
      order: { payCurrency: 'USDC_ARB', currencyOptions: ['USDC_ARB'], callbacks: true, receipt: true },
      body: async (handle, fakes, paymentId) => {
        const { handle: payment, described } = await child(paymentId);
        assert.equal(described.parentExecution?.workflowId, handle.workflowId);
        assert.equal(described.typedSearchAttributes.get(PaymentStatusKey), 'payment_unpaid');
        assert.equal(Number(described.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds), 30, 'the child runs with the payment run’s 30 s workflow task timeout');
        await payment.signal(payinDetectedSignal, detectedPayin({ tx: 'order-paid' }));
        assert.equal(await handle.result(), 'paid');
        assert.equal((await payment.describe()).status.name, 'COMPLETED', 'the order ends after its payment has');
        assert.equal(await payment.result(), 'payment_completed');
        assert.deepEqual(fakes.orderStatuses(), ['pending', 'confirming', 'paid']);
        assert.deepEqual(
          fakes.callsOf('recordOrderTransition').map((c) => c.sequence),
          [1, 2, 3],
          'every order write carries the next sequence',
        );
        assert.deepEqual(callbacks(fakes), ['paid']);
        assert.equal(fakes.callsOf('sendOrderReceipt').length, 1);
        assert.equal(fakes.callsOf('createOrderPayment').length, 1);
        assert.equal((await handle.describe()).typedSearchAttributes.get(OrderStatusKey), 'paid');
      },
    });
  });

  it('nothing chosen within the real 60 minutes: expired, with the expiry callback; a currency not offered is refused meanwhile', async () => {
    await runOrder({
      order: { payCurrency: null, currencyOptions: ['USDC_ARB', 'ETH_BASE'], callbacks: true, receipt: false },
      body: async (handle, fakes) => {
        await assert.rejects(handle.executeUpdate(chooseCurrencyUpdate, { args: ['USDT_BNB'] }), WorkflowUpdateFailedError);
        const started = await env.currentTimeMs();
        assert.equal(await handle.result(), 'expired');
        assert.ok((await env.currentTimeMs()) - started >= ORDER_TTL_MS - 60_000, 'it waited the hour');
        assert.deepEqual(fakes.orderStatuses(), ['expired']);
        assert.deepEqual(callbacks(fakes), ['expired']);
        assert.equal(fakes.callsOf('createOrderPayment').length, 0);
      },
    });
  });

  it('a choice that cannot be priced fails the update and the customer may choose again; a cancelled order stays cancelled when its payment expires', async () => {
    await runOrder({
      order: { payCurrency: null, currencyOptions: ['USDC_ARB', 'USDT_ARB'], callbacks: true, receipt: true },
      body: async (handle, fakes, paymentId) => {
        fakes.failOrderPayments = 1;
        await assert.rejects(handle.executeUpdate(chooseCurrencyUpdate, { args: ['USDT_ARB'] }), (err: unknown) => {
          assert.ok(err instanceof WorkflowUpdateFailedError);
          assert.match(String(err.cause?.message), /too small to pay out after the fee/);
          return true;
        });
        assert.deepEqual(await handle.query(orderStateQuery), { status: 'new', payment: null, paymentStatus: null });
        const chosen = await handle.executeUpdate(chooseCurrencyUpdate, { args: ['USDC_ARB'] });
        assert.deepEqual(chosen, { paymentId, payCurrency: 'USDC_ARB' });
        // The same choice again is answered with the same payment; another currency is refused.
        assert.deepEqual(await handle.executeUpdate(chooseCurrencyUpdate, { args: ['USDC_ARB'] }), chosen);
        await assert.rejects(handle.executeUpdate(chooseCurrencyUpdate, { args: ['USDT_ARB'] }), WorkflowUpdateFailedError);
        assert.equal(await handle.executeUpdate(cancelOrderUpdate), 'canceled');
        await assert.rejects(handle.executeUpdate(cancelOrderUpdate), WorkflowUpdateFailedError);
        assert.equal(await handle.result(), 'canceled');
        assert.deepEqual(fakes.orderStatuses(), ['pending', 'canceled']);
        assert.deepEqual(callbacks(fakes), ['canceled']);
        assert.equal(fakes.callsOf('sendOrderReceipt').length, 0);
        const { handle: payment } = await child(paymentId);
        assert.equal(await payment.result(), 'payment_expired', 'the payment expires with the order');
      },
    });
  });
});
