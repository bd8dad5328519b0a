/**
 * The payment workflow against faked activities on a local Temporal dev server (real time, no time skipping).
 * The fakes in ./harness simulate the chain; payins arrive as `payinDetected` signals, as from the chain watcher.
 */
import assert from 'node:assert/strict';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { paymentWorkflow } from '../../workflows';
import { payinDetectedSignal, paymentStateQuery } from '../../workflows/messages';
import { PaymentStatusKey } from '../../workflows/search-attributes';
import type { DetectedPayin, PaymentStatus, PaymentWorkflowInput } from '../../workflows/types';
import {
  CONFIRMED_AT,
  CUSTOMER_ADDRESS,
  DESTINATION_CHAIN_ID,
  DESTINATION_TOKEN,
  FEE_UNITS,
  MERCHANT_ADDRESS,
  OTHER_SENDER_ADDRESS,
  OTHER_TOKEN,
  PAYOUT_UNITS,
  REQUIRED_UNITS,
  SOURCE_CHAIN_ID,
  SOURCE_TOKEN,
  FakeActivities,
  bundleWorkflows,
  createTestEnv,
  detectedPayin,
  paymentInput,
  runPayment,
  txHashOf,
  type ActivityCall,
  type PaymentInputOptions,
} from './harness';

type PaymentHandle = WorkflowHandle<typeof paymentWorkflow>;

