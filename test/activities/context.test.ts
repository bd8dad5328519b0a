/**
 * The activities that use their Temporal context (heartbeats, cancellation, attempt numbers), run in
 * MockActivityEnvironment against the real devnet and database of the test stack.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { CancelledFailure } from '@temporalio/common';
import { getAddress, parseUnits } from 'ethers';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createChainWaitActivities, createActivities, type ActivityDeps } from '../../activities';
import { heartbeatEvery } from '../../activities/chain';
import { createOrderActivities } from '../../activities/orders';
import { createWatcherActivities } from '../../activities/watcher';
import { intentKeys } from '../../domain/chain-txs';
import type { DetectedPayin } from '../../domain/payins';
import type { OrderCallbackAttemptRow, OrderRow } from '../../db/tables';
import { advanceChainCursor, findChainCursor } from '../../db/queries/chain-cursors';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer, providerFor, tokenAddress } from '../support/chain';
import { eventually } from '../support/poll';
import { activityDeps, connectServices, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { findPaymentById } from '../../db/queries/payments';
import { findChainTx } from '../../db/queries/chain-txs';
import { createChainTxService, type IntentCheck } from '../../services/chain-txs';

/** A check's result without its block time. */
const pick = (check: IntentCheck) => ('txHash' in check ? { intentKey: check.intentKey, txHash: check.txHash, blockNumber: check.blockNumber, succeeded: check.succeeded } : check);

/** Runs `work` as an activity in `env`'s context (typed: the SDK cannot infer the result of a closure). */
const inContext = <R>(env: MockActivityEnvironment, work: () => Promise<R>): Promise<R> => env.run<[], R, () => Promise<R>>(work);

