import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Wallet, id as topicOf, zeroPadValue } from 'ethers';
import type { RefundResource } from '../../api/serializers/refund';
import type { ChainTxRow } from '../../db/tables';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer, providerFor, tokenAddress, tokenBalance } from '../support/chain';
import { request } from '../support/http';
import { connectServices, startExtraApi, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { exited, spawnWorker } from '../support/worker';
import { listPaymentStatusEvents } from '../../db/queries/payments';
import { intentKeys } from '../../domain/chain-txs';
import type { refundWorkflow } from '../../workflows';
import { refundWorkflowId } from '../../workflows/ids';

describe('a worker killed while a payout or a refund is in flight', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  let merchant: TestMerchant;
  const children: ChildProcess[] = [];

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex);
  });
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    await services?.close();
  });

  it('restarts into exactly one payout transaction on chain, and the payment completes', async () => {
    // Payments of this API run on their own task queue, served only by the worker processes below.
    const taskQueue = `crash-test-${randomUUID()}`;
    const api = await startExtraApi(stack, services, { taskQueue });
    try {
      const doomed = spawnWorker(stack, taskQueue, { PAYRAIL_FAULT_CRASH_AFTER_BROADCAST: 'payout to merchant' });
      children.push(doomed);
      const amount = '11';
      const created = await createPayment(api.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `crash-${randomUUID()}`, chainId: '8453', amount }));
      const startBlock = await providerFor(stack.info, 8453).getBlockNumber();
      await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, amount);

      assert.equal(await exited(doomed), 'SIGKILL', 'the worker died right after broadcasting the payout');
      const inFlight = await services.knex<ChainTxRow>('chain_txs').where({ payment_id: created.id, purpose: 'payout to merchant' });
      assert.equal(inFlight.length, 1, 'the payout was signed and stored before the crash');
      assert.equal((await getPayment(api.paymentApiUrl, created.id)).status, 'payment_payout_started');

      children.push(spawnWorker(stack, taskQueue));
      const { payment } = await waitForStatus(api.paymentApiUrl, created.id, 'payment_completed', 120_000);

      // The restarted worker repeats the lost workflow task's writes on a later clock: the payment enters no status twice.
      const timeline = (await listPaymentStatusEvents({ knex: services.knex, paymentId: created.id })).map((event) => event.status);
      assert.deepEqual(timeline, ['payment_started', 'payment_payin_completed', 'payment_payout_started', 'payment_payout_completed', 'payment_completed']);

      const payouts = await services.knex<ChainTxRow>('chain_txs').where({ payment_id: created.id, purpose: 'payout to merchant' });
      assert.equal(payouts.length, 1);
      assert.equal(payment.destination.txHash, inFlight[0]!.tx_hash, 'the restarted worker finished the same transaction');
      const transfers = await providerFor(stack.info, 8453).getLogs({
        address: tokenAddress(stack.info, 8453, 'USDC'),
        fromBlock: startBlock,
        toBlock: 'latest',
        topics: [topicOf('Transfer(address,address,uint256)'), null, zeroPadValue(merchant.payout.address, 32)],
      });
      assert.deepEqual(transfers.map((t) => t.transactionHash), [payment.destination.txHash], 'exactly one payout transfer on chain');
    } finally {
      await api.close();
    }
  });

  it('a refund restarts into exactly one transaction on chain, and completes', async () => {
    const taskQueue = `crash-test-${randomUUID()}`;
    const api = await startExtraApi(stack, services, { taskQueue });
    try {
      const settling = spawnWorker(stack, taskQueue);
      children.push(settling);
      const created = await createPayment(api.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `crash-refund-${randomUUID()}`, chainId: '8453', amount: '6' }));
      await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '6');
      await waitForStatus(api.paymentApiUrl, created.id, 'payment_completed', 120_000);
      settling.kill('SIGKILL');
      await exited(settling);

      const doomed = spawnWorker(stack, taskQueue, { PAYRAIL_FAULT_CRASH_AFTER_BROADCAST: 'merchant refund' });
      children.push(doomed);
      const customer = Wallet.createRandom().address;
      const startBlock = await providerFor(stack.info, 8453).getBlockNumber();
      const refund = await request<RefundResource>(`${api.paymentApiUrl}/${created.id}/refunds`, {
        headers: { 'x-api-key': merchant.adminKey, 'idempotency-key': randomUUID() },
        body: { address: customer },
      });
      assert.equal(refund.status, 201, refund.text);
      assert.equal(await exited(doomed), 'SIGKILL', 'the worker died right after broadcasting the refund');
      const inFlight = await services.knex<ChainTxRow>('chain_txs').where({ intent_key: intentKeys.merchantRefund(refund.body.id) });
      assert.equal(inFlight.length, 1, 'the refund was signed and stored before the crash');

      children.push(spawnWorker(stack, taskQueue));
      assert.equal(await services.client.workflow.getHandle<typeof refundWorkflow>(refundWorkflowId(refund.body.id)).result(), 'completed');
      const transfers = await providerFor(stack.info, 8453).getLogs({
        address: tokenAddress(stack.info, 8453, 'USDC'),
        fromBlock: startBlock,
        toBlock: 'latest',
        topics: [topicOf('Transfer(address,address,uint256)'), null, zeroPadValue(customer, 32)],
      });
      assert.deepEqual(transfers.map((t) => t.transactionHash), [inFlight[0]!.tx_hash], 'exactly one refund transfer on chain, the one signed before the crash');
      assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), 6_000_000n);
    } finally {
      await api.close();
    }
  });
});
