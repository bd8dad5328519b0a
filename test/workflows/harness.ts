/**
 * Test harness for the payment workflow: a scripted fake of every activity (the chain is simulated here),
 * payment inputs, and a helper that runs one payment on its own task queue against a local Temporal dev server.
 *
 * Shared by `payment.workflow.test.ts` and by `scripts/record-histories.ts`, which records the replay histories.
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { PaymentActivities } from '../../activities';
import type { WebhookEventType } from '../../db/tables';
import { resolveTemporalCli } from '../../scripts/provision/temporal-cli';
import type { paymentWorkflow } from '../../workflows';
import { customSearchAttributes, PaymentStatusKey } from '../../workflows/search-attributes';
import type {
  ChainTxResult,
  ConfirmedPayin,
  DetectedPayin,
  PaymentStatus,
  PaymentTransition,
  PaymentWorkflowInput,
} from '../../workflows/types';

export const WORKFLOWS_PATH = require.resolve('../../workflows');

export const SOURCE_CHAIN_ID = 31337;
export const DESTINATION_CHAIN_ID = 31338;
/** USDC on each devnet chain (checksummed, as the API stores them). */
export const SOURCE_TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
export const DESTINATION_TOKEN = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
/** Some other ERC-20 a customer might send by mistake. */
export const OTHER_TOKEN = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
export const DEPOSIT_ADDRESS = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9';
export const MERCHANT_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const CUSTOMER_ADDRESS = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
export const OTHER_SENDER_ADDRESS = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

/** 10 USDC (6 decimals) required; 0.05 USDC fee; the merchant gets the rest. */
export const REQUIRED_UNITS = '10000000';
export const FEE_UNITS = '50000';
export const PAYOUT_UNITS = '9950000';

/** Block time the fake chain reports for every confirmed payin and transaction. */
export const CONFIRMED_AT = '2025-01-01T00:00:00.000Z';

export interface PaymentInputOptions {
  paymentId: string;
  crossChain?: boolean;
  /** Expiry relative to now; defaults to an hour (never reached by a test). */
  expiresInMs?: number;
  latePayinWindowMs?: number;
}

export function paymentInput(opts: PaymentInputOptions): PaymentWorkflowInput {
  const crossChain = opts.crossChain ?? false;
  return {
    paymentId: opts.paymentId,
    appId: 'app_test',
    orderId: `order-${opts.paymentId}`,
    source: {
      chainId: SOURCE_CHAIN_ID,
      symbol: 'USDC',
      address: SOURCE_TOKEN,
      decimals: 6,
      amountUnits: REQUIRED_UNITS,
      feeUnits: FEE_UNITS,
      depositAddress: DEPOSIT_ADDRESS,
    },
    destination: {
      chainId: crossChain ? DESTINATION_CHAIN_ID : SOURCE_CHAIN_ID,
      symbol: 'USDC',
      address: crossChain ? DESTINATION_TOKEN : SOURCE_TOKEN,
      decimals: 6,
      receiverAddress: MERCHANT_ADDRESS,
      amountUnits: PAYOUT_UNITS,
    },
    expiresAt: new Date(Date.now() + (opts.expiresInMs ?? 3_600_000)).toISOString(),
    latePayinWindowMs: opts.latePayinWindowMs ?? 300,
  };
}

const hash = (text: string): string => `0x${createHash('sha256').update(text).digest('hex')}`;

/** An ERC-20 transfer into the deposit address, as the chain watcher would signal it. */
export function detectedPayin(opts: {
  tx: string;
  logIndex?: number;
  blockNumber?: number;
  amountUnits?: string;
  tokenAddress?: string;
  from?: string;
}): DetectedPayin {
  return {
    chainId: SOURCE_CHAIN_ID,
    txHash: hash(`payin:${opts.tx}`),
    logIndex: opts.logIndex ?? 0,
    blockNumber: opts.blockNumber ?? 100,
    tokenAddress: opts.tokenAddress ?? SOURCE_TOKEN,
    from: opts.from ?? CUSTOMER_ADDRESS,
    to: DEPOSIT_ADDRESS,
    amountUnits: opts.amountUnits ?? REQUIRED_UNITS,
  };
}

export const payinKey = (payin: Pick<DetectedPayin, 'txHash' | 'logIndex'>): string => `${payin.txHash}:${payin.logIndex}`;

/** The chain transaction hash the fake chain gives an intent. */
export const txHashOf = (intentKey: string): string => hash(`tx:${intentKey}`);

type Input<K extends keyof PaymentActivities> = Parameters<PaymentActivities[K]>[0];
export type ActivityCall = { [K in keyof PaymentActivities]: { name: K; input: Input<K> } }[keyof PaymentActivities];
export type ChainWriteName = 'sweepDeposit' | 'transferFromTreasury' | 'burnForBridge' | 'mintFromBridge';
const CHAIN_WRITES: readonly string[] = ['sweepDeposit', 'transferFromTreasury', 'burnForBridge', 'mintFromBridge'];

