/**
 * Test harness for Payrail's workflows: a scripted fake of every activity (the chain and the database are
 * simulated here), payment terms and payins, and a helper that runs a workflow on fresh task queues (the workflow
 * queue and its chain-waits queue) against the run's time-skipping test server.
 *
 * Shared by the workflow tests and by `tools/record-histories.ts`, which records the replay histories.
 */
import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { SignalDefinition, Workflow } from '@temporalio/common';
import type { AllActivities } from '../../activities';
import { intentKeys, type ChainTxResult } from '../../domain/chain-txs';
import { payinId, type ConfirmedPayin, type DetectedPayin } from '../../domain/payins';
import { applyPaymentProgress, paymentRoute, settlesAtUnits, type PaymentStatus, type PaymentTerms, type PaymentTransition } from '../../domain/payment';
import type { WebhookEventType } from '../../domain/webhook-events';
import type { OrderStatus } from '../../domain/orders';
import { loadConfig } from '../../lib/config';
import { chainWaitsTaskQueue } from '../../workflows/activity-options';
import { eventually } from '../support/poll';
import { AwaitingOperatorKey, PaymentStatusKey } from '../../workflows/search-attributes';
import type { CreatedOrderPayment, RebalanceTerms } from '../../workflows/types';
import type { RebalanceRound } from '../../services/rebalances';
import type { RefundFundingState } from '../../services/refund-funding';

export const SOURCE_CHAIN_ID = 31337;
export const DESTINATION_CHAIN_ID = 31338;
/** USDC on each devnet chain (checksummed, as the API stores them). */
export const SOURCE_TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
export const DESTINATION_TOKEN = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
/** Some other ERC-20 a customer might send by mistake. */
export const OTHER_TOKEN = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
export const NATIVE_TOKEN = '0x0000000000000000000000000000000000000000';
export const DEPOSIT_ADDRESS = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9';
export const MERCHANT_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const CUSTOMER_ADDRESS = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
export const OTHER_SENDER_ADDRESS = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
export const TREASURY_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** 10 USDC (6 decimals) required; 0.05 USDC fee; the merchant gets the rest. */
export const REQUIRED_UNITS = '10000000';
export const FEE_UNITS = '50000';
export const PAYOUT_UNITS = '9950000';

/** Block time the fake chain reports for every confirmed payin and transaction. */
export const CONFIRMED_AT = '2025-01-01T00:00:00.000Z';

/** The configuration's defaults, unchanged: the payment time-to-live (PAYMENT_TTL_SECONDS, 30 minutes). */
const DEFAULTS = loadConfig({ DATABASE_URL: 'postgres://defaults' });
export const DEFAULT_PAYMENT_TTL_MS = DEFAULTS.paymentTtlSeconds * 1000;

export interface TermsOptions {
  paymentId: string;
  crossChain?: boolean;
  /** Whether a bridge connects the chains of a cross-chain payment; defaults to true. */
  bridgeRoute?: boolean;
  /** A native coin priced at a rate (kept by the treasury). */
  native?: boolean;
  /** Expiry relative to `now`; defaults to the real default payment TTL. */
  expiresInMs?: number;
  /** Whether the payment captured a webhook URL; defaults to true. */
  webhooks?: boolean;
  /** How long the completed payment's payin waits before its sweep; defaults to 0. */
  sweepAfterMs?: number;
  /** The app's underpayment tolerance at creation, in basis points; defaults to 0. */
  toleranceBps?: number;
  /**
   * The test server's clock (`env.currentTimeMs()`): it runs ahead of the wall clock once a test has skipped time,
   * and the workflow measures its expiry from its own start.
   */
  now: number;
}

