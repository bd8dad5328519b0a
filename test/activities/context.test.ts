/**
 * The activities that use their Temporal context (heartbeats, cancellation, attempt numbers), run in
 * MockActivityEnvironment against the real devnet and database of the test stack.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { CancelledFailure } from '@temporalio/common';
import { getAddress } from 'ethers';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createChainWaitActivities, createActivities, type ActivityDeps } from '../../activities';
import { createOrderActivities } from '../../activities/orders';
import { createWatcherActivities } from '../../activities/watcher';
import type { DetectedPayin } from '../../domain/payins';
import type { OrderCallbackAttemptRow, OrderRow } from '../../db/tables';
import { findChainCursor } from '../../db/queries/chain-cursors';
import { createLogger } from '../../lib/logger';
import type { Stack } from '../../scripts/stack';
import { createPayment, paymentBody } from '../support/api';
import { customerTransfer, providerFor, tokenAddress } from '../support/chain';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

/** Runs `work` as an activity in `env`'s context (typed: the SDK cannot infer the result of a closure). */
const inContext = <R>(env: MockActivityEnvironment, work: () => Promise<R>): Promise<R> => env.run<[], R, () => Promise<R>>(work);

describe('activities in their context (MockActivityEnvironment, real devnet and database)', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let deps: ActivityDeps;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    deps = {
      knex: services.knex,
      chains: services.chains,
      temporal: { client: services.client, taskQueue: stack.config.temporal.taskQueue },
      latePayinWindowMs: 60_000,
      log: createLogger('silent', 'test'),
      webhooks: { allowPrivateNetworks: true, timeoutMs: 2_000 },
      orders: { feeBps: 50, publicBaseUrl: stack.api.publicBaseUrl, allowPrivateCallbackTargets: true },
    };
  });
  after(async () => services?.close());

  /** A real USDC transfer to a fresh address, as the watcher would have seen it. */
  async function realPayin(): Promise<DetectedPayin> {
    const to = '0x' + randomUUID().replaceAll('-', '').padEnd(40, '0').slice(0, 40);
    const txHash = await customerTransfer(stack.info, 8453, 'USDC', to, '1.5');
    const receipt = await providerFor(stack.info, 8453).getTransactionReceipt(txHash);
    const log = receipt!.logs.find((l) => l.address.toLowerCase() === tokenAddress(stack.info, 8453, 'USDC').toLowerCase())!;
    return {
      chainId: 8453,
      txHash,
      logIndex: log.index,
      blockNumber: receipt!.blockNumber,
      tokenAddress: tokenAddress(stack.info, 8453, 'USDC'),
      from: stack.info.customer.address,
      to: getAddress(to),
      amountUnits: '1500000',
    };
  }

  it('awaitPayinConfirmation heartbeats while it waits, and confirms the payin by its identity at the finality depth', async () => {
    const env = new MockActivityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => heartbeats++);
    const payin = await realPayin();
    const waits = createChainWaitActivities(deps);
    const result = await inContext(env, () => waits.awaitPayinConfirmation({ paymentId: randomUUID(), payin, depth: 'finality' }));
    assert.equal(result.outcome, 'confirmed');
    assert.deepEqual(result.outcome === 'confirmed' && [result.payin.txHash, result.payin.logIndex, result.payin.amountUnits], [payin.txHash, payin.logIndex, '1500000']);
    assert.ok(heartbeats >= 2, `it heartbeat on every poll while waiting for the finality depth (${heartbeats})`);
  });

  it('awaitPayinConfirmation answers dropped for a payin at another log index of the same transaction (a different payin)', async () => {
    const payin = await realPayin();
    const waits = createChainWaitActivities(deps);
    const result = await inContext(new MockActivityEnvironment(), () => waits.awaitPayinConfirmation({ paymentId: randomUUID(), payin: { ...payin, logIndex: payin.logIndex + 1 } }));
    assert.equal(result.outcome, 'dropped');
  });

  it('awaitPayinConfirmation answers dropped for a transaction the node has never known, after a few polls', async () => {
    const env = new MockActivityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => heartbeats++);
    const ghost = { ...(await realPayin()), txHash: `0x${'ab'.repeat(32)}` };
    const waits = createChainWaitActivities(deps);
    assert.equal((await inContext(env, () => waits.awaitPayinConfirmation({ paymentId: randomUUID(), payin: ghost }))).outcome, 'dropped');
    assert.ok(heartbeats >= 3);
  });

  it('awaitChainTx fails at once for an intent never signed, and stops when its activity is cancelled', async () => {
    const waits = createChainWaitActivities(deps);
    const env = new MockActivityEnvironment();
    const waiting = inContext(env, () => waits.awaitChainTx({ intentKey: `payout:${randomUUID()}`, depth: 'confirmations' }));
    // The intent does not exist: the activity fails at once rather than waiting (nothing was ever signed for it).
    await assert.rejects(waiting, /no chain transaction stored/);
    const payment = await createPayment(stack.info.paymentApiUrl, stack.info.demoMerchant.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '8453', amount: '2' }));
    const writes = createActivities(deps);
    const tx = await inContext(new MockActivityEnvironment(), () =>
      writes.sweepDeposit({
        intentKey: `context-test:${payment.id}`,
        paymentId: payment.id,
        chainId: 8453,
        tokenAddress: tokenAddress(stack.info, 8453, 'USDC'),
        recipient: { kind: 'treasury' },
        amountUnits: '0',
        purpose: 'context test (empty sweep)',
      }),
    );
    const slow = new MockActivityEnvironment();
    const finality = inContext(slow, () => waits.awaitChainTx({ intentKey: tx.intentKey, depth: 'finality' }));
    setTimeout(() => slow.cancel(), 200);
    await assert.rejects(finality, CancelledFailure);
  });

  it('scanChain heartbeats between its reads and moves the chain cursor', async () => {
    const env = new MockActivityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => heartbeats++);
    const watcher = createWatcherActivities(deps);
    const result = await inContext(env, () => watcher.scanChain({ chainId: 42161, maxBlocks: 50 }));
    assert.ok(heartbeats >= 2, `heartbeats: ${heartbeats}`);
    assert.ok(result.range);
    assert.equal((await findChainCursor({ knex: services.knex, chainId: 42161 }))!.blockNumber >= result.range.toBlock, true);
  });

  it('deliverOrderCallback logs each attempt under the attempt number of its context, and fails (to be retried) on a non-2xx', async () => {
    const server: Server = createServer((_req, res) => res.writeHead(503).end('busy'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const order = await services
        .knex<OrderRow>('orders')
        .insert({
          id: randomUUID(),
          app_id: stack.info.demoMerchant.appId,
          price_amount: '5',
          price_currency: 'USD',
          currency_options: ['USDC_BASE'],
          callback_url: `http://127.0.0.1:${port}/cb`,
          expires_at: new Date(Date.now() + 3_600_000),
        })
        .returning('id');
      const orderId = order[0]!.id;
      const callbackId = randomUUID();
      const env = new MockActivityEnvironment({ attempt: 3 });
      const orders = createOrderActivities(deps);
      await assert.rejects(inContext(env, () => orders.deliverOrderCallback({ orderId, callbackId, status: 'expired' })), /attempt 3 .* answered HTTP 503/);
      const [logged] = await services.knex<OrderCallbackAttemptRow>('order_callback_attempts').where({ callback_id: callbackId });
      assert.deepEqual([logged?.attempt, logged?.status_code, logged?.response_preview], [3, 503, 'busy']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
