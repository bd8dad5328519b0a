/**
 * The legacy order workflow, and the payment workflow's native-coin branch, against faked activities on a local
 * Temporal dev server. The order's child is the real payment workflow, driven by the payment fakes of
 * test/workflows/harness; the fake read-model writer signals the order as the real one does.
 *
 * Histories of two runs are kept in ./histories and replayed against the current code, so a change that breaks
 * open orders or native payments fails here. Re-record them (only for a deliberate, non-replay-compatible change)
 * with `RECORD_LEGACY_HISTORIES=1 npx mocha test/legacy/order.workflow.test.ts`.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { OrderActivities } from '../../activities';
import type { orderWorkflow } from '../../workflows';
import { orderWorkflowId, paymentWorkflowId } from '../../workflows/ids';
import { cancelOrderUpdate, chooseCurrencyUpdate, orderStateQuery, payinDetectedSignal, paymentUpdatedSignal } from '../../workflows/messages';
import type { CreatedOrderPayment, OrderStatus, OrderWorkflowInput } from '../../workflows/order-types';
import { OrderStatusKey, PaymentStatusKey } from '../../workflows/search-attributes';
import type { PaymentWorkflowInput } from '../../workflows/types';
import { historyFromJSON, historyToJSON } from '../replay/history-json';
import {
  FakeActivities,
  MERCHANT_ADDRESS,
  PAYOUT_UNITS,
  WORKFLOWS_PATH,
  bundleWorkflows,
  createTestEnv,
  detectedPayin,
  paymentInput,
  runPayment,
} from '../workflows/harness';

const HISTORIES_DIR = path.join(__dirname, 'histories');
const RECORD = process.env.RECORD_LEGACY_HISTORIES === '1';
const NATIVE = '0x0000000000000000000000000000000000000000';
/** 0.01 ETH for 30 USD; 0.5 % fee. */
const NATIVE_UNITS = '10000000000000000';
const NATIVE_FEE_UNITS = '50000000000000';

/** A cross-chain payment in the source chain's native coin, priced at a rate (as legacy orders create it). */
function nativePaymentInput(paymentId: string, expiresInMs?: number): PaymentWorkflowInput {
  const input = paymentInput({ paymentId, crossChain: true, expiresInMs, latePayinWindowMs: 200 });
  return { ...input, source: { ...input.source, symbol: 'ETH', address: NATIVE, decimals: 18, amountUnits: NATIVE_UNITS, feeUnits: NATIVE_FEE_UNITS } };
}

const nativePayin = (tx: string) => ({ ...detectedPayin({ tx, tokenAddress: NATIVE, amountUnits: NATIVE_UNITS }), logIndex: -1 });

class FakeOrderActivities {
  readonly calls: Array<{ name: keyof OrderActivities; input: unknown }> = [];
  /** createOrderPayment calls still to fail (as for a route the merchant cannot be paid through). */
  failCreates = 0;

  constructor(private readonly payment: PaymentWorkflowInput) {}

  callsOf<K extends keyof OrderActivities>(name: K): Array<Parameters<OrderActivities[K]>[0]> {
    return this.calls.filter((c) => c.name === name).map((c) => c.input as Parameters<OrderActivities[K]>[0]);
  }

  readonly activities: OrderActivities = {
    createOrderPayment: async (input): Promise<CreatedOrderPayment> => {
      this.calls.push({ name: 'createOrderPayment', input });
      await Promise.resolve();
      if (this.failCreates-- > 0) throw ApplicationFailure.nonRetryable('pay_currency cannot be bridged', 'PaymentNotPossible');
      return {
        paymentId: this.payment.paymentId,
        input: this.payment,
        searchAttributes: { merchantAppId: this.payment.appId, sourceChainId: String(this.payment.source.chainId), orderId: 'A-1' },
        memo: { payCurrency: input.payCurrency },
      };
    },
    recordOrderTransition: async (input) => {
      this.calls.push({ name: 'recordOrderTransition', input });
      await Promise.resolve();
    },
    deliverOrderCallback: async (input) => {
      this.calls.push({ name: 'deliverOrderCallback', input });
      await Promise.resolve();
      return { attempt: 1, statusCode: 200 };
    },
    sendOrderReceipt: async (input) => {
      this.calls.push({ name: 'sendOrderReceipt', input });
      await Promise.resolve();
      return { sent: true };
    },
  };
}