export function paymentTerms(opts: TermsOptions): PaymentTerms {
  const crossChain = opts.crossChain ?? false;
  const source = opts.native
    ? { chainId: SOURCE_CHAIN_ID, symbol: 'ETH', address: NATIVE_TOKEN, decimals: 18, amountUnits: '10000000000000000', feeUnits: '50000000000000' }
    : { chainId: SOURCE_CHAIN_ID, symbol: 'USDC', address: SOURCE_TOKEN, decimals: 6, amountUnits: REQUIRED_UNITS, feeUnits: FEE_UNITS };
  const destinationChainId = crossChain || opts.native ? DESTINATION_CHAIN_ID : SOURCE_CHAIN_ID;
  return {
    paymentId: opts.paymentId,
    appId: 'merchant_test',
    orderId: `order-${opts.paymentId}`,
    status: 'payment_unpaid',
    source: { ...source, depositAddress: DEPOSIT_ADDRESS, settlesAtUnits: settlesAtUnits(BigInt(source.amountUnits), opts.toleranceBps ?? 0).toString() },
    destination: {
      chainId: destinationChainId,
      symbol: 'USDC',
      address: destinationChainId === SOURCE_CHAIN_ID ? SOURCE_TOKEN : DESTINATION_TOKEN,
      decimals: 6,
      receiverAddress: MERCHANT_ADDRESS,
      amountUnits: PAYOUT_UNITS,
    },
    route: paymentRoute({ source_token_address: source.address, source_chain_id: SOURCE_CHAIN_ID, destination_chain_id: destinationChainId }),
    bridgeRoute: crossChain && (opts.bridgeRoute ?? true),
    expiresAt: new Date(opts.now + (opts.expiresInMs ?? DEFAULT_PAYMENT_TTL_MS)).toISOString(),
    webhooks: opts.webhooks ?? true,
    sweepAfterMs: opts.sweepAfterMs ?? 0,
  };
}

const hash = (text: string): string => `0x${createHash('sha256').update(text).digest('hex')}`;

/** A token transfer into the deposit address, as the chain watcher would signal it. */
export function detectedPayin(opts: {
  tx: string;
  logIndex?: number;
  blockNumber?: number;
  amountUnits?: string;
  tokenAddress?: string;
  from?: string;
  to?: string;
}): DetectedPayin {
  return {
    chainId: SOURCE_CHAIN_ID,
    txHash: hash(`payin:${opts.tx}`),
    logIndex: opts.logIndex ?? 0,
    blockNumber: opts.blockNumber ?? 100,
    tokenAddress: opts.tokenAddress ?? SOURCE_TOKEN,
    from: opts.from ?? CUSTOMER_ADDRESS,
    to: opts.to ?? DEPOSIT_ADDRESS,
    amountUnits: opts.amountUnits ?? REQUIRED_UNITS,
  };
}

/** The chain transaction hash the fake chain gives an intent. */
export const txHashOf = (intentKey: string): string => hash(`tx:${intentKey}`);

type Activities = AllActivities;
type Input<K extends keyof Activities> = Parameters<Activities[K]>[0];
export type ActivityCall = { [K in keyof Activities]: { name: K; input: Input<K> } }[keyof Activities];
export const CHAIN_WRITES = ['sweepDeposit', 'payOutFromTreasury', 'approveBridge', 'startBridge', 'finishBridge'] as const;
export type ChainWriteName = (typeof CHAIN_WRITES)[number];

class Gate {
  readonly opened: Promise<void>;
  open!: () => void;
  constructor() {
    this.opened = new Promise((resolve) => (this.open = resolve));
  }
}

type Outcome = 'confirmed' | 'dropped';

/**
 * Every activity of Payrail's workflows, faked: a simulated chain and database. Records each call in order and
 * answers from a script: payin confirmations default to "confirmed" (queue other outcomes per payin and depth),
 * chain transactions default to succeeded (mark intents as reverted), the treasury holds enough (or is short for
 * the next N looks). `calls`, `statuses()` etc. read the record back.
 */
