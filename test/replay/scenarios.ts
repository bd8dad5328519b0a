/**
 * Every recorded history in ./histories, with the scenario it is the recording of: one per scenario of the
 * workflows as they are. `replay.test.ts` checks each file against its scenario (workflow type, how it ended, the
 * activities it called) and replays it against the current workflow code. `tools/record-histories.ts` makes them
 * from the `record` functions below, driving the workflows through the fakes of test/workflows/harness on the
 * time-skipping test server. docs/workflow-versioning.md says when they are recorded again.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { WorkflowContinuedAsNewError, type WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { ApplicationFailure } from '@temporalio/common';
import type { chainWatcherWorkflow, depositAddressPoolWorkflow, latePayinWorkflow, orderWorkflow, paymentReconcilerWorkflow, paymentWorkflow, rebalancerWorkflow, rebalanceWorkflow, refundWorkflow } from '../../workflows';
import { chainWatcherWorkflowId, depositAddressPoolWorkflowId, latePayinWorkflowId, orderWorkflowId, paymentWorkflowId, rebalanceWorkflowId, refundWorkflowId } from '../../workflows/ids';
import { acceptAsPaidUpdate, checkFloatsSignal, payinDetectedSignal, paymentStateQuery, refundFundedSignal, retryChainStepSignal } from '../../workflows/messages';
import { eventually } from '../support/poll';
import { DESTINATION_CHAIN_ID, FakeActivities, OTHER_SENDER_ADDRESS, SOURCE_CHAIN_ID, awaitingOperator, OTHER_TOKEN, REQUIRED_UNITS, detectedPayin, paymentTerms, runWorkflow, untilServerTimePasses, type TermsOptions } from '../workflows/harness';
import type { DetectedPayin } from '../../domain/payins';

export type History = temporal.api.history.v1.IHistory;

export type WorkflowType =
  | 'paymentWorkflow'
  | 'latePayinWorkflow'
  | 'orderWorkflow'
  | 'chainWatcherWorkflow'
  | 'paymentReconcilerWorkflow'
  | 'depositAddressPoolWorkflow'
  | 'refundWorkflow'
  | 'rebalancerWorkflow'
  | 'rebalanceWorkflow';

export interface HistoryScenario {
  /** File name (without .json) under ./histories. */
  name: string;
  workflowType: WorkflowType;
  /** The id the run belongs to (payment, order, chain…), found in the run's input. */
  marker: string;
  /** How the run ended: its result, or continued as new. */
  ending: { result: string } | 'continued-as-new';
  /** The activity types the run called, in the order of their first call. */
  activities: string[];
}

/** Runs scenarios and returns their histories by scenario name. */
export interface Recording {
  scenarios: HistoryScenario[];
  record(env: TestWorkflowEnvironment, workflowBundle: WorkflowBundleWithSourceMap): Promise<Map<string, History>>;
}

const idOf = (name: string) => `replay_${name.replaceAll('-', '_')}`;

/**
 * One payment run: its terms, what arrives, how it ends. Started as the API starts it, with a start delay that
 * ends at its expiry, and its payins sent by signal-with-start, as the chain watcher sends them.
 */
