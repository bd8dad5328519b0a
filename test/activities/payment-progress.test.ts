/**
 * `recordPaymentProgress`, the step a payment run with combined steps records its read-model writes in, against the
 * test stack's database: the writes in order, a retried step changing nothing, the deposit watch kept from now.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createActivities, type ActivityDeps } from '../../activities';
import type { PaymentProgress } from '../../domain/payment';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody } from '../support/api';
import { activityDeps, connectServices, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';

describe('recordPaymentProgress (real database)', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let shop: TestMerchant;
  let deps: ActivityDeps;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    shop = await newMerchant(stack, services.knex);
    deps = activityDeps(stack, services, 3_600_000);
  });
  after(async () => services?.close());

  it('applies a payin and the status it brings in order, once however often the step is retried, and keeps the deposit watched', async () => {
    // Never paid: its run sleeps until its expiry and writes nothing while this test runs.
    const payment = await createPayment(stack.info.paymentApiUrl, shop.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '8453', amount: '3' }));
    const payin = {
      chainId: 8453,
      txHash: `0x${randomUUID().replaceAll('-', '').padEnd(64, 'c')}`,
      logIndex: 0,
      blockNumber: 1,
      tokenAddress: payment.source.tokenAddress,
      from: stack.info.customer.evm.address,
      to: payment.source.receiverAddress,
      amountUnits: '3000000',
    };
    const steps: PaymentProgress[] = [
      { kind: 'payin', payin, status: 'detected', sequence: 101 },
      { kind: 'status', status: 'payment_started', sequence: 102 },
      { kind: 'watch' },
    ];
    const activities = createActivities(deps);
    const watchUntil = async () =>
      (await services.knex('deposit_addresses').where({ payment_id: payment.id }).first<{ watch_until: Date }>('watch_until')).watch_until.getTime();
    const watchedBefore = await watchUntil();

    await activities.recordPaymentProgress({ paymentId: payment.id, steps });
    await activities.recordPaymentProgress({ paymentId: payment.id, steps });

    const row = await services.knex('payments').where({ id: payment.id }).first<{ status: string; status_sequence: number }>('status', 'status_sequence');
    assert.deepEqual(row, { status: 'payment_started', status_sequence: 102 });
    const events = await services.knex('payment_status_events').where({ payment_id: payment.id }).orderBy('id').pluck<string[]>('status');
    assert.deepEqual(events.filter((status) => status === 'payment_started'), ['payment_started'], 'the retried step entered the status once');
    const payins = await services.knex('payins').where({ payment_id: payment.id }).select<Array<{ status: string; tx_hash: string }>>('status', 'tx_hash');
    assert.deepEqual(payins, [{ status: 'detected', tx_hash: payin.txHash }]);
    assert.ok((await watchUntil()) >= Math.max(watchedBefore, Date.now() + 3_000_000), 'watched for the late-payin window from now');
  });
});