export class FakeActivities {
  readonly calls: ActivityCall[] = [];
  /** Payment terms by payment id, as the database holds them. */
  readonly terms = new Map<string, PaymentTerms>();
  /** Intent keys whose transaction the fake chain mines as reverted. */
  readonly reverted = new Set<string>();
  /** The next N `payOutFromTreasury` calls find the treasury short. */
  treasuryShortFor = 0;
  /** The next N `sendMerchantRefund` calls from the treasury find it short (`TreasuryShort`). */
  treasuryShortForRefunds = 0;
  /** Amounts (base units) below this are dust: `holdDust` holds them. */
  dustUnits = 0n;
  /** Chain-write calls still to fail as `EstimateReverted` (the call would revert): payouts, refund sweeps, bridge starts. */
  readonly revertingEstimates = { payouts: 0, refunds: 0, bridgeStarts: 0 };
  /** While set, `awaitPayinConfirmation` waits for it (the payin "sits in the mempool"). */
  confirmationGate?: Promise<void>;
  /** Chain waits run as local activities still to fail (a node that does not answer): the run hands each to an activity task. */
  failLocalWaits = 0;
  /** The bridge's expected time in the quote (the chains file's `expectedSeconds`). */
  bridgeExpectedSeconds = 60;
  /** While set, `awaitBridgeArrival` waits for it (Iris has not attested the burn yet). */
  bridgeArrivalGate?: Promise<void>;
  /** Waits still to fail as `ChainTxRefused` (the node keeps refusing the transaction): payouts, refunds. */
  readonly refusedWaits = { payouts: 0, refunds: 0 };
  /** While set, `deliverWebhook` waits for it (the merchant's endpoint is slow). */
  webhookGate?: Promise<void>;
  /** Makes `deliverWebhook` fail for good (as if the database stayed unreachable through every retry). */
  failWebhooks = false;
  /** Rebalances by id, as the database holds them (`endRebalance` sets their status). */
  readonly rebalances = new Map<string, RebalanceTerms>();
  /** What `rebalanceRound` answers, in order (then "nothing to do"). */
  readonly rebalanceRounds: RebalanceRound[] = [];
  /** What `refundFunding` answers for a refund, in order (its last answer then stays); absent: `not_needed`. */
  readonly refundFundings = new Map<string, RefundFundingState[]>();
  /** Whether a funded refund's funding brought more than the refund (`returnFundingExcess` sends it back). */
  fundingExcess = false;
  /** Payins the database says their payment counted (a late-payin run must not refund them). */
  readonly countedByPayment = new Set<string>();
  /** What `scanChain` answers, in order (then "caught up, nothing found"); an Error is thrown. */
  readonly scans: Array<{ caughtUp: boolean; payins: number } | Error> = [];
  /** What `createOrderPayment` answers for each order (the payment's expiry is its terms'). */
  orderPayment?: (input: { orderId: string; payCurrency: string }) => Omit<CreatedOrderPayment, 'expiresAt'>;
  /** createOrderPayment calls still to fail (as for a route the merchant cannot be paid through). */
  failOrderPayments = 0;

  private readonly outcomes = new Map<string, Outcome[]>();
  private readonly written = new Set<string>();
  private readonly statusWaiters: Array<{ status: PaymentStatus; resolve: () => void }> = [];