function paymentRecording(opts: {
  name: string;
  terms?: Omit<TermsOptions, 'paymentId' | 'now'>;
  prepare?: (fakes: FakeActivities, paymentId: string) => void;
  /** Runs before the run's workers poll (runWorkflow's `whileWorkersDown`), with the run's expiry. */
  whileWorkersDown?: (signal: (payin: DetectedPayin) => Promise<void>, env: TestWorkflowEnvironment, expiresAt: string) => Promise<void>;
  drive: (signal: (payin: DetectedPayin) => Promise<void>, fakes: FakeActivities, run: WorkflowHandle) => Promise<void>;
  result: string;
  activities: string[];
}): Recording {
  const paymentId = idOf(opts.name);
  return {
    scenarios: [{ name: opts.name, workflowType: 'paymentWorkflow', marker: paymentId, ending: { result: opts.result }, activities: opts.activities }],
    async record(env, workflowBundle) {
      const fakes = new FakeActivities();
      const now = await env.currentTimeMs();
      const terms = paymentTerms({ paymentId, now, ...opts.terms });
      fakes.terms.set(paymentId, terms);
      opts.prepare?.(fakes, paymentId);
      const history = await runWorkflow<typeof paymentWorkflow, History>({
        env,
        workflowBundle,
        fakes,
        workflowType: 'paymentWorkflow',
        workflowId: paymentWorkflowId(paymentId),
        args: [{ paymentId, expiresAt: terms.expiresAt }],
        startDelayMs: Date.parse(terms.expiresAt) - now,
        whileWorkersDown: opts.whileWorkersDown && ((signalWithStart) => opts.whileWorkersDown!((payin) => signalWithStart(payinDetectedSignal, payin), env, terms.expiresAt)),
        body: async (handle, signalWithStart) => {
          await opts.drive((payin) => signalWithStart(payinDetectedSignal, payin), fakes, handle);
          const result = await handle.result();
          if (result !== opts.result) throw new Error(`${opts.name}: ended ${result}, expected ${opts.result}`);
          return handle.fetchHistory();
        },
      });
      return new Map([[opts.name, history]]);
    },
  };
}

/**
 * A payment that settles on the same chain, in the order of first calls. Its final status keeps the deposit address
 * watched in the same write; the run then sweeps the payin, its drain waits for the sweep to land, and
 * `extendDepositWatch` keeps the address watched again from the run's end.
 */
