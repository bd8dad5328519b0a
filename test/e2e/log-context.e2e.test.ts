import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer } from '../support/chain';
import { connectServices, startExtraApi, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { exited, spawnWorker } from '../support/worker';

interface LogLine {
  msg?: string;
  activityType?: string;
  paymentId?: string;
  workflowId?: string;
}

describe('log lines about a payment name it and its workflow (worker)', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  let merchant: TestMerchant;
  let worker: ChildProcess | undefined;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex);
  });
  after(async () => {
    worker?.kill('SIGKILL');
    await services?.close();
  });

  it('every line the worker logs while settling one paid payment carries paymentId and workflowId', async () => {
    // This API's payments run on their own task queue, served only by the worker whose output is read here.
    const taskQueue = `log-context-${randomUUID()}`;
    const api = await startExtraApi(stack, services, { taskQueue });
    const lines: LogLine[] = [];
    try {
      worker = spawnWorker(stack, taskQueue, { LOG_LEVEL: 'debug' }, 'pipe');
      createInterface({ input: worker.stdout! }).on('line', (line) => line.startsWith('{') && lines.push(JSON.parse(line) as LogLine));
      const created = await createPayment(api.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `logs-${randomUUID()}`, chainId: '8453', amount: '3' }));
      await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '3');
      await waitForStatus(api.paymentApiUrl, created.id, 'payment_completed', 120_000);
      worker.kill('SIGTERM');
      await exited(worker);

      const activities = lines.filter((l) => l.activityType !== undefined);
      const aboutPayment = activities.filter((l) => l.paymentId === created.id);
      assert.ok(aboutPayment.length >= 3, `the payment's activities were logged: ${JSON.stringify(activities)}`);
      for (const line of aboutPayment) assert.equal(line.workflowId, `payment-${created.id}`, JSON.stringify(line));
      // Lines that name a payment's workflow name the payment too, and the other way round.
      for (const line of lines.filter((l) => l.workflowId?.startsWith('payment-') || l.paymentId !== undefined)) {
        assert.ok(line.paymentId && line.workflowId, JSON.stringify(line));
      }
    } finally {
      await api.close();
    }
  });
});
