/**
 * Every recorded history in ./histories, with the scenario it is the recording of. `replay.test.ts` checks each
 * file against its scenario (workflow type, how it ended, the activities its path called) and replays it against
 * the current workflow code. Recordings of current code are made by `tools/record-histories.ts` from the
 * `record` functions below, driving the workflows through the fakes of test/workflows/harness on the time-skipping
 * test server; legacy recordings were made by code that is now frozen behind a `patched()` id and cannot be made
 * again (they stay until that patch is removed, docs/workflow-versioning.md).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { WorkflowContinuedAsNewError, type WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { ApplicationFailure } from '@temporalio/common';
import type { chainWatcherWorkflow, latePayinWorkflow, orderWorkflow, paymentReconcilerWorkflow, paymentWorkflow } from '../../workflows';
import { chainWatcherWorkflowId, latePayinWorkflowId, orderWorkflowId, paymentWorkflowId } from '../../workflows/ids';
import { payinDetectedSignal, retryChainStepSignal } from '../../workflows/messages';
import { eventually } from '../support/poll';
import { FakeActivities, OTHER_SENDER_ADDRESS, awaitingOperator, OTHER_TOKEN, REQUIRED_UNITS, detectedPayin, paymentTerms, runWorkflow, type TermsOptions } from '../workflows/harness';
import type { DetectedPayin } from '../../domain/payins';

export type History = temporal.api.history.v1.IHistory;

export type WorkflowType = 'paymentWorkflow' | 'latePayinWorkflow' | 'orderWorkflow' | 'chainWatcherWorkflow' | 'paymentReconcilerWorkflow';

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
  /** For legacy recordings: the code they were made with, now frozen. */
  legacy?: string;
}

/** Runs scenarios of current code and returns their histories by scenario name. */
export interface Recording {
  scenarios: HistoryScenario[];
  record(env: TestWorkflowEnvironment, workflowBundle: WorkflowBundleWithSourceMap): Promise<Map<string, History>>;
}

const LEGACY_PAYMENT = 'the payment run before PATCHES.paymentRunEndsWhenSettled (workflows/legacy/payment-v1.ts)';
const LEGACY_ORDER = 'the order run before PATCHES.orderRunEndsAfterItsPayment';

const legacyPayment = (name: string, result: string, activities: string[]): HistoryScenario => ({
  name: `legacy-payment-${name}`,
  workflowType: 'paymentWorkflow',
  marker: `replay_${name.replaceAll('-', '_')}`,
  ending: { result },
  activities,
  legacy: LEGACY_PAYMENT,
});

const V1_SETTLED = ['recordPaymentTransition', 'recordPayin', 'awaitPayinConfirmation', 'sweepDeposit', 'awaitChainTx'];

const FROZEN_CODE_SCENARIOS: HistoryScenario[] = [
  legacyPayment('cross-chain-completed-then-late-payin', 'payment_completed', [...V1_SETTLED, 'burnForBridge', 'mintFromBridge', 'transferFromTreasury', 'extendDepositWatch']),
  legacyPayment('expired-then-late-payin', 'payment_refunded', ['recordPaymentTransition', 'extendDepositWatch', 'recordPayin', 'awaitPayinConfirmation', 'sweepDeposit', 'awaitChainTx']),
  legacyPayment('expired', 'payment_expired', ['recordPaymentTransition', 'extendDepositWatch']),
  { ...legacyPayment('native-cross-chain-completed', 'payment_completed', [...V1_SETTLED, 'transferFromTreasury', 'extendDepositWatch']), marker: 'replay_native' },
  legacyPayment('payout-reverted-refunded', 'payment_refunded', [...V1_SETTLED, 'burnForBridge', 'mintFromBridge', 'transferFromTreasury', 'extendDepositWatch']),
  legacyPayment('reorg-dropped-then-paid', 'payment_completed', [...V1_SETTLED, 'transferFromTreasury', 'extendDepositWatch']),
  legacyPayment('same-chain-overpaid', 'payment_completed', [...V1_SETTLED, 'transferFromTreasury', 'extendDepositWatch']),
  legacyPayment('same-chain-webhook-events', 'payment_completed', ['recordPaymentTransition', 'recordPayin', 'awaitPayinConfirmation', 'deliverWebhook', 'sweepDeposit', 'awaitChainTx', 'transferFromTreasury', 'extendDepositWatch']),
  legacyPayment('underpaid-bounced', 'payment_refunded', [...V1_SETTLED, 'extendDepositWatch']),
  {
    name: 'payment-cross-chain-completed',
    workflowType: 'paymentWorkflow',
    marker: 'replay_payment_cross_chain_completed',
    ending: { result: 'payment_completed' },
    activities: ['loadPaymentTerms', 'recordPayin', 'recordPaymentTransition', 'awaitPayinConfirmation', 'deliverWebhook', 'sweepDeposit', 'awaitChainTx', 'burnForBridge', 'mintFromBridge', 'reservePayoutFunds', 'transferFromTreasury', 'extendDepositWatch'],
    legacy: 'the bridging step before PATCHES.realBridges (DevnetBridge burn and mint)',
  },
  {
    name: 'legacy-order-expired',
    workflowType: 'orderWorkflow',
    marker: '"currencyOptions":["USDC_ARB","ETH_BASE"]',
    ending: { result: 'expired' },
    activities: ['recordOrderTransition', 'deliverOrderCallback'],
    legacy: LEGACY_ORDER,
  },
  {
    name: 'legacy-order-fixed-currency-paid',
    workflowType: 'orderWorkflow',
    marker: '"payCurrency":"USDC_ARB"',
    ending: { result: 'paid' },
    activities: ['createOrderPayment', 'recordOrderTransition', 'deliverOrderCallback', 'sendOrderReceipt'],
    legacy: LEGACY_ORDER,
  },
];

