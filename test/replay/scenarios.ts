/**
 * The payment runs whose histories are recorded into ./histories (by `scripts/record-histories.ts`) and replayed
 * by ./replay.test.ts. Each drives the workflow through the fake activities of test/workflows/harness.
 * Together they reach every branch of `paymentWorkflow`.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { paymentWorkflow } from '../../workflows';
import { payinDetectedSignal } from '../../workflows/messages';
import type { PaymentStatus } from '../../workflows/types';
import { FakeActivities, OTHER_SENDER_ADDRESS, REQUIRED_UNITS, detectedPayin, type PaymentInputOptions } from '../workflows/harness';

export interface ReplayScenario {
  /** File name (without .json) under test/replay/histories; also the payment id suffix. */
  name: string;
  input: Omit<PaymentInputOptions, 'paymentId'>;
  /** The workflow result the recording must end with. */
  expected: PaymentStatus;
  drive: (handle: WorkflowHandle<typeof paymentWorkflow>, fakes: FakeActivities) => Promise<void>;
}

export const scenarioPaymentId = (name: string): string => `replay_${name.replaceAll('-', '_')}`;

export const REPLAY_SCENARIOS: readonly ReplayScenario[] = [
  {
    name: 'cross-chain-completed-then-late-payin',
    input: { crossChain: true, latePayinWindowMs: 1_000 },
    expected: 'payment_completed',
    async drive(handle, fakes) {
      const paid = detectedPayin({ tx: 'cross-chain-a' });
      const late = detectedPayin({ tx: 'cross-chain-late', amountUnits: '3000000', from: OTHER_SENDER_ADDRESS });
      fakes.onExtendDepositWatch = () => handle.signal(payinDetectedSignal, late);
      await handle.signal(payinDetectedSignal, paid);
    },
  },
  {
    // Recorded under the `webhook-events` patch: both events, the payin's delivery still running during the payout.
    name: 'same-chain-webhook-events',
    input: {},
    expected: 'payment_completed',
    async drive(handle, fakes) {
      const release = fakes.holdWebhooks();
      await handle.signal(payinDetectedSignal, detectedPayin({ tx: 'webhooks-a' }));
      await fakes.reached('payment_payout_completed');
      release();
    },
  },
  {
    name: 'same-chain-overpaid',
    input: {},
    expected: 'payment_completed',
    async drive(handle) {
      await handle.signal(payinDetectedSignal, detectedPayin({ tx: 'overpaid-a', amountUnits: (BigInt(REQUIRED_UNITS) + 500_000n).toString() }));
    },
  },
  {
    name: 'expired',
    input: { expiresInMs: 1_500 },
    expected: 'payment_expired',
    drive() {
      return Promise.resolve(); // Nothing arrives.
    },
  },
  {
    name: 'expired-then-late-payin',
    input: { expiresInMs: 1_500, latePayinWindowMs: 1_000 },
    expected: 'payment_refunded',
    drive(handle, fakes) {
      // Arrives while the workflow opens its late-payin window, after it recorded the expiry.
      fakes.onExtendDepositWatch = () => handle.signal(payinDetectedSignal, detectedPayin({ tx: 'expired-late' }));
      return Promise.resolve();
    },
  },
  {
    name: 'underpaid-bounced',
    input: {},
    expected: 'payment_refunded',
    async drive(handle) {
      await handle.signal(payinDetectedSignal, detectedPayin({ tx: 'underpaid-a', amountUnits: '7500000' }));
    },
  },
  {
    name: 'reorg-dropped-then-paid',
    input: {},
    expected: 'payment_completed',
    async drive(handle, fakes) {
      const ghost = detectedPayin({ tx: 'reorg-ghost' });
      fakes.scriptConfirmation(ghost, 'dropped');
      await handle.signal(payinDetectedSignal, ghost);
      await fakes.reached('payment_unpaid');
      const real = detectedPayin({ tx: 'reorg-real', blockNumber: 107 });
      await handle.signal(payinDetectedSignal, real);
      await handle.signal(payinDetectedSignal, real); // duplicate: ignored
    },
  },
  {
    name: 'payout-reverted-refunded',
    input: { crossChain: true },
    expected: 'payment_refunded',
    async drive(handle, fakes) {
      fakes.reverted.add(`payout:${scenarioPaymentId('payout-reverted-refunded')}`);
      await handle.signal(payinDetectedSignal, detectedPayin({ tx: 'reverted-a' }));
    },
  },
];