describe('activities in their context (MockActivityEnvironment, real devnet and database)', function () {
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
    deps = activityDeps(stack, services, 60_000);
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
      from: stack.info.customer.evm.address,
      to: getAddress(to),
      amountUnits: '1500000',
    };
  }

  it('a wait heartbeats once its interval has passed since it began or last beat, never at once', async () => {
    const env = new MockActivityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => heartbeats++);
    await inContext(env, async () => {
      const heartbeatWhenDue = heartbeatEvery(100);
      heartbeatWhenDue();
      assert.equal(heartbeats, 0, 'no beat as the wait begins: most waits end within a few blocks');
      await delay(120);
      heartbeatWhenDue();
      heartbeatWhenDue();
      assert.equal(heartbeats, 1, 'one beat once the interval has passed');
      await delay(120);
      heartbeatWhenDue();
      assert.equal(heartbeats, 2, 'and one per interval after it');
    });
  });

  it('awaitPayinConfirmation confirms the payin by its identity at the finality depth', async () => {
    const payin = await realPayin();
    const waits = createChainWaitActivities(deps);
    const result = await inContext(new MockActivityEnvironment(), () => waits.awaitPayinConfirmation({ paymentId: randomUUID(), payin, depth: 'finality' }));
    assert.equal(result.outcome, 'confirmed');
    assert.deepEqual(result.outcome === 'confirmed' && [result.payin.txHash, result.payin.logIndex, result.payin.amountUnits], [payin.txHash, payin.logIndex, '1500000']);
  });

  it('awaitPayinConfirmation answers dropped for a payin at another log index of the same transaction (a different payin)', async () => {
    const payin = await realPayin();
    const waits = createChainWaitActivities(deps);
    const result = await inContext(new MockActivityEnvironment(), () => waits.awaitPayinConfirmation({ paymentId: randomUUID(), payin: { ...payin, logIndex: payin.logIndex + 1 }, depth: 'confirmations' }));
    assert.equal(result.outcome, 'dropped');
  });

  it('awaitPayinConfirmation answers dropped for a transaction the node has never known, after a few polls', async () => {
    const ghost = { ...(await realPayin()), txHash: `0x${'ab'.repeat(32)}` };
    const provider = providerFor(stack.info, 8453);
    const headBefore = await provider.getBlockNumber();
    const waits = createChainWaitActivities(deps);
    assert.equal((await inContext(new MockActivityEnvironment(), () => waits.awaitPayinConfirmation({ paymentId: randomUUID(), payin: ghost, depth: 'confirmations' }))).outcome, 'dropped');
    // Three checks, each at a newer head than the one before: not taken as dropped at the first miss.
    assert.ok((await provider.getBlockNumber()) - headBefore >= 2, 'it looked again at newer blocks before answering');
  });

  it('awaitChainTx fails at once for an intent never signed, and stops when its activity is cancelled; a check of a mined transaction names its block', async () => {
    const waits = createChainWaitActivities(deps);
    const env = new MockActivityEnvironment();
    const waiting = inContext(env, () => waits.awaitChainTx({ intentKey: `payout:${randomUUID()}`, depth: 'confirmations' }));
    // The intent does not exist: the activity fails at once rather than waiting (nothing was ever signed for it).
    await assert.rejects(waiting, /no chain transaction stored/);
    // A transfer is signed only on the payment's terms: the payment's own sweep, once its payin is in.
    const payment = await createPayment(stack.info.paymentApiUrl, shop.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '8453', amount: '2' }));
    await customerTransfer(stack.info, 8453, 'USDC', payment.source.receiverAddress, '2');
    const writes = createActivities(deps);
    const tx = await inContext(new MockActivityEnvironment(), () =>
      writes.sweepDeposit({
        intentKey: intentKeys.sweep(payment.id),
        paymentId: payment.id,
        chainId: 8453,
        tokenAddress: tokenAddress(stack.info, 8453, 'USDC'),
        recipient: { kind: 'treasury' },
        amountUnits: parseUnits('2', 6).toString(),
        purpose: 'payin to treasury',
      }),
    );
    const { txHash } = tx;
    assert.ok(txHash, 'nothing else of the deposit is in flight: the sweep is signed at once');
    const slow = new MockActivityEnvironment();
    const finality = inContext(slow, () => waits.awaitChainTx({ intentKey: tx.intentKey, depth: 'finality' }));
    setTimeout(() => slow.cancel(), 200);
    await assert.rejects(finality, CancelledFailure);
    // Mined, short of depth: the check names the block, so a wait reads nothing more before the head can make it deep enough.
    const receipt = await eventually('the sweep mined', 30_000, async () => (await providerFor(stack.info, 8453).getTransactionReceipt(txHash)) ?? undefined);
    assert.deepEqual(await deps.chains.adapter(8453).checkTx([txHash], 1_000), { state: 'pending', txHash, blockNumber: receipt.blockNumber });
    // The payment pays its merchant: let it settle, so no later test sees that payout.
    await waitForStatus(stack.info.paymentApiUrl, payment.id, 'payment_completed', 120_000);

    // A check handed a mined row back trusts it only while its transaction is mined: a row whose transaction the
    // node has in no block (as after a reorg) is read again, and nothing of it is re-sent.
    const txs = createChainTxService(deps);
    const stored = (await findChainTx({ knex: deps.knex, intentKey: tx.intentKey }))!;
    const mined = { intentKey: tx.intentKey, txHash, blockNumber: receipt.blockNumber, succeeded: true };
    assert.deepEqual(pick(await txs.checkIntent(tx.intentKey, 'confirmations', { chainId: 8453, mined: stored })), mined);
    const gone = { ...stored, tx_hash: '0x' + 'ab'.repeat(32), replaced_tx_hashes: [] };
    assert.deepEqual(pick(await txs.checkIntent(tx.intentKey, 'confirmations', { chainId: 8453, mined: gone })), mined);
  });

  it('a CCTP transfer step by step: awaitBridgeArrival heartbeats while Iris is away, returns the attestation once it is back, and the mint lands', async () => {
    const payment = await createPayment(stack.info.paymentApiUrl, shop.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '42161', amount: '2' }));
    const writes = createActivities(deps);
    const waits = createChainWaitActivities(deps);
    const step = <R>(work: () => Promise<R>) => inContext(new MockActivityEnvironment(), work);
    const landed = async (tx: { intentKey: string } | null) => {
      assert.ok(tx);
      const result = await step(() => waits.awaitChainTx({ intentKey: tx.intentKey, depth: 'confirmations' }));
      assert.equal(result.succeeded, true, tx.intentKey);
      return result;
    };
    // What the payment bridges: its amount less its fee (the money terms refuse any other burn).
    const row = (await findPaymentById({ knex: deps.knex, id: payment.id }))!;
    const bridged = (BigInt(row.source_amount_units) - BigInt(row.fee_units)).toString();
    const quote = await step(() => writes.quoteBridge({ paymentId: payment.id, sourceChainId: 42161, destinationChainId: 8453, tokenSymbol: 'USDC', amountUnits: bridged }));
    assert.equal(quote.kind, 'cctp');
    // Null once the treasury's standing allowance to TokenMessengerV2 covers the amount (an earlier payment granted it).
    const approval = await step(() => writes.approveBridge({ paymentId: payment.id, quote }));
    if (approval) await landed(approval);
    await stack.devnets.evm.bridges.attestationService.stop();
    let arrival: ReturnType<typeof waits.awaitBridgeArrival> | undefined;
    try {
      const burn = await landed(await step(() => writes.startBridge({ paymentId: payment.id, quote })));
      const env = new MockActivityEnvironment();
      const details: unknown[] = [];
      env.on('heartbeat', (detail: unknown) => details.push(detail));
      arrival = inContext(env, () => waits.awaitBridgeArrival({ paymentId: payment.id, quote, startTxHash: burn.txHash }));
      await eventually('heartbeats naming the unreachable attestation service', 30_000, () =>
        Promise.resolve(details.some((d) => typeof d === 'string' && /GET 127\.0\.0\.1:\d+\/v2\/messages\/\d+ failed: ECONNREFUSED/.test(d)) || undefined));
    } finally {
      await stack.devnets.evm.bridges.attestationService.start();
    }
    const attested = await arrival;
    assert.equal(attested.state, 'attested');
    const mint = await landed(await step(() => writes.finishBridge({ paymentId: payment.id, quote, arrival: attested })));
    const again = await step(() => writes.finishBridge({ paymentId: payment.id, quote, arrival: attested }));
    assert.equal(again?.txHash, mint.txHash, 'a retried finish re-broadcasts the one signed mint');
  });

  it('scanChain heartbeats between its reads and moves the chain cursor', async () => {
    const env = new MockActivityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => heartbeats++);
    const watcher = createWatcherActivities(deps);
    // The stack's own watcher keeps the cursor at the head: step it back, so this scan has blocks to read. That
    // watcher may read the stepped-back cursor first and catch up before this scan starts; then step back again.
    const result = await eventually('a scan that starts behind the head', 30_000, async () => {
      heartbeats = 0;
      const cursor = (await findChainCursor({ knex: services.knex, chainId: 42161 }))!;
      const back = await providerFor(stack.info, 42161).getBlock(Math.max(0, cursor.blockNumber - 60));
      await advanceChainCursor({ knex: services.knex, chainId: 42161, from: cursor, to: { blockNumber: back!.number, blockHash: back!.hash! } });
      const scan = await inContext(env, () => watcher.scanChain({ chainId: 42161, maxBlocks: 50 }));
      return scan.range ? scan : undefined;
    });
    assert.ok(heartbeats >= 2, `heartbeats: ${heartbeats}`);
    assert.ok(result.range);
    assert.equal((await findChainCursor({ knex: services.knex, chainId: 42161 }))!.blockNumber >= result.range.toBlock, true);
  });

  it('scanChain with keepScanningMs goes on scanning (catching up, then pausing) until its time is up, and ends at once when cancelled', async () => {
    const watcher = createWatcherActivities(deps);
    const cursor = (await findChainCursor({ knex: services.knex, chainId: 42161 }))!;
    const provider = providerFor(stack.info, 42161);
    const back = await provider.getBlock(Math.max(0, cursor.blockNumber - 120));
    await advanceChainCursor({ knex: services.knex, chainId: 42161, from: cursor, to: { blockNumber: back!.number, blockHash: back!.hash! } });
    const head = await provider.getBlockNumber();
    const env = new MockActivityEnvironment();
    let heartbeats = 0;
    env.on('heartbeat', () => heartbeats++);
    const started = Date.now();
    // Time for three scans of 50 blocks on a loaded machine, and pauses after them.
    const result = await inContext(env, () => watcher.scanChain({ chainId: 42161, maxBlocks: 50, pollIntervalMs: 200, keepScanningMs: 3_000 }));
    assert.ok(Date.now() - started >= 3_000, 'it scanned for its whole time');
    assert.ok(result.caughtUp, 'the last scan had caught up with the head');
    // Scans of 50 blocks until caught up, then pauses of 200 ms between scans: a heartbeat after each scan.
    assert.ok(heartbeats >= 4, `heartbeats: ${heartbeats}`);
    assert.ok((await findChainCursor({ knex: services.knex, chainId: 42161 }))!.blockNumber >= head, 'scanned up to the head');

    const cancelled = new MockActivityEnvironment();
    const long = inContext(cancelled, () => watcher.scanChain({ chainId: 42161, maxBlocks: 50, pollIntervalMs: 200, keepScanningMs: 60_000 }));
    setTimeout(() => cancelled.cancel(), 500);
    const cancelledAt = Date.now();
    await assert.rejects(long, (err: unknown) => err instanceof CancelledFailure);
    assert.ok(Date.now() - cancelledAt < 5_000, 'a cancelled watch ends at once, not when its time is up');
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
          app_id: shop.appId,
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