class Gate {
  readonly opened: Promise<void>;
  open!: () => void;
  constructor() {
    this.opened = new Promise((resolve) => (this.open = resolve));
  }
}

/**
 * Every activity of the payment workflow, faked. Records each call in order; answers from a script:
 * payin confirmations default to "confirmed" (queue other outcomes per payin), chain transactions default
 * to succeeded (mark intents as reverted). `chainWrites` etc. read the record back.
 */
export class FakeActivities {
  readonly calls: ActivityCall[] = [];
  /** Intent keys whose transaction the fake chain mines as reverted. */
  readonly reverted = new Set<string>();
  /** Runs inside `extendDepositWatch` before it returns, i.e. before the late-payin window starts. */
  onExtendDepositWatch?: () => Promise<void>;
  /** While set, `awaitPayinConfirmation` waits for it (the payin "sits in the mempool"). */
  confirmationGate?: Promise<void>;
  /** While set, `deliverWebhook` waits for it (the merchant's endpoint is slow). */
  webhookGate?: Promise<void>;
  /** Makes `deliverWebhook` fail for good (as if the database stayed unreachable through every retry). */
  failWebhooks = false;

  private readonly outcomes = new Map<string, Array<'confirmed' | 'dropped'>>();
  /** Payins the fake chain re-mines after a reorg: same transaction and transfer, another log index. */
  readonly remined = new Map<string, number>();
  private readonly written = new Set<string>();
  private readonly statusWaiters: Array<{ status: PaymentStatus; resolve: () => void }> = [];

  /** The next confirmations of this payin answer these outcomes, in order; then "confirmed". */
  scriptConfirmation(payin: DetectedPayin, ...outcomes: Array<'confirmed' | 'dropped'>): void {
    this.outcomes.set(payinKey(payin), outcomes);
  }

  /** Holds every payin confirmation until the returned function is called. */
  holdConfirmations(): () => void {
    const gate = new Gate();
    this.confirmationGate = gate.opened;
    return () => {
      this.confirmationGate = undefined;
      gate.open();
    };
  }

  /** Holds every webhook delivery until the returned function is called. */
  holdWebhooks(): () => void {
    const gate = new Gate();
    this.webhookGate = gate.opened;
    return () => {
      this.webhookGate = undefined;
      gate.open();
    };
  }

  /** Event types of the `deliverWebhook` calls, in call order. */
  webhookEvents(): WebhookEventType[] {
    return this.callsOf('deliverWebhook').map((c) => c.eventType);
  }

  /** Resolves once `recordPaymentTransition` was called with this status. */
  reached(status: PaymentStatus): Promise<void> {
    if (this.statuses().includes(status)) return Promise.resolve();
    return new Promise((resolve) => this.statusWaiters.push({ status, resolve }));
  }

  callsOf<K extends keyof PaymentActivities>(name: K): Array<Input<K>> {
    return this.calls.filter((c) => c.name === name).map((c) => c.input as Input<K>);
  }

  transitions(): PaymentTransition[] {
    return this.callsOf('recordPaymentTransition');
  }

  statuses(): PaymentStatus[] {
    return this.transitions().map((t) => t.status);
  }

  /** Chain writes in call order, as `[name, input]` pairs. */
  chainWrites(): Array<{ name: ChainWriteName; input: Record<string, unknown> }> {
    return this.calls
      .filter((c) => CHAIN_WRITES.includes(c.name))
      .map((c) => ({ name: c.name as ChainWriteName, input: c.input as unknown as Record<string, unknown> }));
  }

  private record(call: ActivityCall): void {
    this.calls.push(call);
  }

  private submitted(intentKey: string): { intentKey: string; txHash: string } {
    this.written.add(intentKey);
    return { intentKey, txHash: txHashOf(intentKey) };
  }