const idOf = (name: string) => `replay_${name.replaceAll('-', '_')}`;

/** A cross-chain payment bridged through the bridge adapters, then paid out on the destination chain. */
const PAID_CROSS_CHAIN_BRIDGED = [
  'loadPaymentTerms', 'recordPayin', 'recordPaymentTransition', 'awaitPayinConfirmation', 'deliverWebhook', 'sweepDeposit', 'awaitChainTx',
  'quoteBridge', 'approveBridge', 'startBridge', 'awaitBridgeArrival', 'finishBridge', 'reservePayoutFunds', 'transferFromTreasury', 'extendDepositWatch',
];

/** The activities of a payment run that settles on the same chain, in the order of their first call. */
const PAID_SAME_CHAIN = [
  'loadPaymentTerms',
  'recordPayin',
  'recordPaymentTransition',
  'awaitPayinConfirmation',
  'deliverWebhook',
  'sweepDeposit',
  'reservePayoutFunds',
  'transferFromTreasury',
  'awaitChainTx',
  'extendDepositWatch',
];
/** The same when a second payin is refunded while the payment settles (unless it is dust), as recorded before PATCHES.payoutBesideSweep. */
const PAID_SAME_CHAIN_WITH_REFUND = [
  'loadPaymentTerms',
  'recordPayin',
  'recordPaymentTransition',
  'awaitPayinConfirmation',
  'deliverWebhook',
  'sweepDeposit',
  'holdDust',
  'reservePayoutFunds',
  'transferFromTreasury',
  'awaitChainTx',
  'extendDepositWatch',
];

/** The dust scenario as recorded before PATCHES.paymentPatchesFolded and since lean runs: the other token's dust held before the webhook. */
const DUST_HELD_BEFORE_THE_WEBHOOK = ['loadPaymentTerms', 'recordPayin', 'awaitPayinConfirmation', 'recordPaymentTransition', 'holdDust', 'deliverWebhook', 'sweepDeposit', 'reservePayoutFunds', 'transferFromTreasury', 'awaitChainTx', 'extendDepositWatch'];

/** Two runs that refund beside the payment as recorded before lean runs (and before that): the webhook before the hold. */
const HELD_AFTER_THE_WEBHOOK: Record<string, string[]> = {
  'payment-multisend-one-paid-one-refunded': [
    'loadPaymentTerms', 'recordPayin', 'recordPaymentTransition', 'awaitPayinConfirmation', 'deliverWebhook', 'holdDust', 'sweepDeposit', 'awaitChainTx', 'reservePayoutFunds', 'transferFromTreasury', 'extendDepositWatch',
  ],
  'payment-wrong-token-refunded-then-paid': [
    'loadPaymentTerms', 'recordPayin', 'awaitPayinConfirmation', 'recordPaymentTransition', 'deliverWebhook', 'holdDust', 'sweepDeposit', 'awaitChainTx', 'reservePayoutFunds', 'transferFromTreasury', 'extendDepositWatch',
  ],
};