const PAID_STEPS = ['loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'deliverWebhook', 'payOutFromTreasury', 'awaitChainTx', 'sweepDeposit'];
const PAID_SAME_CHAIN = [...PAID_STEPS, 'extendDepositWatch'];

/** Pays, holding the webhook deliveries until the payment is completed: the run's drain waits for them. */
const payWithSlowWebhooks = (tx: string) => async (signal: (payin: DetectedPayin) => Promise<void>, fakes: FakeActivities) => {
  const release = fakes.holdWebhooks();
  await signal(detectedPayin({ tx }));
  await fakes.reached('payment_completed');
  release();
};

export const RECORDINGS: Recording[] = [
  paymentRecording({
    name: 'payment-same-chain-completed',
    drive: payWithSlowWebhooks('same'),
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-same-chain-swept-after-its-wait-completed',
    terms: { sweepAfterMs: 45_000 },
    drive: payWithSlowWebhooks('sweep-after'),
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-cross-chain-float-completed',
    terms: { crossChain: true },
    drive: payWithSlowWebhooks('cross-float'),
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-cross-family-float-short-then-completed',
    terms: { crossChain: true, bridgeRoute: false },
    prepare: (fakes) => (fakes.treasuryShortFor = 1_000),
    drive: async (signal, fakes, run) => {
      await signal(detectedPayin({ tx: 'cross-family-short' }));
      await eventually('the payout to wait for the float', 10_000, async () => ((await awaitingOperator(run)) === 'treasury_short' ? true : undefined), 200);
      fakes.treasuryShortFor = 0;
      await run.signal(retryChainStepSignal);
    },
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-cross-chain-bridged-completed',
    terms: { crossChain: true },
    prepare: (fakes) => (fakes.treasuryShortFor = 1),
    drive: (signal) => signal(detectedPayin({ tx: 'cross-bridged' })),
    result: 'payment_completed',
    activities: [
      'loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'deliverWebhook', 'payOutFromTreasury', 'sweepDeposit',
      'awaitChainTx', 'quoteBridge', 'approveBridge', 'startBridge', 'awaitBridgeArrival', 'finishBridge', 'extendDepositWatch',
    ],
  }),
  paymentRecording({
    name: 'payment-cross-chain-bridge-late-then-completed',
    terms: { crossChain: true },
    prepare: (fakes) => {
      fakes.treasuryShortFor = 1;
      fakes.bridgeExpectedSeconds = 2;
    },
    drive: async (signal, fakes, run) => {
      const release = fakes.holdBridgeArrivals();
      await signal(detectedPayin({ tx: 'cross-late' }));
      await eventually('the transfer to be late', 15_000, async () => ((await awaitingOperator(run)) === 'bridge_late' ? true : undefined), 200);
      release();
    },
    result: 'payment_completed',
    activities: [
      'loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'deliverWebhook', 'payOutFromTreasury', 'sweepDeposit',
      'awaitChainTx', 'quoteBridge', 'approveBridge', 'startBridge', 'awaitBridgeArrival', 'finishBridge', 'extendDepositWatch',
    ],
  }),
  paymentRecording({
    name: 'payment-expired',
    drive: () => Promise.resolve(),
    result: 'payment_expired',
    activities: ['loadPaymentTerms', 'recordPaymentProgress'],
  }),
  paymentRecording({
    name: 'payment-first-task-after-expiry-refunded',
    terms: { expiresInMs: 60_000 },
    // Its payin is signalled just before the expiry; its first task runs just after it (its workers down meanwhile).
    whileWorkersDown: async (signal, env, expiresAt) => {
      await env.sleep(59_500);
      await signal(detectedPayin({ tx: 'first-task-late' }));
      await untilServerTimePasses(env, Date.parse(expiresAt));
    },
    drive: () => Promise.resolve(),
    result: 'payment_expired',
    activities: ['loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'holdDust', 'sweepDeposit', 'awaitChainTx', 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-underpaid-bounced',
    drive: (signal) => signal(detectedPayin({ tx: 'under', amountUnits: '7500000' })),
    result: 'payment_refunded',
    activities: ['loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'holdDust', 'sweepDeposit', 'awaitChainTx'],
  }),
  paymentRecording({
    name: 'payment-multisend-one-paid-one-refunded',
    drive: async (signal) => {
      await signal(detectedPayin({ tx: 'multisend', logIndex: 1 }));
      await signal(detectedPayin({ tx: 'multisend', logIndex: 2 }));
    },
    result: 'payment_completed',
    activities: [
      'loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'holdDust', 'deliverWebhook', 'sweepDeposit', 'awaitChainTx',
      'payOutFromTreasury', 'extendDepositWatch',
    ],
  }),
  paymentRecording({
    name: 'payment-wrong-token-refunded-then-paid',
    drive: async (signal) => {
      await signal(detectedPayin({ tx: 'wrong', tokenAddress: OTHER_TOKEN, amountUnits: '1' }));
      await signal(detectedPayin({ tx: 'right', amountUnits: (BigInt(REQUIRED_UNITS) + 1000n).toString(), from: OTHER_SENDER_ADDRESS }));
    },
    result: 'payment_completed',
    activities: ['loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'holdDust', 'sweepDeposit', 'deliverWebhook', 'awaitChainTx', 'payOutFromTreasury', 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-reorg-before-finality-then-paid',
    prepare: (fakes) => fakes.scriptConfirmation(detectedPayin({ tx: 'shallow' }), 'finality', 'dropped'),
    drive: async (signal, fakes) => {
      await signal(detectedPayin({ tx: 'shallow' }));
      await fakes.reached('payment_unpaid');
      await signal(detectedPayin({ tx: 'deep' }));
    },
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-dust-held-then-paid',
    prepare: (fakes) => (fakes.dustUnits = 10_000n),
    drive: async (signal) => {
      // A dust payin in another token, then the payment with a dust excess: both are held, nothing is refunded.
      await signal(detectedPayin({ tx: 'dust-other', tokenAddress: OTHER_TOKEN, amountUnits: '1' }));
      await signal(detectedPayin({ tx: 'dust-paid', amountUnits: (BigInt(REQUIRED_UNITS) + 1n).toString() }));
    },
    result: 'payment_completed',
    activities: ['loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'holdDust', 'deliverWebhook', 'payOutFromTreasury', 'awaitChainTx', 'sweepDeposit', 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-payout-reverts-until-operator-retries',
    prepare: (fakes) => (fakes.revertingEstimates.payouts = 1),
    drive: async (signal, fakes, run) => {
      await signal(detectedPayin({ tx: 'operator' }));
      await fakes.reached('payment_payout_started');
      await eventually('the payout step to wait for an operator', 10_000, async () => ((await awaitingOperator(run)) === 'chain_step_reverts' ? true : undefined));
      await run.signal(retryChainStepSignal);
    },
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-refund-reverts-while-treasury-short-then-paid',
    prepare: (fakes) => {
      fakes.revertingEstimates.refunds = 1;
      fakes.treasuryShortFor = 1_000;
    },
    drive: async (signal, fakes, run) => {
      // Two operator waits open at once: a refund's reverting call, then the payout's short treasury; the refund's ends first.
      const awaiting = async (value: string) => ((await awaitingOperator(run)) === value ? true : undefined);
      await signal(detectedPayin({ tx: 'waits-other', tokenAddress: OTHER_TOKEN }));
      await eventually('the refund to wait for an operator', 10_000, () => awaiting('chain_step_reverts'));
      await signal(detectedPayin({ tx: 'waits-paid' }));
      await eventually('the payout to find the treasury short', 10_000, () => Promise.resolve(fakes.callsOf('payOutFromTreasury').length > 0 ? true : undefined));
      await run.signal(retryChainStepSignal);
      await eventually('the payout alone to wait', 10_000, () => awaiting('treasury_short'));
      fakes.treasuryShortFor = 0;
    },
    result: 'payment_completed',
    activities: ['loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'holdDust', 'sweepDeposit', 'deliverWebhook', 'payOutFromTreasury', 'awaitChainTx', 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-treasury-short-then-paid',
    prepare: (fakes) => (fakes.treasuryShortFor = 2),
    drive: payWithSlowWebhooks('short'),
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-without-webhook-url-completed',
    terms: { webhooks: false },
    drive: (signal) => signal(detectedPayin({ tx: 'no-webhooks' })),
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN.filter((name) => name !== 'deliverWebhook'),
  }),
  paymentRecording({
    name: 'payment-wait-handed-to-activity-completed',
    terms: { webhooks: false },
    prepare: (fakes) => (fakes.failLocalWaits = 1),
    drive: (signal) => signal(detectedPayin({ tx: 'handed-over' })),
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN.filter((name) => name !== 'deliverWebhook'),
  }),
  paymentRecording({
    name: 'payment-underpaid-within-tolerance-completed',
    terms: { toleranceBps: 100 },
    // 99.5% of the amount, within the app's 1% tolerance.
    drive: (signal) => signal(detectedPayin({ tx: 'tolerated', amountUnits: ((BigInt(REQUIRED_UNITS) * 995n) / 1000n).toString() })),
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-underpaid-accepted-as-paid-completed',
    drive: async (signal, _fakes, run) => {
      await signal(detectedPayin({ tx: 'accepted', amountUnits: '7500000' }));
      await eventually('the short payin to be counted', 10_000, async () => ((await run.query(paymentStateQuery)).payins.some((p) => p.state === 'counted') ? true : undefined));
      await run.executeUpdate(acceptAsPaidUpdate);
    },
    result: 'payment_completed',
    activities: ['loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'recordAcceptedAsPaid', 'deliverWebhook', 'payOutFromTreasury', 'awaitChainTx', 'sweepDeposit', 'extendDepositWatch'],
  }),
  {
    scenarios: [
      {
        name: 'refund-sent-completed',
        workflowType: 'refundWorkflow',
        marker: idOf('refund'),
        ending: { result: 'completed' },
        activities: ['refundFunding', 'sendMerchantRefund', 'awaitChainTx', 'completeMerchantRefund'],
      },
      {
        name: 'refund-funded-then-sent-completed',
        workflowType: 'refundWorkflow',
        marker: idOf('funded-refund'),
        ending: { result: 'completed' },
        activities: ['refundFunding', 'sendMerchantRefund', 'awaitChainTx', 'completeMerchantRefund', 'returnFundingExcess'],
      },
    ],
    async record(env, workflowBundle) {
      const recordRefund = async (refundId: string, prepare: (fakes: FakeActivities) => void, whileRunning: (handle: WorkflowHandle<typeof refundWorkflow>, fakes: FakeActivities) => Promise<void>) => {
        const fakes = new FakeActivities();
        prepare(fakes);
        return runWorkflow<typeof refundWorkflow, History>({
          env,
          workflowBundle,
          fakes,
          workflowType: 'refundWorkflow',
          workflowId: refundWorkflowId(refundId),
          args: [{ refundId, paymentId: idOf('refunded-payment') }],
          searchAttributes: false,
          body: async (handle) => {
            await whileRunning(handle, fakes);
            if ((await handle.result()) !== 'completed') throw new Error('refund not completed');
            return handle.fetchHistory();
          },
        });
      };
      const fronted = await recordRefund(idOf('refund'), () => undefined, () => Promise.resolve());
      // Past the app's refund credit: the merchant's funding arrives (a wake-up), the refund goes, the excess goes back.
      const fundedId = idOf('funded-refund');
      const funded = await recordRefund(
        fundedId,
        (fakes) => {
          fakes.refundFundings.set(fundedId, ['awaiting', 'funded']);
          fakes.fundingExcess = true;
        },
        async (handle, fakes) => {
          await eventually('the refund to read its funding', 10_000, () => Promise.resolve(fakes.callsOf('refundFunding').length > 0 ? true : undefined));
          await handle.signal(refundFundedSignal);
        },
      );
      return new Map([
        ['refund-sent-completed', fronted],
        ['refund-funded-then-sent-completed', funded],
      ]);
    },
  },
  {
    scenarios: [
      {
        name: 'late-payin-expired-payment-refunded',
        workflowType: 'latePayinWorkflow',
        marker: idOf('late-payin-expired'),
        ending: { result: 'refunded' },
        activities: ['awaitPayinConfirmation', 'claimPayinRefund', 'holdDust', 'loadPaymentTerms', 'recordPaymentTransition', 'sweepDeposit', 'awaitChainTx'],
      },
    ],
    async record(env, workflowBundle) {
      const paymentId = idOf('late-payin-expired');
      const payin = detectedPayin({ tx: 'late' });
      const fakes = new FakeActivities();
      fakes.terms.set(paymentId, { ...paymentTerms({ paymentId, now: await env.currentTimeMs() }), status: 'payment_expired' });
      const history = await runWorkflow<typeof latePayinWorkflow, History>({
        env,
        workflowBundle,
        fakes,
        workflowType: 'latePayinWorkflow',
        workflowId: latePayinWorkflowId(payin),
        args: [{ paymentId, payin }],
        searchAttributes: false,
        body: async (handle) => {
          if ((await handle.result()) !== 'refunded') throw new Error('late payin not refunded');
          return handle.fetchHistory();
        },
      });
      return new Map([['late-payin-expired-payment-refunded', history]]);
    },
  },
  {
    scenarios: [
      {
        name: 'order-fixed-currency-paid',
        workflowType: 'orderWorkflow',
        marker: idOf('order-fixed'),
        ending: { result: 'paid' },
        activities: ['createOrderPayment', 'recordOrderTransition', 'deliverOrderCallback', 'sendOrderReceipt'],
      },
      {
        name: 'payment-child-of-order-completed',
        workflowType: 'paymentWorkflow',
        marker: idOf('order-fixed-payment'),
        ending: { result: 'payment_completed' },
        activities: PAID_SAME_CHAIN,
      },
    ],
    async record(env, workflowBundle) {
      const orderId = idOf('order-fixed');
      const paymentId = idOf('order-fixed-payment');
      const now = await env.currentTimeMs();
      const fakes = new FakeActivities();
      fakes.terms.set(paymentId, paymentTerms({ paymentId, now, expiresInMs: 3_600_000 }));
      fakes.orderPayment = (input) => ({ paymentId, searchAttributes: { merchantAppId: 'merchant_test', sourceChainId: '31337', orderId: 'A-1' }, memo: { payCurrency: input.payCurrency } });
      return runWorkflow<typeof orderWorkflow, Map<string, History>>({
        env,
        workflowBundle,
        fakes,
        workflowType: 'orderWorkflow',
        workflowId: orderWorkflowId(orderId),
        args: [{ orderId, appId: 'merchant_test', merchantOrderId: 'A-1', payCurrency: 'USDC_ARB', currencyOptions: ['USDC_ARB'], expiresAt: new Date(now + 3_600_000).toISOString(), callbacks: true, receipt: true }],
        searchAttributes: false,
        body: async (handle) => {
          const payment = env.client.workflow.getHandle(paymentWorkflowId(paymentId));
          await eventually('the child payment', 20_000, () => payment.describe().catch(() => undefined));
          await payment.signal(payinDetectedSignal, detectedPayin({ tx: 'order' }));
          if ((await handle.result()) !== 'paid') throw new Error('order not paid');
          return new Map([
            ['order-fixed-currency-paid', await handle.fetchHistory()],
            ['payment-child-of-order-completed', await payment.fetchHistory()],
          ]);
        },
      });
    },
  },
  {
    scenarios: [
      {
        name: 'order-expired',
        workflowType: 'orderWorkflow',
        marker: idOf('order-expired'),
        ending: { result: 'expired' },
        activities: ['recordOrderTransition', 'deliverOrderCallback'],
      },
    ],
    async record(env, workflowBundle) {
      const orderId = idOf('order-expired');
      const now = await env.currentTimeMs();
      return runWorkflow<typeof orderWorkflow, Map<string, History>>({
        env,
        workflowBundle,
        fakes: new FakeActivities(),
        workflowType: 'orderWorkflow',
        workflowId: orderWorkflowId(orderId),
        args: [{ orderId, appId: 'merchant_test', merchantOrderId: null, payCurrency: null, currencyOptions: ['USDC_ARB'], expiresAt: new Date(now + 3_600_000).toISOString(), callbacks: true, receipt: false }],
        searchAttributes: false,
        body: async (handle) => {
          if ((await handle.result()) !== 'expired') throw new Error('order not expired');
          return new Map([['order-expired', await handle.fetchHistory()]]);
        },
      });
    },
  },
  {
    scenarios: [
      {
        name: 'chain-watcher-scans-then-continues-as-new',
        workflowType: 'chainWatcherWorkflow',
        marker: '"chainId":31337',
        ending: 'continued-as-new',
        activities: ['scanChain'],
      },
    ],
    async record(env, workflowBundle) {
      const fakes = new FakeActivities();
      // Payins found while behind the head, a refused range (halved, then grown back), then caught up until the run is full.
      fakes.scans.push({ caughtUp: false, payins: 2 }, ApplicationFailure.create({ message: 'query returned more than 10000 results' }), { caughtUp: true, payins: 0 });
      return runWorkflow<typeof chainWatcherWorkflow, Map<string, History>>({
        env,
        workflowBundle,
        fakes,
        workflowType: 'chainWatcherWorkflow',
        workflowId: chainWatcherWorkflowId(31337),
        args: [{ chainId: 31337, pollIntervalMs: 1000, maxBlocks: 512, scansPerRun: 6 }],
        searchAttributes: false,
        body: async (handle) => {
          const first = env.client.workflow.getHandle(handle.workflowId, (await handle.describe()).runId, { followRuns: false });
          await first.result().then(
            () => Promise.reject(new Error('the watcher ended')),
            (err: unknown) => {
              if (!(err instanceof WorkflowContinuedAsNewError)) throw err;
            },
          );
          return new Map([['chain-watcher-scans-then-continues-as-new', await first.fetchHistory()]]);
        },
      });
    },
  },
  {
    scenarios: [
      {
        name: 'reconciler-rounds-then-continues-as-new',
        workflowType: 'paymentReconcilerWorkflow',
        marker: '"intervalMs":15000',
        ending: 'continued-as-new',
        activities: ['startOrphanedWorkflows'],
      },
    ],
    async record(env, workflowBundle) {
      return runWorkflow<typeof paymentReconcilerWorkflow, Map<string, History>>({
        env,
        workflowBundle,
        fakes: new FakeActivities(),
        workflowType: 'paymentReconcilerWorkflow',
        workflowId: 'replay-payment-workflow-reconciler',
        args: [{ intervalMs: 15_000, graceMs: 10_000, roundsPerRun: 5 }],
        searchAttributes: false,
        body: async (handle) => {
          const first = env.client.workflow.getHandle(handle.workflowId, (await handle.describe()).runId, { followRuns: false });
          await first.result().then(
            () => Promise.reject(new Error('the reconciler ended')),
            (err: unknown) => {
              if (!(err instanceof WorkflowContinuedAsNewError)) throw err;
            },
          );
          return new Map([['reconciler-rounds-then-continues-as-new', await first.fetchHistory()]]);
        },
      });
    },
  },
  {
    scenarios: [
      {
        name: 'deposit-address-pool-rounds-then-continues-as-new',
        workflowType: 'depositAddressPoolWorkflow',
        marker: '"chainId":501',
        ending: 'continued-as-new',
        activities: ['refillDepositAddressPool'],
      },
    ],
    async record(env, workflowBundle) {
      return runWorkflow<typeof depositAddressPoolWorkflow, Map<string, History>>({
        env,
        workflowBundle,
        fakes: new FakeActivities(),
        workflowType: 'depositAddressPoolWorkflow',
        workflowId: `replay-${depositAddressPoolWorkflowId(501)}`,
        args: [{ chainId: 501, intervalMs: 2_000, roundsPerRun: 5 }],
        searchAttributes: false,
        body: async (handle) => {
          const first = env.client.workflow.getHandle(handle.workflowId, (await handle.describe()).runId, { followRuns: false });
          await first.result().then(
            () => Promise.reject(new Error('the pool keeper ended')),
            (err: unknown) => {
              if (!(err instanceof WorkflowContinuedAsNewError)) throw err;
            },
          );
          return new Map([['deposit-address-pool-rounds-then-continues-as-new', await first.fetchHistory()]]);
        },
      });
    },
  },
  {
    scenarios: [
      {
        name: 'rebalance-bridged-completed',
        workflowType: 'rebalanceWorkflow',
        marker: idOf('rebalance'),
        ending: { result: 'completed' },
        activities: ['loadRebalance', 'quoteBridge', 'recordRebalanceQuote', 'approveBridge', 'awaitChainTx', 'startBridge', 'awaitBridgeArrival', 'finishBridge', 'endRebalance'],
      },
    ],
    async record(env, workflowBundle) {
      const rebalanceId = idOf('rebalance');
      const fakes = new FakeActivities();
      fakes.rebalances.set(rebalanceId, { rebalanceId, tokenSymbol: 'USDC', fromChainId: SOURCE_CHAIN_ID, toChainId: DESTINATION_CHAIN_ID, amountUnits: '100000000000', status: 'bridging' });
      const history = await runWorkflow<typeof rebalanceWorkflow, History>({
        env,
        workflowBundle,
        fakes,
        workflowType: 'rebalanceWorkflow',
        workflowId: rebalanceWorkflowId(rebalanceId),
        args: [{ rebalanceId }],
        searchAttributes: false,
        body: async (handle) => {
          if ((await handle.result()) !== 'completed') throw new Error('rebalance not completed');
          return handle.fetchHistory();
        },
      });
      return new Map([['rebalance-bridged-completed', history]]);
    },
  },
  {
    scenarios: [
      {
        name: 'rebalancer-rounds-then-continues-as-new',
        workflowType: 'rebalancerWorkflow',
        marker: '"intervalMs":60000',
        ending: 'continued-as-new',
        activities: ['rebalanceRound'],
      },
    ],
    async record(env, workflowBundle) {
      const fakes = new FakeActivities();
      return runWorkflow<typeof rebalancerWorkflow, Map<string, History>>({
        env,
        workflowBundle,
        fakes,
        workflowType: 'rebalancerWorkflow',
        workflowId: 'replay-treasury-rebalancer',
        args: [{ intervalMs: 60_000, roundsPerRun: 3 }],
        searchAttributes: false,
        body: async (handle) => {
          // One round at once on checkFloats, the others at the interval.
          await eventually('the first round', 10_000, () => Promise.resolve(fakes.callsOf('rebalanceRound').length > 0 ? true : undefined));
          await handle.signal(checkFloatsSignal);
          const first = env.client.workflow.getHandle(handle.workflowId, (await handle.describe()).runId, { followRuns: false });
          await first.result().then(
            () => Promise.reject(new Error('the rebalancer ended')),
            (err: unknown) => {
              if (!(err instanceof WorkflowContinuedAsNewError)) throw err;
            },
          );
          return new Map([['rebalancer-rounds-then-continues-as-new', await first.fetchHistory()]]);
        },
      });
    },
  },
];

/** Every scenario with a recorded history. */
export const HISTORY_SCENARIOS: HistoryScenario[] = RECORDINGS.flatMap((r) => r.scenarios);
