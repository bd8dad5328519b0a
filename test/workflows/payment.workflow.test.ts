/**
 * The payment workflow against faked activities on the time-skipping test server: every branch of a payment run,
 * including the real default payment TTL (30 minutes) passing in moments.
 */
import assert from 'node:assert/strict';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { intentKeys } from '../../domain/chain-txs';
import { payinId, type DetectedPayin } from '../../domain/payins';
import { nextPaymentWriteSequence, sweepWaitMs, type PaymentProgress, type PaymentStatus } from '../../domain/payment';
import type { paymentWorkflow } from '../../workflows';
import { paymentWorkflowId } from '../../workflows/ids';
import { acceptAsPaidUpdate, payinDetectedSignal, paymentStateQuery, retryChainStepSignal } from '../../workflows/messages';
import { activityTypeOf, firstTaskCommands, localActivities } from '../support/history';
import { eventually } from '../support/poll';
import { getTestEnv, getWorkflowBundle } from '../support/temporal';
import {
  CONFIRMED_AT,
  CUSTOMER_ADDRESS,
  DESTINATION_CHAIN_ID,
  DESTINATION_TOKEN,
  FakeActivities,
  type ActivityCall,
  MERCHANT_ADDRESS,
  OTHER_SENDER_ADDRESS,
  OTHER_TOKEN,
  REQUIRED_UNITS,
  SOURCE_CHAIN_ID,
  SOURCE_TOKEN,
  awaitingOperator,
  detectedPayin,
  paymentTerms,
  runWorkflow,
  txHashOf,
  untilServerTimePasses,
  type TermsOptions,
} from './harness';

const { EventType } = temporal.api.enums.v1;

const HAPPY_PATH: PaymentStatus[] = [
  'payment_started',
  'payment_payin_completed',
  'payment_payout_started',
  'payment_payout_completed',
  'payment_completed',
];