  /** The next confirmations of this payin at `depth` answer these outcomes, in order; then "confirmed". */
  scriptConfirmation(payin: DetectedPayin, depth: 'confirmations' | 'finality', ...outcomes: Outcome[]): void {
    this.outcomes.set(`${depth}:${payinId(payin)}`, outcomes);
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

  /** Holds every bridge arrival until the returned function is called. */
  holdBridgeArrivals(): () => void {
    const gate = new Gate();
    this.bridgeArrivalGate = gate.opened;
    return () => {
      this.bridgeArrivalGate = undefined;
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

  webhookEvents(): WebhookEventType[] {
    return this.callsOf('deliverWebhook').map((c) => c.eventType);
  }

  /** Resolves once the run recorded this status. */
  reached(status: PaymentStatus): Promise<void> {
    if (this.statuses().includes(status)) return Promise.resolve();
    return new Promise((resolve) => this.statusWaiters.push({ status, resolve }));
  }

  callsOf<K extends keyof Activities>(name: K): Array<Input<K>> {
    return this.calls.filter((c) => c.name === name).map((c) => c.input as Input<K>);
  }

  transitions(): PaymentTransition[] {
    return this.callsOf('recordPaymentTransition');
  }

  statuses(): PaymentStatus[] {
    return this.transitions().map((t) => t.status);
  }

  orderStatuses(): OrderStatus[] {
    return this.callsOf('recordOrderTransition').map((t) => t.status);
  }

  /** Chain writes in call order. */
  chainWrites(): Array<{ name: ChainWriteName; input: Record<string, unknown> }> {
    return this.calls
      .filter((c): c is ActivityCall & { name: ChainWriteName } => (CHAIN_WRITES as readonly string[]).includes(c.name))
      .map((c) => ({ name: c.name, input: c.input as unknown as Record<string, unknown> }));
  }

  /** The refunds sent, as intent key → amount (base units). */
  refunds(): Map<string, string> {
    return new Map(this.callsOf('sweepDeposit').filter((s) => s.recipient.kind === 'address').map((s) => [s.intentKey, s.amountUnits]));
  }

  private record(call: ActivityCall): void {
    this.calls.push(call);
  }

  private submitted(intentKey: string): { intentKey: string; txHash: string } {
    this.written.add(intentKey);
    return { intentKey, txHash: txHashOf(intentKey) };
  }

  private failLocalWait(): void {
    if (Context.current().info.isLocal && this.failLocalWaits-- > 0) throw new Error('the node did not answer');
  }

  private wouldRevert(intentKey: string): ApplicationFailure {
    return ApplicationFailure.nonRetryable(`the call of ${intentKey} would revert`, 'EstimateReverted');
  }

  readonly activities: Activities = {
    loadPaymentTerms: async (input) => {
      this.record({ name: 'loadPaymentTerms', input });
      await Promise.resolve();
      const terms = this.terms.get(input.paymentId);
      if (!terms) throw ApplicationFailure.nonRetryable(`payment ${input.paymentId} does not exist`, 'not_found');
      const statuses = this.transitions().filter((t) => t.paymentId === input.paymentId);
      return { ...terms, status: statuses[statuses.length - 1]?.status ?? terms.status };
    },
    recordPaymentTransition: async (input) => {
      this.record({ name: 'recordPaymentTransition', input });
      for (const waiter of this.statusWaiters.filter((w) => w.status === input.status)) waiter.resolve();
      await Promise.resolve();
    },
    recordPayin: async (input) => {
      this.record({ name: 'recordPayin', input });
      if (input.disposition === 'payment') this.countedByPayment.add(payinId(input.payin));
      await Promise.resolve();
    },
    recordPaymentProgress: async (input) => {
      this.record({ name: 'recordPaymentProgress', input });
      // As the worker's: each write as its own activity would make it, in order.
      await applyPaymentProgress(input.paymentId, input.steps, this.activities);
    },
    holdDust: async (input) => {
      this.record({ name: 'holdDust', input });
      await Promise.resolve();
      return { held: BigInt(input.amountUnits) < this.dustUnits };
    },
    claimPayinRefund: async (input) => {
      this.record({ name: 'claimPayinRefund', input });
      await Promise.resolve();
      return !this.countedByPayment.has(payinId(input.payin));
    },
    extendDepositWatch: async (input) => {
      this.record({ name: 'extendDepositWatch', input });
      await Promise.resolve();
    },
    recordAcceptedAsPaid: async (input) => {
      this.record({ name: 'recordAcceptedAsPaid', input });
      await Promise.resolve();
    },
    startOrphanedWorkflows: async (input) => {
      this.record({ name: 'startOrphanedWorkflows', input });
      await Promise.resolve();
      return 0;
    },
    sweepDeposit: async (input) => {
      this.record({ name: 'sweepDeposit', input });
      await Promise.resolve();
      if (input.intentKey.startsWith(intentKeys.refund('')) && this.revertingEstimates.refunds-- > 0) throw this.wouldRevert(input.intentKey);
      return this.submitted(input.intentKey);
    },
    quoteBridge: async (input) => {
      this.record({ name: 'quoteBridge', input });
      await Promise.resolve();
      const { sourceChainId, destinationChainId, tokenSymbol, amountUnits } = input;
      return { kind: 'cctp', sourceChainId, destinationChainId, tokenSymbol, amountUnits, recipient: TREASURY_ADDRESS, maxFeeUnits: '1100', nativeFeeWei: '0', expectedSeconds: this.bridgeExpectedSeconds, params: { minFinalityThreshold: '1000' } };
    },
    approveBridge: async (input) => {
      this.record({ name: 'approveBridge', input });
      await Promise.resolve();
      return this.submitted('paymentId' in input ? intentKeys.bridgeApprove(input.paymentId) : intentKeys.rebalanceApprove(input.rebalanceId));
    },
    startBridge: async (input) => {
      this.record({ name: 'startBridge', input });
      await Promise.resolve();
      if (this.revertingEstimates.bridgeStarts-- > 0) throw this.wouldRevert('bridge start');
      return this.submitted('paymentId' in input ? intentKeys.bridgeBurn(input.paymentId) : intentKeys.rebalanceBurn(input.rebalanceId));
    },
    awaitBridgeArrival: async (input) => {
      this.record({ name: 'awaitBridgeArrival', input });
      if (this.bridgeArrivalGate) await this.bridgeArrivalGate;
      await Promise.resolve();
      return { state: 'attested', message: hash(`message:${input.startTxHash}`), attestation: hash(`attestation:${input.startTxHash}`) };
    },
    finishBridge: async (input) => {
      this.record({ name: 'finishBridge', input });
      await Promise.resolve();
      return this.submitted('paymentId' in input ? intentKeys.bridgeMint(input.paymentId) : intentKeys.rebalanceMint(input.rebalanceId));
    },
    payOutFromTreasury: async (input) => {
      this.record({ name: 'payOutFromTreasury', input });
      await Promise.resolve();
      const reserved = this.treasuryShortFor-- <= 0;
      if (reserved && this.revertingEstimates.payouts-- > 0) throw this.wouldRevert(input.intentKey);
      return { reserved, availableUnits: reserved ? '1000000000000' : '0', payout: reserved ? this.submitted(input.intentKey) : null };
    },
    refundFunding: async (input) => {
      this.record({ name: 'refundFunding', input });
      await Promise.resolve();
      const states = this.refundFundings.get(input.refundId) ?? [];
      return (states.length > 1 ? states.shift() : states[0]) ?? 'not_needed';
    },
    returnFundingExcess: async (input) => {
      this.record({ name: 'returnFundingExcess', input });
      await Promise.resolve();
      return this.fundingExcess ? this.submitted(intentKeys.refund(`funding-of-${input.refundId}`)) : null;
    },
    sendMerchantRefund: async (input) => {
      this.record({ name: 'sendMerchantRefund', input });
      await Promise.resolve();
      const funded = this.refundFundings.get(input.refundId)?.includes('funded');
      const intentKey = funded ? intentKeys.fundedRefund(input.refundId) : intentKeys.merchantRefund(input.refundId);
      if (this.revertingEstimates.refunds-- > 0) throw this.wouldRevert(intentKey);
      if (!funded && this.treasuryShortForRefunds-- > 0) throw ApplicationFailure.nonRetryable(`the treasury cannot cover ${intentKey}`, 'TreasuryShort');
      return this.submitted(intentKey);
    },
    completeMerchantRefund: async (input) => {
      this.record({ name: 'completeMerchantRefund', input });
      await Promise.resolve();
    },
    failMerchantRefund: async (input) => {
      this.record({ name: 'failMerchantRefund', input });
      await Promise.resolve();
    },
    deliverWebhook: async (input) => {
      this.record({ name: 'deliverWebhook', input });
      if (this.webhookGate) await this.webhookGate;
      if (this.failWebhooks) throw ApplicationFailure.nonRetryable('database unreachable', 'FakeOutage');
      return { status: 'delivered', deliveryId: `delivery:${input.paymentId}:${input.eventType}`, statusCode: 200 };
    },
    awaitPayinConfirmation: async (input) => {
      this.record({ name: 'awaitPayinConfirmation', input });
      this.failLocalWait();
      if (this.confirmationGate) await this.confirmationGate;
      const outcome = this.outcomes.get(`${input.depth ?? 'confirmations'}:${payinId(input.payin)}`)?.shift() ?? 'confirmed';
      if (outcome === 'dropped') return { outcome };
      const payin: ConfirmedPayin = { ...input.payin, confirmedAt: CONFIRMED_AT };
      return { outcome, payin };
    },
    awaitChainTx: async (input): Promise<ChainTxResult> => {
      this.record({ name: 'awaitChainTx', input });
      this.failLocalWait();
      await Promise.resolve();
      if (!this.written.has(input.intentKey)) {
        throw ApplicationFailure.nonRetryable(`awaited intent ${input.intentKey} that was never submitted`, 'UnknownIntent');
      }
      const refusedOf = input.intentKey.startsWith(intentKeys.payout('')) ? 'payouts' : input.intentKey.startsWith(intentKeys.refund('')) ? 'refunds' : undefined;
      if (refusedOf && this.refusedWaits[refusedOf] > 0) {
        this.refusedWaits[refusedOf]--;
        throw ApplicationFailure.nonRetryable(`the node keeps refusing ${input.intentKey}: insufficient funds for fee`, 'ChainTxRefused');
      }
      return {
        intentKey: input.intentKey,
        txHash: txHashOf(input.intentKey),
        blockNumber: input.depth === 'finality' ? 164 : 112,
        succeeded: !this.reverted.has(input.intentKey),
        confirmedAt: CONFIRMED_AT,
      };
    },
    scanChain: async (input) => {
      this.record({ name: 'scanChain', input });
      await Promise.resolve();
      const next = this.scans.shift() ?? { caughtUp: true, payins: 0 };
      if (next instanceof Error) throw next;
      return { range: { fromBlock: 1, toBlock: input.maxBlocks }, head: input.maxBlocks, ...next };
    },
    createOrderPayment: async (input) => {
      this.record({ name: 'createOrderPayment', input });
      await Promise.resolve();
      if (this.failOrderPayments-- > 0) throw ApplicationFailure.nonRetryable('price_amount: is too small to pay out after the fee', 'invalid_request');
      if (!this.orderPayment) throw ApplicationFailure.nonRetryable('no order payment scripted', 'UnexpectedActivity');
      const created = this.orderPayment(input);
      const terms = this.terms.get(created.paymentId);
      if (!terms) throw ApplicationFailure.nonRetryable(`payment ${created.paymentId} has no terms`, 'not_found');
      return { ...created, expiresAt: terms.expiresAt };
    },
    recordOrderTransition: async (input) => {
      this.record({ name: 'recordOrderTransition', input });
      await Promise.resolve();
    },
    deliverOrderCallback: async (input) => {
      this.record({ name: 'deliverOrderCallback', input });
      await Promise.resolve();
      return { attempt: 1, statusCode: 200 };
    },
    sendOrderReceipt: async (input) => {
      this.record({ name: 'sendOrderReceipt', input });
      await Promise.resolve();
      return { sent: true };
    },
    refillDepositAddressPool: async (input) => {
      this.record({ name: 'refillDepositAddressPool', input });
      await Promise.resolve();
      // The first look finds the pool empty and fills it; later ones find it full.
      return { added: this.callsOf('refillDepositAddressPool').length === 1 ? 1000 : 0 };
    },
    rebalanceRound: async () => {
      this.record({ name: 'rebalanceRound', input: undefined });
      await Promise.resolve();
      return this.rebalanceRounds.shift() ?? { opened: [], bridging: [], operatorNeeds: [] };
    },
    loadRebalance: async (input) => {
      this.record({ name: 'loadRebalance', input });
      await Promise.resolve();
      const terms = this.rebalances.get(input.rebalanceId);
      if (!terms) throw ApplicationFailure.nonRetryable(`rebalance ${input.rebalanceId} does not exist`, 'not_found');
      return terms;
    },
    recordRebalanceQuote: async (input) => {
      this.record({ name: 'recordRebalanceQuote', input });
      await Promise.resolve();
    },
    endRebalance: async (input) => {
      this.record({ name: 'endRebalance', input });
      await Promise.resolve();
      const terms = this.rebalances.get(input.rebalanceId)!;
      this.rebalances.set(input.rebalanceId, { ...terms, status: input.status });
      // The fake bridge keeps its quote's maxFee.
      return { receivedUnits: input.status === 'completed' ? (BigInt(terms.amountUnits) - 1100n).toString() : '0' };
    },
    reconcileBooks: async () => {
      this.record({ name: 'reconcileBooks', input: undefined });
      await Promise.resolve();
      // The second round finds a difference: the reconciler records it and goes on.
      return { failures: this.callsOf('reconcileBooks').length === 2 ? 1 : 0 };
    },
  };
}

/** The run's `AwaitingOperator` search attribute, as the Temporal UI shows it. */
export async function awaitingOperator(handle: WorkflowHandle): Promise<string | undefined> {
  return (await handle.describe()).typedSearchAttributes.get(AwaitingOperatorKey);
}

let taskQueueSeq = 0;

/**
 * Starts `workflowType` with `args` on a fresh task queue (and its chain-waits queue), runs workers with the fakes
 * while `body` drives the run, and shuts them down afterwards. Runs still open at the end are terminated, so a
 * failed assertion never leaves a workflow waiting for a worker that is gone.
 */
export async function runWorkflow<W extends Workflow, T>(opts: {
  env: TestWorkflowEnvironment;
  workflowBundle: WorkflowBundleWithSourceMap;
  fakes: FakeActivities;
  workflowType: string;
  workflowId: string;
  args: Parameters<W>;
  /** Search attributes to start with (payments start with PaymentStatus = unpaid, as the API starts them). */
  searchAttributes?: boolean;
  /** Starts the run with this start delay (payments start delayed until their expiry, as the API starts them). */
  startDelayMs?: number;
  /**
   * Runs once the run is started and before any worker polls its queues (its workers down): what it sends waits
   * for the run's first task, which the workers take only after it.
   */
  whileWorkersDown?: (signalWithStart: SignalWithStart) => Promise<void>;
  /** `signalWithStart` sends a signal as the chain watcher does: with the run's own start options. */
  body: (handle: WorkflowHandle<W>, signalWithStart: SignalWithStart) => Promise<T>;
}): Promise<T> {
  const taskQueue = `test-${process.pid}-${++taskQueueSeq}`;
  const base = { connection: opts.env.nativeConnection, workflowBundle: opts.workflowBundle, activities: opts.fakes.activities };
  const [main, waits] = await Promise.all([
    Worker.create({ ...base, taskQueue }),
    Worker.create({ ...base, taskQueue: chainWaitsTaskQueue(taskQueue) }),
  ]);
  const startOptions = {
    workflowId: opts.workflowId,
    taskQueue,
    args: opts.args,
    typedSearchAttributes: opts.searchAttributes === false ? [] : [{ key: PaymentStatusKey, value: 'payment_unpaid' }],
  };
  const signalWithStart: SignalWithStart = async (signal, ...args) => {
    await opts.env.client.workflow.signalWithStart(opts.workflowType, { ...startOptions, signal, signalArgs: args } as never);
  };
  const handle = await opts.env.client.workflow.start<W>(opts.workflowType, {
    ...startOptions,
    ...(opts.startDelayMs ? { startDelay: opts.startDelayMs } : {}),
  } as never);
  const down = await (opts.whileWorkersDown?.(signalWithStart) ?? Promise.resolve()).then(
    () => ({ failed: false as const }),
    (error: unknown) => ({ failed: true as const, error }),
  );
  const run = async (): Promise<T> => {
    try {
      if (down.failed) throw down.error;
      return await opts.body(handle as WorkflowHandle<W>, signalWithStart);
    } finally {
      await terminateIfRunning(opts.env, opts.workflowId);
    }
  };
  return waits.runUntil(main.runUntil(run()));
}

type SignalWithStart = <A extends unknown[]>(signal: SignalDefinition<A>, ...args: A) => Promise<void>;

/**
 * Waits until the test server's clock is past `timeMs`. While a workflow task is outstanding (its workers down) the
 * server does not skip time, and its clock keeps to the wall's: this waits in wall time, for the short steps only.
 */
export async function untilServerTimePasses(env: TestWorkflowEnvironment, timeMs: number): Promise<void> {
  while ((await env.currentTimeMs()) <= timeMs) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * Stops the workflow's current run if it still runs, while its worker still runs: first by cancelling it (its
 * last workflow task then completes normally), and by terminating it when that does not end it, again until no
 * run is left (a run that continues as new meanwhile hands over to a fresh one). The test server holds its time
 * skipping for any workflow task left outstanding (one in flight when its run was terminated, or a timer firing
 * into a task queue no worker polls any more), which would stall every later test.
 */
export async function terminateIfRunning(env: TestWorkflowEnvironment, workflowId: string): Promise<void> {
  const handle = env.client.workflow.getHandle(workflowId);
  const running = async () => (await handle.describe().catch(() => undefined))?.status.name === 'RUNNING';
  if (!(await running())) return;
  await handle.cancel().catch(() => undefined);
  const cancelled = await eventually(`${workflowId} to end after its cancellation`, 5_000, async () => ((await running()) ? undefined : true)).catch(() => false);
  if (cancelled) return;
  await eventually(`${workflowId} to stop running`, 10_000, async () => {
    if (!(await running())) return true;
    await handle.terminate('test finished').catch(() => undefined);
    return (await running()) ? undefined : true;
  });
}