describe('payment workflow (mocked activities)', function () {
  this.timeout(30_000);

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

  /** A payment with a unique id, so tests never share a workflow id or task queue. */
  function newInput(opts: Omit<PaymentInputOptions, 'paymentId'> = {}): PaymentWorkflowInput {
    return paymentInput({ paymentId: `pay_${Date.now().toString(36)}_${++seq}`, ...opts });
  }

  function run<T>(fakes: FakeActivities, input: PaymentWorkflowInput, body: (handle: PaymentHandle) => Promise<T>): Promise<T> {
    return runPayment({ env, workflowBundle, fakes, input, body });
  }

  async function searchStatus(handle: PaymentHandle): Promise<string | undefined> {
    return (await handle.describe()).typedSearchAttributes.get(PaymentStatusKey);
  }

  const confirmed = (payin: DetectedPayin) => ({ ...payin, confirmedAt: CONFIRMED_AT });
  const payinFields = (payin: DetectedPayin) => ({
    senderAddress: payin.from,
    txHash: payin.txHash,
    amountReceivedUnits: payin.amountUnits,
    confirmedAt: CONFIRMED_AT,
  });

  const sweepToTreasury = (input: PaymentWorkflowInput) => ({
    name: 'sweepDeposit',
    input: {
      intentKey: `sweep:${input.paymentId}`,
      paymentId: input.paymentId,
      chainId: SOURCE_CHAIN_ID,
      tokenAddress: SOURCE_TOKEN,
      recipient: { kind: 'treasury' },
      amountUnits: REQUIRED_UNITS,
      purpose: 'payin to treasury',
    },
  }) satisfies ActivityCall;
  const refundFromDeposit = (input: PaymentWorkflowInput, payin: DetectedPayin, amountUnits: string, reason: string) => ({
    name: 'sweepDeposit',
    input: {
      intentKey: `refund:${input.paymentId}:${payin.txHash}:${payin.logIndex}`,
      paymentId: input.paymentId,
      chainId: SOURCE_CHAIN_ID,
      tokenAddress: payin.tokenAddress,
      recipient: { kind: 'address', address: payin.from },
      amountUnits,
      purpose: `refund (${reason})`,
    },
  }) satisfies ActivityCall;
  const payout = (input: PaymentWorkflowInput) => ({
    name: 'transferFromTreasury',
    input: {
      intentKey: `payout:${input.paymentId}`,
      paymentId: input.paymentId,
      chainId: input.destination.chainId,
      tokenAddress: input.destination.address,
      to: MERCHANT_ADDRESS,
      amountUnits: PAYOUT_UNITS,
      purpose: 'payout to merchant',
    },
  }) satisfies ActivityCall;
  const bridgedUnits = (BigInt(REQUIRED_UNITS) - BigInt(FEE_UNITS)).toString();
  const burn = (input: PaymentWorkflowInput) => ({
    name: 'burnForBridge',
    input: {
      intentKey: `bridge-burn:${input.paymentId}`,
      paymentId: input.paymentId,
      chainId: SOURCE_CHAIN_ID,
      tokenSymbol: 'USDC',
      amountUnits: bridgedUnits,
      destinationChainId: DESTINATION_CHAIN_ID,
    },
  }) satisfies ActivityCall;
  const mint = (input: PaymentWorkflowInput) => ({
    name: 'mintFromBridge',
    input: {
      intentKey: `bridge-mint:${input.paymentId}`,
      paymentId: input.paymentId,
      chainId: DESTINATION_CHAIN_ID,
      tokenSymbol: 'USDC',
      amountUnits: bridgedUnits,
      sourceChainId: SOURCE_CHAIN_ID,
    },
  }) satisfies ActivityCall;

  /** `awaitChainTx` calls in order, as `intentKey@depth`. */
  const awaited = (fakes: FakeActivities) => fakes.callsOf('awaitChainTx').map((c) => `${c.intentKey}@${c.depth}`);

  /** The payin went back to its sender from the deposit address, once, with no webhook event and a `refund` record. */
  function assertRefundedToSender(fakes: FakeActivities, input: PaymentWorkflowInput, payin: DetectedPayin, amountUnits: string, reason: string) {
    assert.deepEqual(fakes.webhookEvents(), [], 'no event for a bounce or refund');
    assert.deepEqual(fakes.chainWrites(), [refundFromDeposit(input, payin, amountUnits, reason)]);
    assert.deepEqual(awaited(fakes), [`refund:${input.paymentId}:${payin.txHash}:0@confirmations`]);
    assert.deepEqual(fakes.callsOf('recordPayin').at(-1), {
      paymentId: input.paymentId,
      payin: confirmed(payin),
      status: 'confirmed',
      disposition: 'refund',
    });
  }

  /** Asserts the workflow's final status three ways: result, query, search attribute. */
  async function assertFinal(handle: PaymentHandle, status: PaymentStatus): Promise<void> {
    assert.equal(await handle.result(), status);
    assert.equal((await handle.query(paymentStateQuery)).status, status);
    assert.equal(await searchStatus(handle), status);
  }

  const COMPLETED_PATH: PaymentStatus[] = [
    'payment_started',
    'payment_payin_completed',
    'payment_payout_started',
    'payment_payout_completed',
    'payment_completed',
  ];
  const BOTH_EVENTS = ['payment_payin_completed', 'payment_payout_completed'];

  /**
   * The activities the workflow scheduled, in command order as its history records them (the fakes see
   * concurrently scheduled activities in any order). Transitions and webhook events are labelled.
   */
  async function scheduledActivities(handle: PaymentHandle): Promise<string[]> {
    const { events } = await handle.fetchHistory();
    return (events ?? []).flatMap((event) => {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (!scheduled) return [];
      const name = scheduled.activityType?.name;
      const arg = JSON.parse(Buffer.from(scheduled.input?.payloads?.[0]?.data ?? []).toString()) as { status?: string; eventType?: string };
      if (name === 'recordPaymentTransition') return [`→ ${arg.status}`];
      if (name === 'deliverWebhook') return [`webhook ${arg.eventType}`];
      return [name ?? '?'];
    });
  }

  /** Ids of the patches (`patched()`) the run recorded. */
  async function recordedPatches(handle: PaymentHandle): Promise<string[]> {
    const { events } = await handle.fetchHistory();
    return (events ?? []).flatMap((event) => {
      const marker = event.markerRecordedEventAttributes;
      if (marker?.markerName !== 'core_patch') return [];
      const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
      return [(JSON.parse(Buffer.from(data ?? []).toString()) as { id: string }).id];
    });
  }

  it('same chain: pays out destination.amountUnits after sweeping exactly the required amount to the treasury', async () => {
    const fakes = new FakeActivities();
    const input = newInput();
    const payin = detectedPayin({ tx: `${input.paymentId}-a` });
    await run(fakes, input, async (handle) => {
      assert.deepEqual(await handle.query(paymentStateQuery), { status: 'payment_unpaid', payins: [] });
      assert.equal(await searchStatus(handle), 'payment_unpaid');

      await handle.signal(payinDetectedSignal, payin);
      await assertFinal(handle, 'payment_completed');

      assert.deepEqual(fakes.statuses(), COMPLETED_PATH);
      const transitions = fakes.transitions();
      assert.deepEqual(transitions[1], { paymentId: input.paymentId, status: 'payment_payin_completed', payin: payinFields(payin) });
      assert.deepEqual(transitions[3], {
        paymentId: input.paymentId,
        status: 'payment_payout_completed',
        payout: { txHash: txHashOf(`payout:${input.paymentId}`), confirmedAt: CONFIRMED_AT },
      });
      assert.deepEqual(fakes.chainWrites(), [sweepToTreasury(input), payout(input)]);
      assert.deepEqual(awaited(fakes), [
        `sweep:${input.paymentId}@confirmations`,
        `payout:${input.paymentId}@confirmations`,
        `payout:${input.paymentId}@finality`,
      ]);
      assert.deepEqual(fakes.callsOf('recordPayin'), [
        { paymentId: input.paymentId, payin, status: 'detected' },
        { paymentId: input.paymentId, payin: confirmed(payin), status: 'confirmed' },
        { paymentId: input.paymentId, payin: confirmed(payin), status: 'confirmed', disposition: 'payment' },
      ]);
      assert.deepEqual(fakes.callsOf('extendDepositWatch'), [{ paymentId: input.paymentId, windowMs: input.latePayinWindowMs }]);
      assert.deepEqual(await handle.query(paymentStateQuery), { status: 'payment_completed', payins: [{ ...confirmed(payin), state: 'paid' }] });

      // One event right after each of the two transitions that have one (spec 3), never waited for on the way.
      assert.deepEqual(fakes.callsOf('deliverWebhook'), [
        { paymentId: input.paymentId, eventType: 'payment_payin_completed' },
        { paymentId: input.paymentId, eventType: 'payment_payout_completed' },
      ]);
      assert.deepEqual(await scheduledActivities(handle), [
        '→ payment_started',
        'recordPayin',
        'awaitPayinConfirmation',
        'recordPayin',
        '→ payment_payin_completed',
        'webhook payment_payin_completed',
        'recordPayin',
        'sweepDeposit',
        'awaitChainTx',
        '→ payment_payout_started',
        'transferFromTreasury',
        'awaitChainTx',
        '→ payment_payout_completed',
        'webhook payment_payout_completed',
        'awaitChainTx',
        '→ payment_completed',
        'extendDepositWatch',
      ]);
      // New runs take the webhook path under its patch; runs recorded before it replay without (test/replay).
      assert.deepEqual(await recordedPatches(handle), ['webhook-events']);
    });
  });

  it('matches the payin token to the payment token case-insensitively', async () => {
    const fakes = new FakeActivities();
    const input = newInput();
    const payin = detectedPayin({ tx: `${input.paymentId}-a`, tokenAddress: SOURCE_TOKEN.toLowerCase() });
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, payin);
      await assertFinal(handle, 'payment_completed');
      assert.deepEqual(fakes.statuses(), COMPLETED_PATH);
      assert.deepEqual(fakes.chainWrites(), [sweepToTreasury(input), payout(input)]);
    });
  });

  it('cross chain: bridges required − fee (burn, then mint) before the payout on the destination chain', async () => {
    const fakes = new FakeActivities();
    const input = newInput({ crossChain: true });
    const payin = detectedPayin({ tx: `${input.paymentId}-a` });
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, payin);
      await assertFinal(handle, 'payment_completed');

      assert.deepEqual(fakes.statuses(), [
        'payment_started',
        'payment_payin_completed',
        'payment_bridging',
        'payment_payout_started',
        'payment_payout_completed',
        'payment_completed',
      ]);
      assert.deepEqual(fakes.chainWrites(), [sweepToTreasury(input), burn(input), mint(input), payout(input)]);
      assert.equal(payout(input).input.chainId, DESTINATION_CHAIN_ID);
      assert.equal(payout(input).input.tokenAddress, DESTINATION_TOKEN);
      // The mint waits for the burn's confirmations, the payout for the mint's.
      const order = fakes.calls
        .filter((c) => !['recordPaymentTransition', 'recordPayin', 'deliverWebhook'].includes(c.name))
        .map((c) => (c.name === 'awaitChainTx' ? `await ${c.input.intentKey}@${c.input.depth}` : c.name));
      assert.deepEqual(order, [
        'awaitPayinConfirmation',
        'sweepDeposit',
        `await sweep:${input.paymentId}@confirmations`,
        'burnForBridge',
        `await bridge-burn:${input.paymentId}@confirmations`,
        'mintFromBridge',
        `await bridge-mint:${input.paymentId}@confirmations`,
        'transferFromTreasury',
        `await payout:${input.paymentId}@confirmations`,
        `await payout:${input.paymentId}@finality`,
        'extendDepositWatch',
      ]);
      assert.deepEqual(fakes.webhookEvents(), BOTH_EVENTS);
    });
  });

  it('expires when nothing arrives before expiresAt', async () => {
    const fakes = new FakeActivities();
    const input = newInput({ expiresInMs: 2_000 });
    await run(fakes, input, async (handle) => {
      await assertFinal(handle, 'payment_expired');
      assert.ok(Date.now() >= Date.parse(input.expiresAt), 'expired before expiresAt');
      assert.deepEqual(fakes.statuses(), ['payment_expired']);
      assert.deepEqual(fakes.chainWrites(), []);
      assert.deepEqual(fakes.callsOf('awaitPayinConfirmation'), []);
      assert.deepEqual(fakes.callsOf('extendDepositWatch'), [{ paymentId: input.paymentId, windowMs: input.latePayinWindowMs }]);
      assert.deepEqual(fakes.webhookEvents(), [], 'no event for an expiry');
      assert.deepEqual(await recordedPatches(handle), [], 'a run that sends no event records no patch');
    });
  });

  it('expires at once when started after expiresAt (a payment whose workflow the reconciler starts late)', async () => {
    const fakes = new FakeActivities();
    const input = newInput({ expiresInMs: -60_000 });
    await run(fakes, input, async (handle) => {
      await assertFinal(handle, 'payment_expired');
      assert.deepEqual(fakes.statuses(), ['payment_expired']);
      assert.deepEqual(fakes.chainWrites(), []);
    });
  });

  it('refunds the full amount of a payin that arrives after expiry: expired → bounced → refunded', async () => {
    const fakes = new FakeActivities();
    const input = newInput({ expiresInMs: 2_000, latePayinWindowMs: 1_000 });
    const payin = detectedPayin({ tx: `${input.paymentId}-late` });
    await run(fakes, input, async (handle) => {
      // Signalled while the workflow opens its late-payin window, i.e. after it recorded the expiry.
      let statusWhenSignalled: string | undefined;
      fakes.onExtendDepositWatch = async () => {
        statusWhenSignalled ??= await searchStatus(handle);
        await handle.signal(payinDetectedSignal, payin);
      };
      await assertFinal(handle, 'payment_refunded');
      assert.equal(statusWhenSignalled, 'payment_expired');
      assert.deepEqual(fakes.statuses(), ['payment_expired', 'payment_bounced', 'payment_refunded']);
      assertRefundedToSender(fakes, input, payin, REQUIRED_UNITS, 'late payin');
    });
  });

  it('honours a payin detected before expiry even if it confirms after expiresAt', async () => {
    const fakes = new FakeActivities();
    const input = newInput({ expiresInMs: 1_500 });
    const payin = detectedPayin({ tx: `${input.paymentId}-a` });
    const release = fakes.holdConfirmations();
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, payin);
      await fakes.reached('payment_started');
      await new Promise((resolve) => setTimeout(resolve, Date.parse(input.expiresAt) - Date.now() + 500));
      release();
      await assertFinal(handle, 'payment_completed');
      assert.deepEqual(fakes.statuses(), COMPLETED_PATH);
    });
  });

  it('bounces an underpayment and refunds the full amount to the sender', async () => {
    const fakes = new FakeActivities();
    const input = newInput();
    const payin = detectedPayin({ tx: `${input.paymentId}-a`, amountUnits: '9999999' });
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, payin);
      await assertFinal(handle, 'payment_refunded');
      assert.deepEqual(fakes.statuses(), ['payment_started', 'payment_bounced', 'payment_refunded']);
      assert.deepEqual(fakes.transitions()[1], { paymentId: input.paymentId, status: 'payment_bounced', payin: payinFields(payin) });
      assertRefundedToSender(fakes, input, payin, '9999999', 'underpaid');
    });
  });

  it('bounces a payin in the wrong token and refunds it in that token', async () => {
    const fakes = new FakeActivities();
    const input = newInput({ crossChain: true });
    const payin = detectedPayin({ tx: `${input.paymentId}-a`, tokenAddress: OTHER_TOKEN, amountUnits: '25000000' });
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, payin);
      await assertFinal(handle, 'payment_refunded');
      assert.deepEqual(fakes.statuses(), ['payment_started', 'payment_bounced', 'payment_refunded']);
      assert.deepEqual(fakes.chainWrites(), [refundFromDeposit(input, payin, '25000000', 'wrong token')]);
      assert.equal(fakes.chainWrites()[0]?.input.tokenAddress, OTHER_TOKEN);
      assert.deepEqual(fakes.webhookEvents(), []);
    });
  });

  it('completes an overpayment and refunds the excess to the sender', async () => {
    const fakes = new FakeActivities();
    const input = newInput();
    const received = (BigInt(REQUIRED_UNITS) + 1_234_567n).toString();
    const payin = detectedPayin({ tx: `${input.paymentId}-a`, amountUnits: received });
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, payin);
      await assertFinal(handle, 'payment_completed');
      assert.deepEqual(fakes.statuses(), COMPLETED_PATH);
      assert.deepEqual(fakes.transitions()[1]?.payin?.amountReceivedUnits, received);
      assert.deepEqual(fakes.chainWrites(), [
        sweepToTreasury(input),
        refundFromDeposit(input, payin, '1234567', 'overpayment excess'),
        payout(input),
      ]);
      assert.deepEqual(awaited(fakes), [
        `refund:${input.paymentId}:${payin.txHash}:0@confirmations`,
        `sweep:${input.paymentId}@confirmations`,
        `payout:${input.paymentId}@confirmations`,
        `payout:${input.paymentId}@finality`,
      ]);
    });
  });

  it('goes back to unpaid when a reorg drops the detected payin, then completes on a real payin', async () => {
    const fakes = new FakeActivities();
    const input = newInput();
    const ghost = detectedPayin({ tx: `${input.paymentId}-ghost` });
    const real = detectedPayin({ tx: `${input.paymentId}-real`, blockNumber: 105 });
    fakes.scriptConfirmation(ghost, 'dropped');
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, ghost);
      await fakes.reached('payment_unpaid');
      assert.deepEqual(fakes.statuses(), ['payment_started', 'payment_unpaid']);
      assert.deepEqual(await handle.query(paymentStateQuery), { status: 'payment_unpaid', payins: [{ ...ghost, state: 'dropped' }] });
      assert.equal(await searchStatus(handle), 'payment_unpaid');
      assert.deepEqual(fakes.callsOf('recordPayin').at(-1), { paymentId: input.paymentId, payin: ghost, status: 'dropped' });
      assert.deepEqual(fakes.chainWrites(), []);

      await handle.signal(payinDetectedSignal, real);
      await assertFinal(handle, 'payment_completed');
      assert.deepEqual(fakes.statuses(), ['payment_started', 'payment_unpaid', ...COMPLETED_PATH]);
      assert.deepEqual(fakes.transitions()[3]?.payin, payinFields(real));
      assert.deepEqual(fakes.chainWrites(), [sweepToTreasury(input), payout(input)]);
      assert.deepEqual(
        fakes.callsOf('awaitPayinConfirmation').map((c) => c.payin.txHash),
        [ghost.txHash, real.txHash],
      );
      assert.deepEqual(await handle.query(paymentStateQuery), {
        status: 'payment_completed',
        payins: [
          { ...ghost, state: 'dropped' },
          { ...confirmed(real), state: 'paid' },
        ],
      });
    });
  });

  it('accepts a dropped payin again when the watcher re-sends it after the reorg', async () => {
    const fakes = new FakeActivities();
    const input = newInput();
    const payin = detectedPayin({ tx: `${input.paymentId}-a` });
    fakes.scriptConfirmation(payin, 'dropped');
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, payin);
      await fakes.reached('payment_unpaid');
      await handle.signal(payinDetectedSignal, { ...payin, blockNumber: payin.blockNumber + 2 });
      await assertFinal(handle, 'payment_completed');
      assert.deepEqual(fakes.statuses(), ['payment_started', 'payment_unpaid', ...COMPLETED_PATH]);
      assert.equal(fakes.callsOf('awaitPayinConfirmation').length, 2);
    });
  });

  it('counts a payin re-mined at another log index once, when the watcher re-sends it', async () => {
    const fakes = new FakeActivities();
    const input = newInput();
    const payin = detectedPayin({ tx: `${input.paymentId}-a`, logIndex: 0 });
    const remined = { ...payin, logIndex: 3, blockNumber: payin.blockNumber + 1 };
    fakes.remined.set(`${payin.txHash}:0`, 3);
    await run(fakes, input, async (handle) => {
      fakes.onExtendDepositWatch = () => handle.signal(payinDetectedSignal, remined);
      await handle.signal(payinDetectedSignal, payin);
      await assertFinal(handle, 'payment_completed');
      assert.equal(fakes.callsOf('awaitPayinConfirmation').length, 1);
      assert.deepEqual(fakes.chainWrites(), [sweepToTreasury(input), payout(input)], 'paid once, never refunded');
    });
  });

  it('fails visibly, naming the transaction, when a sweep reverts, and never pays out', async () => {
    const fakes = new FakeActivities();
    const input = newInput();
    fakes.reverted.add(`sweep:${input.paymentId}`);
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, detectedPayin({ tx: `${input.paymentId}-a` }));
      const failure = await handle.result().then(
        () => assert.fail('the workflow must fail'),
        (err: unknown) => err,
      );
      assert.ok(failure instanceof WorkflowFailedError);
      assert.ok(failure.cause instanceof ApplicationFailure);
      assert.equal(failure.cause.type, 'ChainTxReverted');
      assert.match(failure.cause.message, new RegExp(`sweep:${input.paymentId}`));
      assert.deepEqual(fakes.statuses(), ['payment_started', 'payment_payin_completed']);
      assert.deepEqual(fakes.chainWrites(), [sweepToTreasury(input)]);
      assert.deepEqual(fakes.webhookEvents(), ['payment_payin_completed'], 'the payin was completed, and said so');
    });
  });

  it('bounces when the payout reverts and refunds the required amount from the source-chain treasury', async () => {
    const fakes = new FakeActivities();
    const input = newInput({ crossChain: true });
    const payin = detectedPayin({ tx: `${input.paymentId}-a` });
    fakes.reverted.add(`payout:${input.paymentId}`);
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, payin);
      await assertFinal(handle, 'payment_refunded');
      assert.deepEqual(fakes.statuses(), [
        'payment_started',
        'payment_payin_completed',
        'payment_bridging',
        'payment_payout_started',
        'payment_bounced',
        'payment_refunded',
      ]);
      assert.deepEqual(fakes.chainWrites(), [
        sweepToTreasury(input),
        burn(input),
        mint(input),
        payout(input),
        {
          name: 'transferFromTreasury',
          input: {
            intentKey: `refund-from-treasury:${input.paymentId}`,
            paymentId: input.paymentId,
            chainId: SOURCE_CHAIN_ID,
            tokenAddress: SOURCE_TOKEN,
            to: CUSTOMER_ADDRESS,
            amountUnits: REQUIRED_UNITS,
            purpose: 'refund (payout reverted)',
          },
        } satisfies ActivityCall,
      ]);
      // A reverted payout is never waited on to finality.
      assert.ok(!awaited(fakes).some((a) => a.endsWith('@finality')));
      assert.ok(!fakes.statuses().includes('payment_payout_completed'));
      assert.deepEqual(fakes.webhookEvents(), ['payment_payin_completed'], 'no event for the bounce and refund after it');
    });
  });

  it('ignores a duplicate signal for the same payin (one confirmation), also after completion', async () => {
    const fakes = new FakeActivities();
    const input = newInput({ latePayinWindowMs: 500 });
    const payin = detectedPayin({ tx: `${input.paymentId}-a` });
    const release = fakes.holdConfirmations();
    await run(fakes, input, async (handle) => {
      fakes.onExtendDepositWatch = () => handle.signal(payinDetectedSignal, payin);
      await handle.signal(payinDetectedSignal, payin);
      await handle.signal(payinDetectedSignal, payin);
      await fakes.reached('payment_started');
      await handle.signal(payinDetectedSignal, payin);
      release();
      await assertFinal(handle, 'payment_completed');
      assert.equal(fakes.callsOf('awaitPayinConfirmation').length, 1);
      assert.equal(fakes.callsOf('recordPayin').filter((c) => c.status === 'detected').length, 1);
      assert.deepEqual(fakes.statuses(), COMPLETED_PATH);
      assert.deepEqual(fakes.chainWrites(), [sweepToTreasury(input), payout(input)]);
      assert.deepEqual((await handle.query(paymentStateQuery)).payins, [{ ...confirmed(payin), state: 'paid' }]);
    });
  });

  it('refunds a second payin that arrives after completion; the status stays payment_completed', async () => {
    const fakes = new FakeActivities();
    const input = newInput({ latePayinWindowMs: 1_000 });
    const first = detectedPayin({ tx: `${input.paymentId}-a` });
    const second = detectedPayin({ tx: `${input.paymentId}-b`, logIndex: 3, amountUnits: '4000000', from: OTHER_SENDER_ADDRESS });
    await run(fakes, input, async (handle) => {
      let statusWhenSignalled: string | undefined;
      fakes.onExtendDepositWatch = async () => {
        statusWhenSignalled ??= await searchStatus(handle);
        await handle.signal(payinDetectedSignal, second);
      };
      await handle.signal(payinDetectedSignal, first);
      await assertFinal(handle, 'payment_completed');
      assert.equal(statusWhenSignalled, 'payment_completed');
      assert.deepEqual(fakes.statuses(), COMPLETED_PATH);
      assert.deepEqual(fakes.chainWrites(), [sweepToTreasury(input), payout(input), refundFromDeposit(input, second, '4000000', 'late payin')]);
      assert.deepEqual(fakes.webhookEvents(), BOTH_EVENTS, 'no event for the late payin refund');
      assert.equal(awaited(fakes).at(-1), `refund:${input.paymentId}:${second.txHash}:3@confirmations`);
      assert.deepEqual(fakes.callsOf('recordPayin').at(-1), {
        paymentId: input.paymentId,
        payin: confirmed(second),
        status: 'confirmed',
        disposition: 'refund',
      });
      assert.deepEqual((await handle.query(paymentStateQuery)).payins, [
        { ...confirmed(first), state: 'paid' },
        { ...confirmed(second), state: 'refunded' },
      ]);
    });
  });

  it('never holds the payout for a webhook delivery, but ends only once every delivery has ended', async () => {
    const fakes = new FakeActivities();
    const input = newInput({ latePayinWindowMs: 200 });
    const release = fakes.holdWebhooks();
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, detectedPayin({ tx: `${input.paymentId}-a` }));
      await fakes.reached('payment_completed');
      assert.deepEqual(fakes.webhookEvents(), BOTH_EVENTS, 'both deliveries started while the first one still hangs');
      // Past the late-payin window: the lifecycle is over, the deliveries are not.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      assert.equal((await handle.describe()).status.name, 'RUNNING');
      release();
      await assertFinal(handle, 'payment_completed');
    });
  });

  it('completes the payment when a delivery cannot even be attempted', async () => {
    const fakes = new FakeActivities();
    fakes.failWebhooks = true;
    const input = newInput();
    await run(fakes, input, async (handle) => {
      await handle.signal(payinDetectedSignal, detectedPayin({ tx: `${input.paymentId}-a` }));
      await assertFinal(handle, 'payment_completed');
      assert.deepEqual(fakes.webhookEvents(), BOTH_EVENTS);
      assert.deepEqual(fakes.statuses(), COMPLETED_PATH);
    });
  });
});