  readonly activities: PaymentActivities = {
    recordPaymentTransition: async (input) => {
      this.record({ name: 'recordPaymentTransition', input });
      for (const waiter of this.statusWaiters.filter((w) => w.status === input.status)) waiter.resolve();
      await Promise.resolve();
    },
    recordPayin: async (input) => {
      this.record({ name: 'recordPayin', input });
      await Promise.resolve();
    },
    extendDepositWatch: async (input) => {
      this.record({ name: 'extendDepositWatch', input });
      await this.onExtendDepositWatch?.();
    },
    scanChain: async (input) => {
      this.record({ name: 'scanChain', input });
      await Promise.resolve();
      throw ApplicationFailure.nonRetryable('scanChain is not used by the payment workflow', 'UnexpectedActivity');
    },
    startOrphanedPaymentWorkflows: async (input) => {
      this.record({ name: 'startOrphanedPaymentWorkflows', input });
      await Promise.resolve();
      throw ApplicationFailure.nonRetryable('startOrphanedPaymentWorkflows is not used by the payment workflow', 'UnexpectedActivity');
    },
    awaitPayinConfirmation: async (input) => {
      this.record({ name: 'awaitPayinConfirmation', input });
      if (this.confirmationGate) await this.confirmationGate;
      const outcome = this.outcomes.get(payinKey(input.payin))?.shift() ?? 'confirmed';
      if (outcome === 'dropped') return { outcome };
      const logIndex = this.remined.get(payinKey(input.payin)) ?? input.payin.logIndex;
      const payin: ConfirmedPayin = { ...input.payin, logIndex, confirmedAt: CONFIRMED_AT };
      return { outcome, payin };
    },
    sweepDeposit: async (input) => {
      this.record({ name: 'sweepDeposit', input });
      await Promise.resolve();
      return this.submitted(input.intentKey);
    },
    transferFromTreasury: async (input) => {
      this.record({ name: 'transferFromTreasury', input });
      await Promise.resolve();
      return this.submitted(input.intentKey);
    },
    burnForBridge: async (input) => {
      this.record({ name: 'burnForBridge', input });
      await Promise.resolve();
      return this.submitted(input.intentKey);
    },
    mintFromBridge: async (input) => {
      this.record({ name: 'mintFromBridge', input });
      await Promise.resolve();
      return this.submitted(input.intentKey);
    },
    deliverWebhook: async (input) => {
      this.record({ name: 'deliverWebhook', input });
      if (this.webhookGate) await this.webhookGate;
      if (this.failWebhooks) throw ApplicationFailure.nonRetryable('database unreachable', 'FakeOutage');
      return { status: 'delivered', deliveryId: `delivery:${input.paymentId}:${input.eventType}`, statusCode: 200 };
    },
    awaitChainTx: async (input): Promise<ChainTxResult> => {
      this.record({ name: 'awaitChainTx', input });
      await Promise.resolve();
      if (!this.written.has(input.intentKey)) {
        throw ApplicationFailure.nonRetryable(`awaited intent ${input.intentKey} that was never submitted`, 'UnknownIntent');
      }
      return {
        intentKey: input.intentKey,
        txHash: txHashOf(input.intentKey),
        blockNumber: input.depth === 'finality' ? 164 : 112,
        succeeded: !this.reverted.has(input.intentKey),
        confirmedAt: CONFIRMED_AT,
      };
    },
  };
}

/** A local Temporal dev server (the `temporal` CLI) with Payrail's search attributes registered. */
export async function createTestEnv(): Promise<TestWorkflowEnvironment> {
  quietSdkLogs();
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: await resolveTemporalCli() },
      searchAttributes: [...customSearchAttributes],
    },
  });
}

/**
 * Worker lifecycle chatter (INFO) would drown the test output. The SDK runtime is process-wide and can only be
 * configured before it first starts; if another suite in this mocha process already started it, keep its settings.
 * (It shuts itself down once idle, e.g. after `env.teardown()`, so a later suite can still install its own.)
 */
export function quietSdkLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already running with someone else's options.
  }
}

/** Bundles the workflows once; every worker of a test run reuses the bundle (webpack is the slow part). */
export async function bundleWorkflows(workflowsPath = WORKFLOWS_PATH): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: quietLogger });
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string, meta?: Record<string, unknown>) => console.warn(message, meta ?? ''),
  error: (message: string, meta?: Record<string, unknown>) => console.error(message, meta ?? ''),
};

let taskQueueSeq = 0;

/**
 * Starts the payment workflow as the API does (PaymentStatus search attribute = unpaid) on a fresh task queue,
 * runs a worker with the fakes while `body` drives the payment, and shuts the worker down afterwards.
 */
export async function runPayment<T>(opts: {
  env: TestWorkflowEnvironment;
  workflowBundle: WorkflowBundleWithSourceMap;
  fakes: FakeActivities;
  input: PaymentWorkflowInput;
  workflowId?: string;
  body: (handle: WorkflowHandle<typeof paymentWorkflow>) => Promise<T>;
}): Promise<T> {
  const taskQueue = `payment-test-${process.pid}-${++taskQueueSeq}-${opts.input.paymentId}`;
  const worker = await Worker.create({
    connection: opts.env.nativeConnection,
    taskQueue,
    workflowBundle: opts.workflowBundle,
    activities: opts.fakes.activities,
  });
  return worker.runUntil(async () => {
    const handle = await opts.env.client.workflow.start<typeof paymentWorkflow>('paymentWorkflow', {
      workflowId: opts.workflowId ?? `payment-${opts.input.paymentId}`,
      taskQueue,
      args: [opts.input],
      typedSearchAttributes: [{ key: PaymentStatusKey, value: 'payment_unpaid' }],
    });
    try {
      return await opts.body(handle);
    } finally {
      // A failed assertion must not leave the workflow waiting for a worker that is gone.
      const { status } = await handle.describe();
      if (status.name === 'RUNNING') await handle.terminate('test finished');
    }
  });
}