describe('legacy order workflow and native payments (mocked activities)', function () {
  this.timeout(60_000);
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;
  let seq = 0;

  before(async function () {
    this.timeout(120_000);
    [env, workflowBundle] = await Promise.all([createTestEnv(), bundleWorkflows()]);
  });
  after(async function () {
    this.timeout(30_000);
    await env?.teardown();
  });

  const unique = (tag: string) => `${tag}_${Date.now().toString(36)}_${++seq}`;

  function saveHistory(name: string, history: unknown): void {
    if (RECORD) writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), `${historyToJSON(history as never)}\n`);
  }

  /** Runs one order with its child payment on a fresh task queue; the fake payment writer signals the order. */
  async function runOrder<T>(opts: {
    order: Omit<OrderWorkflowInput, 'orderId' | 'appId' | 'merchantOrderId'> & { orderId?: string };
    payment: PaymentWorkflowInput;
    body: (handle: WorkflowHandle<typeof orderWorkflow>, fakes: { order: FakeOrderActivities; payment: FakeActivities }) => Promise<T>;
  }): Promise<T> {
    const orderId = opts.order.orderId ?? unique('order');
    const input: OrderWorkflowInput = { ...opts.order, orderId, appId: 'app_test', merchantOrderId: 'A-1' };
    const paymentFakes = new FakeActivities();
    const orderFakes = new FakeOrderActivities(opts.payment);
    const taskQueue = `order-test-${process.pid}-${++seq}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle,
      activities: {
        ...paymentFakes.activities,
        ...orderFakes.activities,
        recordPaymentTransition: async (transition: Parameters<FakeActivities['activities']['recordPaymentTransition']>[0]) => {
          await paymentFakes.activities.recordPaymentTransition(transition);
          await env.client.workflow.getHandle(orderWorkflowId(orderId)).signal(paymentUpdatedSignal, { paymentId: transition.paymentId, status: transition.status });
        },
      },
    });
    return worker.runUntil(async () => {
      const handle = await env.client.workflow.start<typeof orderWorkflow>('orderWorkflow', {
        workflowId: orderWorkflowId(orderId),
        taskQueue,
        args: [input],
        typedSearchAttributes: [{ key: OrderStatusKey, value: 'new' }],
      });
      try {
        return await opts.body(handle, { order: orderFakes, payment: paymentFakes });
      } finally {
        for (const id of [orderWorkflowId(orderId), paymentWorkflowId(opts.payment.paymentId)]) {
          const h = env.client.workflow.getHandle(id);
          const running = await h.describe().then((d) => d.status.name === 'RUNNING', () => false);
          if (running) await h.terminate('test finished');
        }
      }
    });
  }

  const transitions = (fakes: FakeOrderActivities): OrderStatus[] => fakes.callsOf('recordOrderTransition').map((c) => c.status);
  const callbackStatuses = (fakes: FakeOrderActivities): OrderStatus[] => fakes.callsOf('deliverOrderCallback').map((c) => c.status);
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

  async function waitForChild(paymentId: string) {
    const handle = env.client.workflow.getHandle(paymentWorkflowId(paymentId));
    for (let i = 0; i < 100; i++) {
      const described = await handle.describe().catch(() => undefined);
      if (described) return { handle, described };
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`child payment ${paymentId} never started`);
  }

  it('a native-coin payment is swept and paid out in the payout token without a bridge', async () => {
    const fakes = new FakeActivities();
    const input = nativePaymentInput(unique('replay_native'));
    const payin = nativePayin('native-a');
    await runPayment({
      env,
      workflowBundle,
      fakes,
      input,
      body: async (handle) => {
        await handle.signal(payinDetectedSignal, payin);
        assert.equal(await handle.result(), 'payment_completed');
        assert.deepEqual(fakes.statuses(), ['payment_started', 'payment_payin_completed', 'payment_payout_started', 'payment_payout_completed', 'payment_completed']);
        assert.deepEqual(
          fakes.chainWrites().map((w) => [w.name, w.input.tokenAddress, w.input.amountUnits]),
          [
            ['sweepDeposit', NATIVE, NATIVE_UNITS],
            ['transferFromTreasury', input.destination.address, PAYOUT_UNITS],
          ],
        );
        assert.equal(fakes.callsOf('transferFromTreasury')[0]?.to, MERCHANT_ADDRESS);
        saveHistory('native-cross-chain-completed', await handle.fetchHistory());
      },
    });
  });

  it('a fixed pay_currency: the payment runs as its child; paid, one callback, one receipt; ends when the payment completes', async () => {
    const payment = paymentInput({ paymentId: unique('order_child'), latePayinWindowMs: 200 });
    await runOrder({
      order: { payCurrency: 'USDC_ARB', currencyOptions: ['USDC_ARB'], expiresAt: inAnHour(), callbacks: true, receipt: true },
      payment,
      body: async (handle, fakes) => {
        const { handle: child, described } = await waitForChild(payment.paymentId);
        assert.equal(described.parentExecution?.workflowId, handle.workflowId);
        assert.equal(described.typedSearchAttributes.get(PaymentStatusKey), 'payment_unpaid');
        await child.signal(payinDetectedSignal, detectedPayin({ tx: 'order-paid' }));
        assert.equal(await handle.result(), 'paid');
        assert.deepEqual(transitions(fakes.order), ['pending', 'confirming', 'paid']);
        assert.deepEqual(callbackStatuses(fakes.order), ['paid']);
        assert.equal(fakes.order.callsOf('sendOrderReceipt').length, 1);
        assert.equal(fakes.order.callsOf('createOrderPayment').length, 1);
        assert.equal((await handle.describe()).typedSearchAttributes.get(OrderStatusKey), 'paid');
        saveHistory('order-fixed-currency-paid', await handle.fetchHistory());
      },
    });
  });

  it('nothing chosen in time: expired, with the expiry callback; a currency not offered is refused meanwhile', async () => {
    await runOrder({
      order: { payCurrency: null, currencyOptions: ['USDC_ARB', 'ETH_BASE'], expiresAt: new Date(Date.now() + 1_500).toISOString(), callbacks: true, receipt: false },
      payment: paymentInput({ paymentId: unique('order_unused') }),
      body: async (handle, fakes) => {
        await assert.rejects(handle.executeUpdate(chooseCurrencyUpdate, { args: ['USDT_BNB'] }), WorkflowUpdateFailedError);
        assert.equal(await handle.result(), 'expired');
        assert.deepEqual(transitions(fakes.order), ['expired']);
        assert.deepEqual(callbackStatuses(fakes.order), ['expired']);
        assert.equal(fakes.order.callsOf('createOrderPayment').length, 0);
        saveHistory('order-expired', await handle.fetchHistory());
      },
    });
  });

  it('a choice that cannot be priced fails the update and the customer may choose again; a cancelled order stays cancelled when its payment expires', async () => {
    const payment = paymentInput({ paymentId: unique('order_cancel'), expiresInMs: 2_000, latePayinWindowMs: 200 });
    await runOrder({
      order: { payCurrency: null, currencyOptions: ['USDC_ARB', 'USDT_ARB'], expiresAt: payment.expiresAt, callbacks: true, receipt: true },
      payment,
      body: async (handle, fakes) => {
        fakes.order.failCreates = 1;
        await assert.rejects(handle.executeUpdate(chooseCurrencyUpdate, { args: ['USDT_ARB'] }), (err: unknown) => {
          assert.ok(err instanceof WorkflowUpdateFailedError);
          assert.match(String(err.cause?.message), /cannot be bridged/);
          return true;
        });
        assert.deepEqual(await handle.query(orderStateQuery), { status: 'new', payment: null, paymentStatus: null });
        const chosen = await handle.executeUpdate(chooseCurrencyUpdate, { args: ['USDC_ARB'] });
        assert.deepEqual(chosen, { paymentId: payment.paymentId, payCurrency: 'USDC_ARB' });
        // The same choice again is answered with the same payment; another currency is refused.
        assert.deepEqual(await handle.executeUpdate(chooseCurrencyUpdate, { args: ['USDC_ARB'] }), chosen);
        await assert.rejects(handle.executeUpdate(chooseCurrencyUpdate, { args: ['USDT_ARB'] }), WorkflowUpdateFailedError);
        assert.equal(await handle.executeUpdate(cancelOrderUpdate), 'canceled');
        await assert.rejects(handle.executeUpdate(cancelOrderUpdate), WorkflowUpdateFailedError);
        assert.equal(await handle.result(), 'canceled');
        assert.deepEqual(transitions(fakes.order), ['pending', 'canceled']);
        assert.deepEqual(callbackStatuses(fakes.order), ['canceled']);
        assert.equal(fakes.order.callsOf('sendOrderReceipt').length, 0);
        assert.ok(fakes.payment.statuses().includes('payment_expired'));
      },
    });
  });

  describe('recorded histories replay against the current workflow code', () => {
    for (const name of ['native-cross-chain-completed', 'order-fixed-currency-paid', 'order-expired']) {
      it(`replays ${name}.json`, async function () {
        const file = path.join(HISTORIES_DIR, `${name}.json`);
        if (!existsSync(file)) assert.fail(`${file} is missing: record it with RECORD_LEGACY_HISTORIES=1`);
        const history = historyFromJSON(readFileSync(file, 'utf8'));
        await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH, replayName: `legacy-${name}` }, history);
      });
    }
  });
});