/**
 * One payment run of current code: its terms, what arrives, how it ends. `delayed`: started as payments started
 * since delayed starts (PaymentWorkflowInput.lean.timedFromFirstTask, a start delay until the expiry), its payins
 * sent by signal-with-start as the chain watcher sends them. Without it, as lean runs started before, which are
 * still open: no start delay, the expiry timed from the run's start. `localWaits`: started as payments started
 * since local chain waits (delayed, and PaymentWorkflowInput.lean.localWaits). `combinedSteps`: started as every
 * payment starts since combined steps (local waits, and PaymentWorkflowInput.lean.combinedSteps).
 */
function paymentRecording(opts: {
  name: string;
  delayed?: true;
  localWaits?: true;
  combinedSteps?: true;
  terms?: Omit<TermsOptions, 'paymentId' | 'now'>;
  prepare?: (fakes: FakeActivities, paymentId: string) => void;
  drive: (signal: (payin: ReturnType<typeof detectedPayin>) => Promise<void>, fakes: FakeActivities, run: WorkflowHandle) => Promise<void>;
  result: string;
  activities: string[];
}): Recording {
  const paymentId = idOf(opts.name);
  const localWaits = opts.localWaits ?? opts.combinedSteps;
  const delayed = opts.delayed ?? localWaits;
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
        args: [{ paymentId, lean: { expiresAt: terms.expiresAt, ...(delayed ? { timedFromFirstTask: true as const } : {}), ...(localWaits ? { localWaits: true as const } : {}), ...(opts.combinedSteps ? { combinedSteps: true as const } : {}) } }],
        startDelayMs: delayed ? Date.parse(terms.expiresAt) - now : undefined,
        body: async (handle, signalWithStart) => {
          const signal = (payin: DetectedPayin) => (delayed ? signalWithStart(payinDetectedSignal, payin) : handle.signal(payinDetectedSignal, payin));
          await opts.drive(signal, fakes, handle);
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
 * A payment run with combined steps (PaymentWorkflowInput.lean.combinedSteps) that settles on the same chain: its
 * final status keeps the deposit address watched (`extendDepositWatch` only when its drain outlasted that task).
 */
const COMBINED_SAME_CHAIN = ['loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'deliverWebhook', 'sweepDeposit', 'payOutFromTreasury', 'awaitChainTx'];

/** Pays, holding the webhook deliveries until the payment is completed: the run's drain waits for them. */
const payWithSlowWebhooks = (tx: string) => async (signal: (payin: DetectedPayin) => Promise<void>, fakes: FakeActivities) => {
  const release = fakes.holdWebhooks();
  await signal(detectedPayin({ tx }));
  await fakes.reached('payment_completed');
  release();
};

export const RECORDINGS: Recording[] = [
  paymentRecording({
    name: 'payment-combined-steps-same-chain-completed',
    combinedSteps: true,
    drive: payWithSlowWebhooks('v5-same'),
    result: 'payment_completed',
    activities: [...COMBINED_SAME_CHAIN, 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-combined-steps-without-webhook-url-completed',
    combinedSteps: true,
    terms: { webhooks: false },
    drive: (signal) => signal(detectedPayin({ tx: 'v5-no-webhooks' })),
    result: 'payment_completed',
    activities: COMBINED_SAME_CHAIN.filter((name) => name !== 'deliverWebhook'),
  }),
  paymentRecording({
    name: 'payment-combined-steps-treasury-short-then-paid',
    combinedSteps: true,
    prepare: (fakes) => (fakes.treasuryShortFor = 2),
    drive: payWithSlowWebhooks('v5-short'),
    result: 'payment_completed',
    activities: [...COMBINED_SAME_CHAIN, 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-combined-steps-multisend-one-paid-one-refunded',
    combinedSteps: true,
    drive: async (signal) => {
      await signal(detectedPayin({ tx: 'v5-multisend', logIndex: 1 }));
      await signal(detectedPayin({ tx: 'v5-multisend', logIndex: 2 }));
    },
    result: 'payment_completed',
    activities: ['loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'deliverWebhook', 'sweepDeposit', 'payOutFromTreasury', 'awaitChainTx', 'holdDust', 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-combined-steps-cross-chain-bridged-completed',
    combinedSteps: true,
    terms: { crossChain: true },
    drive: (signal) => signal(detectedPayin({ tx: 'v5-cross-bridged' })),
    result: 'payment_completed',
    activities: [
      'loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'deliverWebhook', 'sweepDeposit', 'awaitChainTx',
      'quoteBridge', 'approveBridge', 'startBridge', 'awaitBridgeArrival', 'finishBridge', 'payOutFromTreasury', 'extendDepositWatch',
    ],
  }),
  paymentRecording({
    name: 'payment-combined-steps-underpaid-bounced',
    combinedSteps: true,
    drive: (signal) => signal(detectedPayin({ tx: 'v5-under', amountUnits: '7500000' })),
    result: 'payment_refunded',
    activities: ['loadPaymentTerms', 'recordPaymentProgress', 'awaitPayinConfirmation', 'holdDust', 'sweepDeposit', 'awaitChainTx'],
  }),
  paymentRecording({
    name: 'payment-combined-steps-expired',
    combinedSteps: true,
    drive: () => Promise.resolve(),
    result: 'payment_expired',
    activities: ['loadPaymentTerms', 'recordPaymentProgress'],
  }),
  paymentRecording({
    name: 'payment-same-chain-completed',
    drive: async (signal, fakes) => {
      const release = fakes.holdWebhooks();
      await signal(detectedPayin({ tx: 'v2-same' }));
      await fakes.reached('payment_payout_completed');
      release();
    },
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-cross-chain-bridged-completed',
    terms: { crossChain: true },
    drive: (signal) => signal(detectedPayin({ tx: 'v2-cross-bridged' })),
    result: 'payment_completed',
    activities: PAID_CROSS_CHAIN_BRIDGED,
  }),
  paymentRecording({
    name: 'payment-delayed-start-same-chain-completed',
    delayed: true,
    drive: (signal) => signal(detectedPayin({ tx: 'v3-same' })),
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-local-waits-same-chain-completed',
    localWaits: true,
    drive: (signal) => signal(detectedPayin({ tx: 'v4-same' })),
    result: 'payment_completed',
    activities: [
      'loadPaymentTerms', 'recordPayin', 'recordPaymentTransition', 'awaitPayinConfirmation', 'deliverWebhook', 'sweepDeposit', 'reservePayoutFunds', 'transferFromTreasury', 'awaitChainTx', 'extendDepositWatch',
    ],
  }),
  paymentRecording({
    name: 'payment-local-waits-cross-chain-bridged-completed',
    localWaits: true,
    terms: { crossChain: true },
    drive: (signal) => signal(detectedPayin({ tx: 'v4-cross-bridged' })),
    result: 'payment_completed',
    activities: PAID_CROSS_CHAIN_BRIDGED,
  }),
  paymentRecording({
    name: 'payment-local-waits-wait-handed-to-activity-completed',
    localWaits: true,
    terms: { webhooks: false },
    prepare: (fakes) => (fakes.failLocalWaits = 1),
    drive: (signal) => signal(detectedPayin({ tx: 'v4-handed-over' })),
    result: 'payment_completed',
    activities: ['loadPaymentTerms', 'recordPayin', 'recordPaymentTransition', 'awaitPayinConfirmation', 'sweepDeposit', 'reservePayoutFunds', 'transferFromTreasury', 'awaitChainTx', 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-delayed-start-expired',
    delayed: true,
    drive: () => Promise.resolve(),
    result: 'payment_expired',
    activities: ['loadPaymentTerms', 'recordPaymentTransition', 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-expired',
    drive: () => Promise.resolve(),
    result: 'payment_expired',
    activities: ['loadPaymentTerms', 'recordPaymentTransition', 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-underpaid-bounced',
    drive: (signal) => signal(detectedPayin({ tx: 'v2-under', amountUnits: '7500000' })),
    result: 'payment_refunded',
    activities: ['loadPaymentTerms', 'recordPayin', 'recordPaymentTransition', 'awaitPayinConfirmation', 'holdDust', 'sweepDeposit', 'awaitChainTx', 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-multisend-one-paid-one-refunded',
    drive: async (signal) => {
      await signal(detectedPayin({ tx: 'v2-multisend', logIndex: 1 }));
      await signal(detectedPayin({ tx: 'v2-multisend', logIndex: 2 }));
    },
    result: 'payment_completed',
    activities: [
      'loadPaymentTerms', 'recordPayin', 'recordPaymentTransition', 'awaitPayinConfirmation', 'holdDust', 'deliverWebhook', 'sweepDeposit', 'awaitChainTx', 'reservePayoutFunds', 'transferFromTreasury', 'extendDepositWatch',
    ],
  }),
  paymentRecording({
    name: 'payment-wrong-token-refunded-then-paid',
    drive: async (signal) => {
      await signal(detectedPayin({ tx: 'v2-wrong', tokenAddress: OTHER_TOKEN, amountUnits: '1' }));
      await signal(detectedPayin({ tx: 'v2-right', amountUnits: (BigInt(REQUIRED_UNITS) + 1000n).toString(), from: OTHER_SENDER_ADDRESS }));
    },
    result: 'payment_completed',
    activities: ['loadPaymentTerms', 'recordPayin', 'awaitPayinConfirmation', 'recordPaymentTransition', 'holdDust', 'sweepDeposit', 'awaitChainTx', 'deliverWebhook', 'reservePayoutFunds', 'transferFromTreasury', 'extendDepositWatch'],
  }),
  paymentRecording({
    name: 'payment-reorg-before-finality-then-paid',
    prepare: (fakes) => fakes.scriptConfirmation(detectedPayin({ tx: 'v2-shallow' }), 'finality', 'dropped'),
    drive: async (signal, fakes) => {
      await signal(detectedPayin({ tx: 'v2-shallow' }));
      await fakes.reached('payment_unpaid');
      await signal(detectedPayin({ tx: 'v2-deep' }));
    },
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  paymentRecording({
    name: 'payment-dust-held-then-paid',
    prepare: (fakes) => (fakes.dustUnits = 10_000n),
    drive: async (signal) => {
      // A dust payin in another token, then the payment with a dust excess: both are held, nothing is refunded.
      await signal(detectedPayin({ tx: 'v2-dust-other', tokenAddress: OTHER_TOKEN, amountUnits: '1' }));
      await signal(detectedPayin({ tx: 'v2-dust-paid', amountUnits: (BigInt(REQUIRED_UNITS) + 1n).toString() }));
    },
    result: 'payment_completed',
    activities: DUST_HELD_BEFORE_THE_WEBHOOK,
  }),
  paymentRecording({
    name: 'payment-payout-reverts-until-operator-retries',
    prepare: (fakes) => (fakes.revertingEstimates.payouts = 1),
    drive: async (signal, fakes, run) => {
      await signal(detectedPayin({ tx: 'v2-operator' }));
      await fakes.reached('payment_payout_started');
      await eventually('the payout step to wait for an operator', 10_000, async () =>
        (await awaitingOperator(run)) === 'chain_step_reverts' ? true : undefined,
      );
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
      // Two operator waits open at once (PATCHES.operatorWaitsTracked): a refund's reverting call, then the payout's
      // short treasury; the refund's ends first.
      const awaiting = async (value: string) => ((await awaitingOperator(run)) === value ? true : undefined);
      await signal(detectedPayin({ tx: 'v2-waits-other', tokenAddress: OTHER_TOKEN }));
      await eventually('the refund to wait for an operator', 10_000, () => awaiting('chain_step_reverts'));
      await signal(detectedPayin({ tx: 'v2-waits-paid' }));
      await eventually('the payout to find the treasury short', 10_000, () => Promise.resolve(fakes.callsOf('reservePayoutFunds').length > 0 ? true : undefined));
      await run.signal(retryChainStepSignal);
      await eventually('the payout alone to wait', 10_000, () => awaiting('treasury_short'));
      fakes.treasuryShortFor = 0;
    },
    result: 'payment_completed',
    activities: [
      'loadPaymentTerms', 'recordPayin', 'awaitPayinConfirmation', 'holdDust', 'sweepDeposit', 'recordPaymentTransition', 'deliverWebhook', 'reservePayoutFunds', 'awaitChainTx', 'transferFromTreasury', 'extendDepositWatch',
    ],
  }),
  paymentRecording({
    name: 'payment-without-webhook-url-completed',
    terms: { webhooks: false },
    drive: (signal) => signal(detectedPayin({ tx: 'v2-no-webhooks' })),
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN.filter((name) => name !== 'deliverWebhook'),
  }),
  paymentRecording({
    name: 'payment-treasury-short-then-paid',
    prepare: (fakes) => (fakes.treasuryShortFor = 2),
    drive: (signal) => signal(detectedPayin({ tx: 'v2-short' })),
    result: 'payment_completed',
    activities: PAID_SAME_CHAIN,
  }),
  {
    scenarios: [
      {
        name: 'late-payin-expired-payment-refunded',
        workflowType: 'latePayinWorkflow',
        marker: idOf('late-payin-expired'),
        ending: { result: 'refunded' },
        activities: ['awaitPayinConfirmation', 'claimPayinRefund', 'loadPaymentTerms', 'recordPaymentTransition', 'sweepDeposit', 'awaitChainTx'],
      },
    ],
    async record(env, workflowBundle) {
      const paymentId = idOf('late-payin-expired');
      const payin = detectedPayin({ tx: 'v2-late' });
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
          await payment.signal(payinDetectedSignal, detectedPayin({ tx: 'v2-order' }));
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
];

/**
 * Where those recordings called their activities in another order: three were recorded before
 * PATCHES.adversarialMoneyPath as well (their refunds asked no `holdDust`); the dust one held before the webhook.
 */
const RECORDED_BEFORE_LOCAL_STEPS: Record<string, string[]> = {
  'payment-dust-held-then-paid': DUST_HELD_BEFORE_THE_WEBHOOK,
  'payment-underpaid-bounced': ['loadPaymentTerms', 'recordPayin', 'recordPaymentTransition', 'awaitPayinConfirmation', 'sweepDeposit', 'awaitChainTx', 'extendDepositWatch'],
  'payment-multisend-one-paid-one-refunded': [
    'loadPaymentTerms', 'recordPayin', 'recordPaymentTransition', 'awaitPayinConfirmation', 'deliverWebhook', 'sweepDeposit', 'awaitChainTx', 'reservePayoutFunds', 'transferFromTreasury', 'extendDepositWatch',
  ],
  'payment-wrong-token-refunded-then-paid': [
    'loadPaymentTerms', 'recordPayin', 'awaitPayinConfirmation', 'recordPaymentTransition', 'sweepDeposit', 'awaitChainTx', 'deliverWebhook', 'reservePayoutFunds', 'transferFromTreasury', 'extendDepositWatch',
  ],
};

/**
 * Runs of current code as recorded before a patch: the scenarios `include` picks, under the name `<prefix>-<name>`,
 * with the activity order those recordings had where it differs (`activitiesThen`). Frozen: the code that made them
 * takes the `patched()` branch now.
 */
function recordedBefore(prefix: string, legacy: string, include: (s: HistoryScenario) => boolean, activitiesThen: Record<string, string[]>): HistoryScenario[] {
  return RECORDINGS.flatMap((r) => r.scenarios)
    .filter(include)
    .map((s) => ({ ...s, name: `${prefix}-${s.name}`, activities: activitiesThen[s.name] ?? s.activities, legacy }));
}

/**
 * Payment scenarios first recorded with a later patch (PATCHES.operatorWaitsTracked, PATCHES.noDeliveriesWithoutWebhookUrl):
 * no run before the patches below made them.
 */
const RECORDED_SINCE_LATER_PATCHES = new Set(['payment-refund-reverts-while-treasury-short-then-paid', 'payment-without-webhook-url-completed']);

/** Payment runs started as payments start since delayed starts (and since local waits, combined steps): no run before them started so. */
const isDelayedStart = (s: HistoryScenario) => ['payment-delayed-start-', 'payment-local-waits-', 'payment-combined-steps-'].some((prefix) => s.name.startsWith(prefix));

const isPaymentRun = (s: HistoryScenario) => s.workflowType === 'paymentWorkflow' && !RECORDED_SINCE_LATER_PATCHES.has(s.name) && !isDelayedStart(s);

/** Payment runs of the current code as recorded before PATCHES.localSteps: every step an activity task. */
const BEFORE_LOCAL_STEPS = recordedBefore(
  'before-local-steps',
  'the payment run before PATCHES.localSteps (every step an activity task)',
  isPaymentRun,
  RECORDED_BEFORE_LOCAL_STEPS,
);

/** The payment runs of current code that pay out on the payment's own chain. */
const PAID_ON_SAME_CHAIN = new Set([
  'payment-same-chain-completed',
  'payment-multisend-one-paid-one-refunded',
  'payment-wrong-token-refunded-then-paid',
  'payment-reorg-before-finality-then-paid',
  'payment-dust-held-then-paid',
  'payment-payout-reverts-until-operator-retries',
  'payment-treasury-short-then-paid',
  'payment-child-of-order-completed',
]);

/** Where those recordings called their activities in another order than the runs of current code. */
const RECORDED_BEFORE_PAYOUT_BESIDE_SWEEP: Record<string, string[]> = {
  'payment-dust-held-then-paid': DUST_HELD_BEFORE_THE_WEBHOOK,
  'payment-multisend-one-paid-one-refunded': PAID_SAME_CHAIN_WITH_REFUND,
  'payment-wrong-token-refunded-then-paid': [
    'loadPaymentTerms', 'recordPayin', 'awaitPayinConfirmation', 'recordPaymentTransition', 'holdDust', 'sweepDeposit', 'awaitChainTx', 'deliverWebhook', 'reservePayoutFunds', 'transferFromTreasury', 'extendDepositWatch',
  ],
};

/** Those runs as recorded before PATCHES.payoutBesideSweep: the payout signed after the sweep. */
const BEFORE_PAYOUT_BESIDE_SWEEP = recordedBefore(
  'before-payout-beside-sweep',
  'the payment run before PATCHES.payoutBesideSweep (payout signed after the sweep)',
  (s) => PAID_ON_SAME_CHAIN.has(s.name),
  RECORDED_BEFORE_PAYOUT_BESIDE_SWEEP,
);

/** Where those recordings called their activities in another order (the dust payin's hold raced the webhook). */
const RECORDED_BEFORE_FOLDED_PATCHES: Record<string, string[]> = {
  ...HELD_AFTER_THE_WEBHOOK,
  'payment-dust-held-then-paid': DUST_HELD_BEFORE_THE_WEBHOOK,
};

/** Payment runs of the current code as recorded before PATCHES.paymentPatchesFolded: each patch asked for. */
const BEFORE_FOLDED_PATCHES = recordedBefore(
  'before-folded-patches',
  'the payment run before PATCHES.paymentPatchesFolded (each patch asked for)',
  isPaymentRun,
  RECORDED_BEFORE_FOLDED_PATCHES,
);


/** Where those recordings called their activities in another order (the holds after the webhook). */
const RECORDED_BEFORE_LEAN_START: Record<string, string[]> = {
  ...HELD_AFTER_THE_WEBHOOK,
  'payment-dust-held-then-paid': [
    'loadPaymentTerms', 'recordPayin', 'awaitPayinConfirmation', 'recordPaymentTransition', 'deliverWebhook', 'holdDust', 'sweepDeposit', 'reservePayoutFunds', 'transferFromTreasury', 'awaitChainTx', 'extendDepositWatch',
  ],
};

/**
 * Payment runs of the current code as recorded before lean runs (PaymentWorkflowInput.lean): started with the
 * payment id alone, so each read its terms first and recorded PATCHES.paymentPatchesFolded. A legacy order's payment
 * still starts so, and is recorded as such already.
 */
const BEFORE_LEAN_START = recordedBefore(
  'before-lean-start',
  'the payment run started with its id alone (terms read first, the folded patch marker)',
  (s) => s.workflowType === 'paymentWorkflow' && s.name !== 'payment-child-of-order-completed' && !isDelayedStart(s),
  RECORDED_BEFORE_LEAN_START,
);

/** Recordings that cannot be made again: the code that made them is frozen behind a `patched()` id or an older input. */
export const LEGACY_SCENARIOS: HistoryScenario[] = [...FROZEN_CODE_SCENARIOS, ...BEFORE_LOCAL_STEPS, ...BEFORE_PAYOUT_BESIDE_SWEEP, ...BEFORE_FOLDED_PATCHES, ...BEFORE_LEAN_START];

/** Every scenario with a recorded history: legacy ones and those of current code. */
export const HISTORY_SCENARIOS: HistoryScenario[] = [...LEGACY_SCENARIOS, ...RECORDINGS.flatMap((r) => r.scenarios)];