describe('payment workflow (mocked activities, time-skipping server)', function () {
  this.timeout(60_000);
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;
  let seq = 0;

  before(async function () {
    this.timeout(180_000);
    [env, workflowBundle] = await Promise.all([getTestEnv(), getWorkflowBundle()]);
  });

  /**
   * Runs one payment with its own fakes; `drive` signals payins; returns the run's result and the fakes.
   * `startDelayed`: started as the API starts it, delayed until its expiry (`drive` wakes it with `signalWithStart`).
   * `whileWorkersDown`: runs before any worker polls (runWorkflow's).
   */
  async function pay(
    options: Omit<TermsOptions, 'paymentId' | 'now'> & {
      startDelayed?: true;
      whileWorkersDown?: (signalWithStart: (payin: DetectedPayin) => Promise<void>, fakes: FakeActivities, paymentId: string) => Promise<void>;
    },
    drive: (handle: WorkflowHandle<typeof paymentWorkflow>, fakes: FakeActivities, signalWithStart: (payin: DetectedPayin) => Promise<void>) => Promise<void>,
    prepare?: (fakes: FakeActivities) => void,
  ) {
    const { startDelayed, whileWorkersDown, ...termsOptions } = options;
    const paymentId = `pay_${Date.now().toString(36)}_${++seq}`;
    const fakes = new FakeActivities();
    const now = await env.currentTimeMs();
    const terms = paymentTerms({ paymentId, now, ...termsOptions });
    fakes.terms.set(paymentId, terms);
    prepare?.(fakes);
    return runWorkflow<typeof paymentWorkflow, { result: PaymentStatus; fakes: FakeActivities; paymentId: string; closed: string; handle: WorkflowHandle<typeof paymentWorkflow> }>({
      env,
      workflowBundle,
      fakes,
      workflowType: 'paymentWorkflow',
      workflowId: paymentWorkflowId(paymentId),
      args: [{ paymentId, expiresAt: terms.expiresAt }],
      startDelayMs: startDelayed ? Date.parse(terms.expiresAt) - now : undefined,
      whileWorkersDown: whileWorkersDown && ((signalWithStart) => whileWorkersDown((payin) => signalWithStart(payinDetectedSignal, payin), fakes, paymentId)),
      body: async (handle, signalWithStart) => {
        await drive(handle, fakes, (payin) => signalWithStart(payinDetectedSignal, payin));
        const result = await handle.result();
        const closed = (await handle.describe()).status.name;
        return { result, fakes, paymentId, closed, handle };
      },
    });
  }

  /** The sequences of the read-model writes, in the order they were made. */
  const sequences = (fakes: FakeActivities) =>
    fakes.calls.flatMap((c) => (c.name === 'recordPaymentTransition' || c.name === 'recordPayin' ? [c.input.sequence] : []));
  const increasing = (numbers: number[]) => numbers.every((n, i) => i === 0 || n > numbers[i - 1]!);
  const callIndex = (fakes: FakeActivities, name: ActivityCall['name']) => fakes.calls.findIndex((c) => c.name === name);
  const completedIndex = (fakes: FakeActivities) => fakes.calls.findIndex((c) => c.name === 'recordPaymentTransition' && c.input.status === 'payment_completed');

  it('a completed payment\'s payin waits sweepAfterMs and up to as long again at its deposit before its sweep, and the run ends once the sweep landed', async () => {
    const { result, fakes, handle, paymentId } = await pay({ sweepAfterMs: 45_000 }, async (h, f) => {
      await h.signal(payinDetectedSignal, detectedPayin({ tx: 'sweep-after' }));
      await f.reached('payment_completed');
    });
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.statuses(), HAPPY_PATH);
    assert.equal(fakes.callsOf('sweepDeposit').length, 1);
    // What the run recorded from its completed status on: the timer, then the sweep once it fired.
    const steps = ((await handle.fetchHistory()).events ?? []).flatMap((e) => {
      if (e.timerStartedEventAttributes) return [`timer ${Number(e.timerStartedEventAttributes.startToFireTimeout?.seconds)} s`];
      if (e.timerFiredEventAttributes) return ['timer fired'];
      return e.markerRecordedEventAttributes ? [activityTypeOf(e)] : [];
    });
    // The sweep's wait: 45 s, and less than as long again, by the payment's id.
    const waitMs = sweepWaitMs(paymentId, 45_000);
    assert.ok(waitMs >= 45_000 && waitMs < 90_000, `${waitMs} ms`);
    const timer = steps.indexOf(`timer ${Math.floor(waitMs / 1000)} s`);
    assert.ok(timer > steps.indexOf('payOutFromTreasury'), `the sweep's wait starts once the payout was made: ${steps.join(', ')}`);
    assert.equal(steps[timer + 1], 'timer fired', steps.join(', '));
    assert.equal(steps[timer + 2], 'sweepDeposit', 'the sweep is signed once its wait is over');
  });

  it('same chain: pays out from the treasury, sweeps exactly the amount, and the run ends Completed with the payment', async () => {
    const payin = detectedPayin({ tx: 'same-a' });
    const { result, fakes, paymentId, closed } = await pay({}, async (h, f) => {
      // The merchant's endpoint answers once the payment is completed: the run's drain waits for its deliveries.
      const release = f.holdWebhooks();
      await h.signal(payinDetectedSignal, payin);
      await f.reached('payment_completed');
      release();
    });
    assert.equal(result, 'payment_completed');
    assert.equal(closed, 'COMPLETED', 'nothing stays Running once the payment is settled');
    assert.deepEqual(fakes.statuses(), HAPPY_PATH);
    assert.deepEqual(
      fakes.chainWrites().map((w) => [w.name, w.input.intentKey, w.input.amountUnits]),
      [
        // The payout's amount is the database's (the payout less what it keeps back for refunds), never the run's.
        ['payOutFromTreasury', intentKeys.payout(paymentId), undefined],
        ['sweepDeposit', intentKeys.sweep(paymentId), REQUIRED_UNITS],
      ],
    );
    assert.ok(callIndex(fakes, 'sweepDeposit') > completedIndex(fakes), 'the sweep is signed once the payment completed');
    const payout = fakes.callsOf('payOutFromTreasury')[0]!;
    assert.deepEqual([payout.chainId, payout.tokenAddress, payout.to], [SOURCE_CHAIN_ID, SOURCE_TOKEN, MERCHANT_ADDRESS]);
    const completed = fakes.transitions().find((t) => t.status === 'payment_payin_completed')!;
    assert.deepEqual(completed.payin, { senderAddress: CUSTOMER_ADDRESS, txHash: payin.txHash, amountReceivedUnits: REQUIRED_UNITS, confirmedAt: CONFIRMED_AT });
    assert.deepEqual(fakes.transitions().find((t) => t.status === 'payment_payout_completed')!.payout, {
      txHash: txHashOf(intentKeys.payout(paymentId)),
      confirmedAt: CONFIRMED_AT,
    });
    assert.deepEqual(fakes.webhookEvents(), ['payment_payin_completed', 'payment_payout_completed']);
    assert.deepEqual(
      fakes.callsOf('awaitPayinConfirmation').map((c) => c.depth),
      ['confirmations', 'finality'],
      'the payout is released only once the payin is final',
    );
    assert.deepEqual(
      fakes.callsOf('recordPaymentProgress').map((c) => c.steps.map((step) => (step.kind === 'payin' ? `payin ${step.status}` : step.kind === 'status' ? step.status : step.kind))),
      [
        ['payin detected', 'payment_started'],
        ['payin confirmed', 'payment_payin_completed'],
        ['payin confirmed', 'payment_payout_started'],
        ['payment_payout_completed'],
        ['payment_completed', 'watch'],
      ],
      'the writes between two other steps are one step, and the final status keeps the address watched for late payins',
    );
    assert.deepEqual(fakes.callsOf('payOutFromTreasury').map((c) => c.intentKey), [intentKeys.payout(paymentId)], 'reserved and signed in one step');
    const completedAt = fakes.calls.findIndex((c) => c.name === 'recordPaymentProgress' && c.input.steps.some((step: { kind: string; status?: string }) => step.status === 'payment_completed'));
    const sweepLanded = fakes.calls.findIndex((c) => c.name === 'awaitChainTx' && c.input.intentKey === intentKeys.sweep(paymentId));
    assert.ok(completedAt >= 0 && completedAt < sweepLanded, 'the payment is completed without waiting for its sweep, which the run waits for before it ends');
    // Watched again from the run's end: its webhook deliveries outlasted the workflow task of the final status.
    assert.deepEqual(fakes.callsOf('extendDepositWatch'), [{ paymentId }, { paymentId }]);
    assert.equal(fakes.calls[fakes.calls.length - 1]?.name, 'extendDepositWatch');
    assert.ok(increasing(sequences(fakes)), `every read-model write carries a higher sequence than the one before: ${sequences(fakes).join(', ')}`);
  });

  it('loads its terms from the database once, when its first payin arrives: the input is only the payment id and its expiry', async () => {
    const { fakes, paymentId, handle } = await pay({}, (h) => h.signal(payinDetectedSignal, detectedPayin({ tx: 'terms-a' })));
    assert.deepEqual(fakes.callsOf('loadPaymentTerms'), [{ paymentId }]);
    const [started] = (await handle.fetchHistory()).events ?? [];
    const input = started?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
    assert.deepEqual(JSON.parse(Buffer.from(input!).toString()), { paymentId, expiresAt: fakes.terms.get(paymentId)!.expiresAt });
  });

  it('a new run’s first task only starts its expiry timer; the terms are read when the expiry needs them', async () => {
    const { result, fakes, paymentId, handle } = await pay({}, () => Promise.resolve());
    assert.equal(result, 'payment_expired');
    assert.deepEqual(firstTaskCommands(await handle.fetchHistory()), [EventType.EVENT_TYPE_TIMER_STARTED]);
    assert.deepEqual(fakes.callsOf('loadPaymentTerms'), [{ paymentId }]);
  });

  const eventsOf = async (handle: WorkflowHandle<typeof paymentWorkflow>) => (await handle.fetchHistory()).events ?? [];

  const firstTaskAt = (events: temporal.api.history.v1.IHistoryEvent[]) => {
    const started = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
    return Number(started!.eventTime!.seconds) * 1000;
  };

  it('started delayed until its expiry, an unpaid payment runs no task before it, then expires in its first task without a timer', async () => {
    const { result, fakes, paymentId, handle } = await pay({ startDelayed: true }, () => Promise.resolve());
    const events = await eventsOf(handle);
    assert.equal(result, 'payment_expired');
    assert.ok(firstTaskAt(events) >= Date.parse(fakes.terms.get(paymentId)!.expiresAt) - 1000, 'the first task comes at the expiry');
    assert.ok(!events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED), 'no timer: the start delay was the expiry');
    assert.deepEqual(fakes.statuses(), ['payment_expired']);
    assert.deepEqual(fakes.callsOf('extendDepositWatch'), [{ paymentId }]);
  });

  it('a payin’s signal-with-start ends the start delay at once: the run starts its expiry timer and pays', async () => {
    const { result, fakes, paymentId, handle } = await pay({ startDelayed: true }, (_handle, _fakes, signalWithStart) => signalWithStart(detectedPayin({ tx: 'delayed-a' })));
    const events = await eventsOf(handle);
    assert.equal(result, 'payment_completed');
    assert.ok(firstTaskAt(events) < Date.parse(fakes.terms.get(paymentId)!.expiresAt) - 60_000, 'the first task came with the payin, long before the expiry');
    assert.ok(events.some((e) => e.eventType === EventType.EVENT_TYPE_TIMER_STARTED), 'the rest of the time to expiry is a timer');
    assert.deepEqual(fakes.statuses(), HAPPY_PATH);
  });

  /** The activity types the run scheduled as activity tasks (its local activities are markers). */
  const activityTasks = async (handle: WorkflowHandle<typeof paymentWorkflow>) =>
    (await eventsOf(handle)).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : []));

  it('waits for its payin and its transactions inside its own workflow tasks: no chain wait is an activity task', async () => {
    const { result, fakes, handle } = await pay({ webhooks: false }, (h) => h.signal(payinDetectedSignal, detectedPayin({ tx: 'local-waits' })));
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.statuses(), HAPPY_PATH);
    assert.deepEqual(await activityTasks(handle), [], 'every step and wait of a same-chain payment without webhooks is a local activity');
    assert.deepEqual(fakes.callsOf('awaitPayinConfirmation').map((c) => c.depth), ['confirmations', 'finality']);
    assert.deepEqual(fakes.callsOf('awaitChainTx').map((c) => c.depth), ['confirmations', 'finality', 'confirmations'], 'payout landed, payout final, sweep landed');
    const tasks = (await eventsOf(handle)).filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length;
    assert.ok(tasks <= 3, `the payment took ${tasks} workflow tasks (its first, and the payin's)`);
    // Combined steps: terms, 5 writes (each with the status it brings), 5 waits, sweep, payout; the watch rides on the
    // final status, and is renewed at the run's end only when the sweep landed in a later workflow task than that
    // status (which task it lands in is the test machine's timing).
    const steps = localActivities({ events: await eventsOf(handle) });
    const renewals = steps.filter((type) => type === 'extendDepositWatch').length;
    assert.ok(renewals <= 1, 'the watch is renewed once at most');
    assert.equal(steps.length - renewals, 13, 'one local activity per step, consecutive writes in one');
    const paymentId = fakes.callsOf('loadPaymentTerms')[0]!.paymentId;
    assert.deepEqual(fakes.callsOf('extendDepositWatch'), Array(1 + renewals).fill({ paymentId }), 'kept watched with the final status (and again from the run’s end when renewed)');
  });

  it('a chain wait that fails in the workflow task is handed to a chain-waits activity task, and the payment completes', async () => {
    const { result, fakes, handle } = await pay({ webhooks: false }, (h) => h.signal(payinDetectedSignal, detectedPayin({ tx: 'local-wait-fails' })), (f) => {
      f.failLocalWaits = 1;
    });
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.statuses(), HAPPY_PATH);
    assert.deepEqual(await activityTasks(handle), ['awaitPayinConfirmation'], 'only the failed wait became an activity task');
    assert.deepEqual(fakes.callsOf('awaitPayinConfirmation').map((c) => c.depth), ['confirmations', 'confirmations', 'finality'], 'the handed-over wait asked again');
  });

  it('a chain wait that outlasts its 30 s in the workflow task is handed to a chain-waits activity task', async function () {
    // The local wait's timeout is the SDK's, in real time: this test takes over 30 s.
    this.timeout(90_000);
    const { result, fakes, handle } = await pay({ webhooks: false }, async (h, f) => {
      const release = f.holdConfirmations();
      await h.signal(payinDetectedSignal, detectedPayin({ tx: 'local-wait-slow' }));
      await eventually('the wait to become an activity task', 60_000, async () => ((await activityTasks(h)).includes('awaitPayinConfirmation') ? true : undefined), 500);
      release();
    });
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.statuses(), HAPPY_PATH);
    assert.deepEqual(await activityTasks(handle), ['awaitPayinConfirmation'], 'only the wait that timed out became an activity task');
  });

  it('cross chain: pays out at once from the destination treasury’s float, sweeps into the source treasury, bridges nothing', async () => {
    const { result, fakes, paymentId } = await pay({ crossChain: true }, (h) => h.signal(payinDetectedSignal, detectedPayin({ tx: 'cross-float' })));
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.statuses(), HAPPY_PATH);
    assert.deepEqual(
      fakes.chainWrites().map((w) => [w.name, w.input.chainId, w.input.intentKey]),
      [
        ['payOutFromTreasury', DESTINATION_CHAIN_ID, intentKeys.payout(paymentId)],
        ['sweepDeposit', SOURCE_CHAIN_ID, intentKeys.sweep(paymentId)],
      ],
    );
    assert.equal(fakes.callsOf('payOutFromTreasury')[0]!.tokenAddress, DESTINATION_TOKEN);
    assert.equal(fakes.callsOf('quoteBridge').length, 0);
    assert.ok(callIndex(fakes, 'sweepDeposit') > completedIndex(fakes), 'the payout does not wait for the sweep: it is signed once the payment completed');
  });

  it('cross family, no bridge route, float short: waits in payment_payout_started (AwaitingOperator=treasury_short), pays once the float is topped up', async () => {
    let waiting: unknown;
    const { result, fakes } = await pay(
      { crossChain: true, bridgeRoute: false },
      async (h, f) => {
        await h.signal(payinDetectedSignal, detectedPayin({ tx: 'cross-family-short' }));
        await eventually('AwaitingOperator=treasury_short', 10_000, async () => ((waiting = await awaitingOperator(h)) === 'treasury_short' ? true : undefined), 200);
        f.treasuryShortFor = 0;
        await h.signal(retryChainStepSignal);
      },
      (f) => (f.treasuryShortFor = 1_000),
    );
    assert.equal(waiting, 'treasury_short');
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.statuses(), HAPPY_PATH, 'never bridging, never bounced');
    assert.equal(fakes.callsOf('quoteBridge').length, 0);
    assert.ok(fakes.callsOf('payOutFromTreasury').length >= 2);
  });

  it('cross chain, float short: sweeps, bridges amount − fee (quote, approve, burn, attestation, mint), then pays out on the destination chain', async () => {
    const { result, fakes, paymentId } = await pay({ crossChain: true }, (h) => h.signal(payinDetectedSignal, detectedPayin({ tx: 'cross-a' })), (f) => (f.treasuryShortFor = 1));
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.statuses(), [
      'payment_started',
      'payment_payin_completed',
      'payment_payout_started',
      'payment_bridging',
      'payment_payout_started',
      'payment_payout_completed',
      'payment_completed',
    ]);
    const bridged = (BigInt(REQUIRED_UNITS) - 50000n).toString();
    assert.deepEqual(fakes.callsOf('quoteBridge'), [
      { paymentId, sourceChainId: SOURCE_CHAIN_ID, destinationChainId: DESTINATION_CHAIN_ID, tokenSymbol: 'USDC', amountUnits: bridged },
    ]);
    assert.deepEqual(
      fakes.chainWrites().map((w) => w.name),
      ['payOutFromTreasury', 'sweepDeposit', 'approveBridge', 'startBridge', 'finishBridge', 'payOutFromTreasury'],
    );
    // Each bridge step waits for the one before it: approval mined, burn mined, attestation, mint mined.
    // The last call of each: the payout that pays is the one after the bridge (the first found the float short).
    const order = (name: string, intentKey?: string) =>
      fakes.calls.reduce((last, c, i) => (c.name === name && (intentKey === undefined || (c.input as { intentKey?: string }).intentKey === intentKey) ? i : last), -1);
    const steps = [
      order('awaitChainTx', intentKeys.sweep(paymentId)),
      order('approveBridge'),
      order('awaitChainTx', intentKeys.bridgeApprove(paymentId)),
      order('startBridge'),
      order('awaitChainTx', intentKeys.bridgeBurn(paymentId)),
      order('awaitBridgeArrival'),
      order('finishBridge'),
      order('awaitChainTx', intentKeys.bridgeMint(paymentId)),
      order('payOutFromTreasury'),
    ];
    assert.ok(steps.every((s) => s >= 0), `every step ran: ${steps.join(', ')}`);
    assert.deepEqual(steps, [...steps].sort((a, b) => a - b), 'the bridge steps ran in order');
    assert.equal(fakes.callsOf('awaitBridgeArrival')[0]!.startTxHash, txHashOf(intentKeys.bridgeBurn(paymentId)));
    assert.equal(fakes.callsOf('payOutFromTreasury')[0]!.tokenAddress, DESTINATION_TOKEN);
  });

  it('cross chain, float short: a transfer past twice its expected time shows AwaitingOperator=bridge_late until it arrives, then completes', async () => {
    let onTime: unknown = 'not read';
    let closedWith: unknown = 'not read';
    const { result, fakes } = await pay(
      { crossChain: true },
      async (h, f) => {
        const release = f.holdBridgeArrivals();
        await h.signal(payinDetectedSignal, detectedPayin({ tx: 'cross-late' }));
        await eventually('the wait for the attestation', 10_000, () => Promise.resolve(f.callsOf('awaitBridgeArrival').length > 0 ? true : undefined));
        // Expected in 2 s (the quote's): late after 4 s of waiting, not before.
        onTime = await awaitingOperator(h);
        await eventually('AwaitingOperator=bridge_late', 15_000, async () => ((await awaitingOperator(h)) === 'bridge_late' ? true : undefined), 200);
        release();
        await h.result();
        closedWith = await awaitingOperator(h);
      },
      (f) => {
        f.treasuryShortFor = 1;
        f.bridgeExpectedSeconds = 2;
      },
    );
    assert.equal(result, 'payment_completed');
    assert.deepEqual([onTime, closedWith], [undefined, undefined], 'on time at first; the flag ends with the wait');
    assert.deepEqual(
      fakes.chainWrites().map((w) => w.name),
      ['payOutFromTreasury', 'sweepDeposit', 'approveBridge', 'startBridge', 'finishBridge', 'payOutFromTreasury'],
      'the late transfer is finished once, as any other',
    );
  });

  it('a native coin is kept by the treasury: swept, never bridged, the merchant paid in the payout token', async () => {
    const native = detectedPayin({ tx: 'native-a', tokenAddress: '0x0000000000000000000000000000000000000000', amountUnits: '10000000000000000', logIndex: -1 });
    const { result, fakes } = await pay({ native: true }, (h) => h.signal(payinDetectedSignal, native));
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.chainWrites().map((w) => w.name), ['payOutFromTreasury', 'sweepDeposit']);
    assert.equal(fakes.callsOf('payOutFromTreasury')[0]!.chainId, DESTINATION_CHAIN_ID);
  });

  it('expires at the real default payment TTL (30 minutes) when nothing arrives; the run ends Completed', async () => {
    const { result, fakes, closed } = await pay({}, () => Promise.resolve());
    assert.equal(result, 'payment_expired');
    assert.equal(closed, 'COMPLETED');
    assert.deepEqual(fakes.statuses(), ['payment_expired']);
    assert.deepEqual(fakes.chainWrites(), []);
    assert.equal(fakes.callsOf('extendDepositWatch').length, 1);
  });

  it('expires at once when started after its expiry (a payment whose workflow the reconciler starts late)', async () => {
    const { result } = await pay({ expiresInMs: -60_000 }, () => Promise.resolve());
    assert.equal(result, 'payment_expired');
  });

  it('a first task lost after its writes landed (its worker killed) and retried after the expiry: the retry refunds the payin, and its writes win', async () => {
    const payin = detectedPayin({ tx: 'lost-first-task' });
    let lostSequence = 0;
    const { result, fakes } = await pay(
      {
        startDelayed: true,
        expiresInMs: 60_000,
        whileWorkersDown: async (signalWithStart, f, paymentId) => {
          // The payin arrives half a second before the expiry; the first try counts it and writes before its worker dies.
          await env.sleep(59_500);
          await signalWithStart(payin);
          const { startTime } = await env.client.workflow.getHandle(paymentWorkflowId(paymentId)).describe();
          const lostAt = await env.currentTimeMs();
          lostSequence = nextPaymentWriteSequence(0, lostAt - startTime.getTime());
          const steps: PaymentProgress[] = [
            { kind: 'payin', payin, status: 'detected', sequence: lostSequence },
            { kind: 'status', status: 'payment_started', sequence: lostSequence + 1 },
          ];
          await f.activities.recordPaymentProgress({ paymentId, steps });
          // Its retry runs after the expiry and a second or more after it (a workflow task's timeout is 10 s), on its
          // own clock: the payin is late.
          await untilServerTimePasses(env, Math.max(Date.parse(f.terms.get(paymentId)!.expiresAt), lostAt + 1_000));
        },
      },
      () => Promise.resolve(),
    );
    assert.equal(result, 'payment_expired');
    assert.deepEqual([...fakes.refunds().values()], [REQUIRED_UNITS], 'the late payin goes back whole');
    const [lostPayin, lostStatus, ...retried] = fakes.calls.filter((c) => c.name === 'recordPaymentTransition' || c.name === 'recordPayin');
    assert.deepEqual([lostPayin?.input.sequence, lostStatus?.input.sequence], [lostSequence, lostSequence + 1]);
    const retriedSequences = retried.map((c) => c.input.sequence);
    assert.ok(retriedSequences.every((n) => n > lostSequence + 1) && increasing(retriedSequences), `the retry's writes win over the lost try's: ${retriedSequences.join(', ')}`);
    // As the database applies them: the write with the highest sequence stands.
    const standing = fakes.transitions().reduce((a, b) => (b.sequence > a.sequence ? b : a));
    assert.equal(standing.status, 'payment_expired');
  });

  it('a multisend of two equal transfers in one transaction is two payins: one pays, the other is refunded', async () => {
    const first = detectedPayin({ tx: 'multisend', logIndex: 3 });
    const second = detectedPayin({ tx: 'multisend', logIndex: 4 });
    assert.equal(first.txHash, second.txHash);
    const { result, fakes, paymentId } = await pay({}, async (h) => {
      await h.signal(payinDetectedSignal, first);
      await h.signal(payinDetectedSignal, second);
    });
    assert.equal(result, 'payment_completed');
    const refunds = fakes.refunds();
    assert.equal(refunds.size, 1, 'exactly one of the two is refunded');
    const [refundKey, refunded] = [...refunds.entries()][0]!;
    assert.ok([intentKeys.refund(payinId(first)), intentKeys.refund(payinId(second))].includes(refundKey));
    assert.equal(refunded, REQUIRED_UNITS, 'refunded whole');
    assert.equal(fakes.callsOf('sweepDeposit').find((s) => s.intentKey === intentKeys.sweep(paymentId))!.amountUnits, REQUIRED_UNITS);
    const payins = fakes.callsOf('recordPayin');
    assert.deepEqual(new Set(payins.map((p) => p.payin.logIndex)), new Set([3, 4]), 'both recorded, each by its own identity');
  });

  it('two payins confirming together: the first pays, the second goes back whole instead of counting as an overpayment', async () => {
    const paying = detectedPayin({ tx: 'together-a' });
    const extra = detectedPayin({ tx: 'together-b', from: OTHER_SENDER_ADDRESS });
    const { result, fakes } = await pay({}, async (h, fakes) => {
      const release = fakes.holdConfirmations();
      await h.signal(payinDetectedSignal, paying);
      await h.signal(payinDetectedSignal, extra);
      await eventually('both payins detected', 10_000, () => Promise.resolve(fakes.callsOf('recordPayin').filter((p) => p.status === 'detected').length === 2 || undefined));
      release();
    });
    assert.equal(result, 'payment_completed');
    assert.equal(fakes.transitions().find((t) => t.status === 'payment_payin_completed')!.payin!.amountReceivedUnits, REQUIRED_UNITS);
    const dispositions = fakes.callsOf('recordPayin').filter((p) => p.disposition).map((p) => p.disposition);
    assert.deepEqual(dispositions.sort(), ['payment', 'refund']);
    const refunds = [...fakes.refunds().entries()];
    assert.equal(refunds.length, 1);
    assert.equal(refunds[0]![1], REQUIRED_UNITS, 'refunded whole');
  });

  it('payins accumulate: two partial transfers that add up pay the payment', async () => {
    const a = detectedPayin({ tx: 'part-a', amountUnits: '6000000' });
    const b = detectedPayin({ tx: 'part-b', amountUnits: '4000000', from: OTHER_SENDER_ADDRESS });
    const { result, fakes } = await pay({}, async (h) => {
      await h.signal(payinDetectedSignal, a);
      await h.signal(payinDetectedSignal, b);
    });
    assert.equal(result, 'payment_completed');
    assert.equal(fakes.transitions().find((t) => t.status === 'payment_payin_completed')!.payin!.amountReceivedUnits, REQUIRED_UNITS);
    assert.equal(fakes.refunds().size, 0);
    assert.deepEqual(
      fakes.callsOf('recordPayin').filter((p) => p.disposition === 'payment').map((p) => p.payin.txHash).sort(),
      [a.txHash, b.txHash].sort(),
    );
  });

  it('an underpayment waits for the rest until expiry, then bounces and refunds every payin in full', async () => {
    const short = detectedPayin({ tx: 'under-a', amountUnits: '7500000' });
    const { result, fakes } = await pay({}, (h) => h.signal(payinDetectedSignal, short));
    assert.equal(result, 'payment_refunded');
    assert.deepEqual(fakes.statuses(), ['payment_started', 'payment_bounced', 'payment_refunded']);
    assert.deepEqual([...fakes.refunds()], [[intentKeys.refund(payinId(short)), '7500000']]);
    assert.equal(fakes.callsOf('sweepDeposit')[0]!.recipient.kind, 'address');
    assert.equal(fakes.callsOf('payOutFromTreasury').length, 0, 'nothing is paid out');
  });

  it('within the app’s tolerance a short payin completes the payment: what arrived is swept and paid out less the fee', async () => {
    const short = detectedPayin({ tx: 'tolerated-a', amountUnits: '9950000' });
    const { result, fakes } = await pay({ toleranceBps: 100 }, (h) => h.signal(payinDetectedSignal, short));
    assert.equal(result, 'payment_completed');
    assert.equal(fakes.callsOf('sweepDeposit')[0]!.amountUnits, '9950000');
    // The payout's amount is the database's (storedPayoutUnits: what arrived less the fee), never the run's.
    assert.equal(fakes.callsOf('payOutFromTreasury').length, 1);
    assert.deepEqual([...fakes.refunds()], [], 'nothing goes back');
  });

  it('accept as paid: refused before a payin is confirmed; then the payment completes with what arrived, less the fee', async () => {
    const short = detectedPayin({ tx: 'accepted-a', amountUnits: '7500000' });
    const { result, fakes } = await pay({}, async (h) => {
      await assert.rejects(h.executeUpdate(acceptAsPaidUpdate), WorkflowUpdateFailedError, 'nothing confirmed: nothing to accept');
      await h.signal(payinDetectedSignal, short);
      await eventually('the short payin to be counted', 10_000, async () => ((await h.query(paymentStateQuery)).payins.some((p) => p.state === 'counted') ? true : undefined));
      await h.executeUpdate(acceptAsPaidUpdate);
    });
    assert.equal(result, 'payment_completed');
    assert.equal(fakes.callsOf('recordAcceptedAsPaid').length, 1, 'the acceptance is recorded before the payout');
    assert.equal(fakes.callsOf('sweepDeposit')[0]!.amountUnits, '7500000');
    assert.equal(fakes.callsOf('payOutFromTreasury').length, 1);
    assert.ok(!fakes.statuses().includes('payment_bounced'));
  });

  it('a payin in another token is refunded in that token and never decides the payment: the real payin still pays', async () => {
    const wrong = detectedPayin({ tx: 'wrong-a', tokenAddress: OTHER_TOKEN, amountUnits: '1' });
    const right = detectedPayin({ tx: 'right-a' });
    const { result, fakes } = await pay({}, async (h) => {
      await h.signal(payinDetectedSignal, wrong);
      await h.signal(payinDetectedSignal, right);
    });
    assert.equal(result, 'payment_completed');
    const refund = fakes.callsOf('sweepDeposit').find((s) => s.intentKey === intentKeys.refund(payinId(wrong)))!;
    assert.deepEqual([refund.tokenAddress, refund.amountUnits, refund.recipient], [OTHER_TOKEN, '1', { kind: 'address', address: CUSTOMER_ADDRESS }]);
    assert.ok(!fakes.statuses().includes('payment_bounced'));
  });

  it('a dust transfer of the right token before the real payin never bounces the payment: they add up', async () => {
    const dust = detectedPayin({ tx: 'dust-a', amountUnits: '1' });
    const real = detectedPayin({ tx: 'dust-real' });
    const { result, fakes, paymentId } = await pay({}, async (h) => {
      await h.signal(payinDetectedSignal, dust);
      await h.signal(payinDetectedSignal, real);
    });
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.statuses(), HAPPY_PATH);
    // The excess (the dust, as the real payin overshot) goes back to the sender of the payin that completed it.
    const excess = fakes.callsOf('sweepDeposit').filter((s) => s.intentKey !== intentKeys.sweep(paymentId));
    assert.equal(excess.length, 1);
    assert.equal(excess[0]!.amountUnits, '1');
  });

  it('an overpayment completes the payment and refunds the excess to its sender, once', async () => {
    const over = detectedPayin({ tx: 'over-a', amountUnits: (BigInt(REQUIRED_UNITS) + 500_000n).toString() });
    const { result, fakes } = await pay({}, (h) => h.signal(payinDetectedSignal, over));
    assert.equal(result, 'payment_completed');
    assert.deepEqual([...fakes.refunds()], [[intentKeys.refund(payinId(over)), '500000']]);
    assert.equal(fakes.transitions().find((t) => t.status === 'payment_payin_completed')!.payin!.amountReceivedUnits, over.amountUnits);
  });

  it('goes back to unpaid when a reorg drops the detected payin, then completes on a real payin', async () => {
    const ghost = detectedPayin({ tx: 'ghost' });
    const real = detectedPayin({ tx: 'real', blockNumber: 107 });
    const { result, fakes } = await pay(
      {},
      async (h, f) => {
        await h.signal(payinDetectedSignal, ghost);
        await f.reached('payment_unpaid');
        await h.signal(payinDetectedSignal, real);
      },
      (f) => f.scriptConfirmation(ghost, 'confirmations', 'dropped'),
    );
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.statuses(), ['payment_started', 'payment_unpaid', ...HAPPY_PATH]);
    assert.ok(fakes.callsOf('recordPayin').some((p) => p.payin.txHash === ghost.txHash && p.status === 'dropped'));
  });

  it('a reorg deeper than the confirmations removes a counted payin before finality: no payout; the payment collects again', async () => {
    const shallow = detectedPayin({ tx: 'deep-reorg' });
    const real = detectedPayin({ tx: 'after-reorg' });
    const { result, fakes } = await pay(
      {},
      async (h, f) => {
        await h.signal(payinDetectedSignal, shallow);
        await f.reached('payment_unpaid');
        await h.signal(payinDetectedSignal, real);
      },
      (f) => f.scriptConfirmation(shallow, 'finality', 'dropped'),
    );
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.statuses(), ['payment_started', 'payment_payin_completed', 'payment_unpaid', 'payment_started', 'payment_payin_completed', 'payment_payout_started', 'payment_payout_completed', 'payment_completed']);
    // Each write names the status its run leaves: only from there may the database take the payment back.
    assert.deepEqual(fakes.transitions().map((t) => t.from), ['payment_unpaid', ...fakes.statuses().slice(0, -1)]);
    assert.equal(fakes.callsOf('payOutFromTreasury').length, 1, 'one payout, for the payin that stayed');
  });

  it('honours a payin detected before expiry even if it confirms after', async () => {
    const late = detectedPayin({ tx: 'slow' });
    // The server does not skip time while an activity runs, so this expiry passes in real time, during the wait.
    const { result, fakes } = await pay({ expiresInMs: 5_000 }, async (h, f) => {
      const release = f.holdConfirmations();
      await h.signal(payinDetectedSignal, late);
      await f.reached('payment_started');
      await eventually('the expiry to pass during the confirmation', 20_000, async () => ((await env.currentTimeMs()) > Date.parse(f.terms.values().next().value!.expiresAt) + 500 ? true : undefined));
      release();
    });
    assert.ok(!fakes.statuses().includes('payment_expired'));
    assert.equal(result, 'payment_completed');
  });

  it('refunds whole a payin of the right token that arrives after the payment was paid', async () => {
    const paid = detectedPayin({ tx: 'paid-first' });
    const extra = detectedPayin({ tx: 'paid-extra', amountUnits: '3000000', from: OTHER_SENDER_ADDRESS });
    const { result, fakes } = await pay({}, async (h, f) => {
      const release = f.holdWebhooks();
      await h.signal(payinDetectedSignal, paid);
      await f.reached('payment_payin_completed');
      await h.signal(payinDetectedSignal, extra);
      release();
    });
    assert.equal(result, 'payment_completed');
    const refund = fakes.callsOf('sweepDeposit').find((s) => s.intentKey === intentKeys.refund(payinId(extra)))!;
    assert.deepEqual([refund.amountUnits, refund.recipient], ['3000000', { kind: 'address', address: OTHER_SENDER_ADDRESS }]);
  });

  it('refuses a forged signal for another deposit address or chain: nothing is recorded or moved', async () => {
    const forged = detectedPayin({ tx: 'forged', to: OTHER_SENDER_ADDRESS });
    const otherChain = { ...detectedPayin({ tx: 'forged-chain' }), chainId: 1 };
    const { result, fakes } = await pay({ expiresInMs: 60_000 }, async (h) => {
      await h.signal(payinDetectedSignal, forged);
      await h.signal(payinDetectedSignal, otherChain);
      await eventually('both signals refused', 10_000, async () => {
        const state = await h.query(paymentStateQuery);
        return state.payins.length === 2 && state.payins.every((p) => p.state === 'refused') ? true : undefined;
      });
    });
    assert.equal(result, 'payment_expired');
    assert.deepEqual(fakes.callsOf('recordPayin'), []);
    assert.deepEqual(fakes.chainWrites(), []);
  });

  it('takes a repeated signal for the same payin once', async () => {
    const payin = detectedPayin({ tx: 'dup' });
    const { fakes } = await pay({}, async (h) => {
      await h.signal(payinDetectedSignal, payin);
      await h.signal(payinDetectedSignal, payin);
      await h.signal(payinDetectedSignal, { ...payin, blockNumber: payin.blockNumber + 1 });
    });
    assert.equal(fakes.callsOf('awaitPayinConfirmation').filter((c) => c.depth === 'confirmations').length, 1);
  });

  it('fails visibly, naming the transaction, when the sweep reverts', async () => {
    const paymentId = `pay_revert_${++seq}`;
    const fakes = new FakeActivities();
    const terms = paymentTerms({ paymentId, now: await env.currentTimeMs(), crossChain: true });
    fakes.terms.set(paymentId, terms);
    fakes.reverted.add(intentKeys.sweep(paymentId));
    // A short float: the payment would bridge its payin, once swept.
    fakes.treasuryShortFor = 1;
    await runWorkflow<typeof paymentWorkflow, void>({
      env,
      workflowBundle,
      fakes,
      workflowType: 'paymentWorkflow',
      workflowId: paymentWorkflowId(paymentId),
      args: [{ paymentId, expiresAt: terms.expiresAt }],
      body: async (h) => {
        await h.signal(payinDetectedSignal, detectedPayin({ tx: 'revert-a' }));
        await assert.rejects(h.result(), (err: Error) => /sweep:.*reverted/.test(String((err.cause as Error | undefined)?.message ?? err.message)));
      },
    });
    assert.equal(fakes.callsOf('quoteBridge').length, 0, 'nothing is bridged off a sweep that reverted');
  });

  it('waits in payment_payout_started while the treasury is short, then pays once it is funded', async () => {
    const { result, fakes } = await pay(
      {},
      (h) => h.signal(payinDetectedSignal, detectedPayin({ tx: 'short-a' })),
      (f) => (f.treasuryShortFor = 3),
    );
    assert.equal(result, 'payment_completed');
    assert.equal(fakes.callsOf('payOutFromTreasury').length, 4, 'three looks at a short treasury, then the payout');
    const started = fakes.calls.findIndex((c) => c.name === 'recordPaymentTransition' && c.input.status === 'payment_payout_started');
    const firstLook = fakes.calls.findIndex((c) => c.name === 'payOutFromTreasury');
    assert.ok(started < firstLook, 'the payment waits visibly in payment_payout_started');
  });

  it('AwaitingOperator shows the oldest open operator wait: a refund reverting while the treasury is short, then the treasury alone', async () => {
    let closedWith: unknown = 'not read';
    const { result } = await pay(
      {},
      async (h, fakes) => {
        await h.signal(payinDetectedSignal, detectedPayin({ tx: 'waits-other', tokenAddress: OTHER_TOKEN }));
        await eventually('the refund to wait for an operator', 10_000, async () => ((await awaitingOperator(h)) === 'chain_step_reverts' ? true : undefined));
        await h.signal(payinDetectedSignal, detectedPayin({ tx: 'waits-paid' }));
        await eventually('the payout to find the treasury short', 10_000, () => Promise.resolve(fakes.callsOf('payOutFromTreasury').length > 0 ? true : undefined));
        assert.equal(await awaitingOperator(h), 'chain_step_reverts');
        await h.signal(retryChainStepSignal);
        // The refund's wait ends; the payout still waits for funds, and says so.
        await eventually('the refund to be sent', 10_000, () => Promise.resolve(fakes.callsOf('sweepDeposit').filter((c) => c.intentKey.startsWith(intentKeys.refund(''))).length === 2 ? true : undefined));
        await eventually('AwaitingOperator to show the treasury', 10_000, async () => ((await awaitingOperator(h)) === 'treasury_short' ? true : undefined));
        fakes.treasuryShortFor = 0;
        await h.result();
        closedWith = await awaitingOperator(h);
      },
      (f) => {
        f.revertingEstimates.refunds = 1;
        f.treasuryShortFor = 1_000;
      },
    );
    assert.equal(result, 'payment_completed');
    assert.equal(closedWith, undefined);
  });

  it('a payout the node keeps refusing waits for an operator (AwaitingOperator=chain_tx_refused), then lands once retried', async () => {
    let waiting: unknown;
    const { result, fakes } = await pay(
      {},
      async (h) => {
        await h.signal(payinDetectedSignal, detectedPayin({ tx: 'refused-a' }));
        await eventually('the payout to wait for an operator', 10_000, async () => ((waiting = await awaitingOperator(h)) === 'chain_tx_refused' ? true : undefined));
        await h.signal(retryChainStepSignal);
      },
      // The local wait and the activity task it is handed to both find the node refusing.
      (f) => (f.refusedWaits.payouts = 2),
    );
    assert.equal(waiting, 'chain_tx_refused');
    assert.equal(result, 'payment_completed');
    assert.equal(fakes.callsOf('payOutFromTreasury').length, 1, 'the payout was signed once: only its wait was retried');
  });

  it('never holds the payout for a webhook delivery, but ends only once every delivery has ended', async () => {
    const { result, fakes } = await pay({}, async (h, f) => {
      const release = f.holdWebhooks();
      await h.signal(payinDetectedSignal, detectedPayin({ tx: 'hooks-a' }));
      await f.reached('payment_completed');
      const { status } = await h.describe();
      assert.equal(status.name, 'RUNNING', 'still delivering');
      release();
    });
    assert.equal(result, 'payment_completed');
    assert.deepEqual(fakes.webhookEvents(), ['payment_payin_completed', 'payment_payout_completed']);
  });

  it('schedules no delivery for a payment created without a webhook URL', async () => {
    const { result, fakes, closed } = await pay({ webhooks: false }, (h) => h.signal(payinDetectedSignal, detectedPayin({ tx: 'hooks-none' })));
    assert.equal(result, 'payment_completed');
    assert.equal(closed, 'COMPLETED');
    assert.deepEqual(fakes.statuses(), HAPPY_PATH, 'every status is still recorded');
    assert.deepEqual(fakes.webhookEvents(), []);
  });

  it('completes the payment when a delivery cannot even be attempted', async () => {
    const { result } = await pay(
      {},
      (h) => h.signal(payinDetectedSignal, detectedPayin({ tx: 'hooks-down' })),
      (f) => (f.failWebhooks = true),
    );
    assert.equal(result, 'payment_completed');
  });

  it('a run that closes never leaves a payin behind: one signalled while it settles is refunded before it ends', async () => {
    const paid = detectedPayin({ tx: 'closing-a' });
    const straggler: DetectedPayin = detectedPayin({ tx: 'closing-b', amountUnits: '2000000' });
    const { fakes } = await pay({}, async (h, f) => {
      const release = f.holdWebhooks();
      await h.signal(payinDetectedSignal, paid);
      await f.reached('payment_completed');
      await h.signal(payinDetectedSignal, straggler);
      release();
    });
    assert.ok(fakes.refunds().has(intentKeys.refund(payinId(straggler))));
  });
});
