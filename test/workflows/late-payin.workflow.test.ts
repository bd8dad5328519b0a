/** The late-payin workflow against faked activities: a payin reaching a closed payment's deposit address. */
import assert from 'node:assert/strict';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { intentKeys } from '../../domain/chain-txs';
import { payinId, type DetectedPayin } from '../../domain/payins';
import { LATE_PAYIN_SEQUENCE_BASE, type PaymentStatus } from '../../domain/payment';
import type { latePayinWorkflow } from '../../workflows';
import { latePayinWorkflowId } from '../../workflows/ids';
import { retryChainStepSignal } from '../../workflows/messages';
import { AwaitingOperatorKey } from '../../workflows/search-attributes';
import type { LatePayinOutcome } from '../../workflows/types';
import { eventually } from '../support/poll';
import { getTestEnv, getWorkflowBundle } from '../support/temporal';
import { FakeActivities, OTHER_SENDER_ADDRESS, OTHER_TOKEN, detectedPayin, paymentTerms, runWorkflow } from './harness';

describe('late-payin workflow (mocked activities, time-skipping server)', function () {
  this.timeout(60_000);
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;
  let seq = 0;

  before(async function () {
    this.timeout(180_000);
    [env, workflowBundle] = await Promise.all([getTestEnv(), getWorkflowBundle()]);
  });

  async function late(payin: DetectedPayin, status: PaymentStatus, prepare?: (fakes: FakeActivities) => void, whileRunning?: (handle: WorkflowHandle<typeof latePayinWorkflow>) => Promise<void>) {
    const paymentId = `late_${Date.now().toString(36)}_${++seq}`;
    const fakes = new FakeActivities();
    fakes.terms.set(paymentId, { ...paymentTerms({ paymentId, now: await env.currentTimeMs() }), status });
    prepare?.(fakes);
    const result = await runWorkflow<typeof latePayinWorkflow, LatePayinOutcome>({
      env,
      workflowBundle,
      fakes,
      workflowType: 'latePayinWorkflow',
      workflowId: latePayinWorkflowId(payin),
      args: [{ paymentId, payin }],
      searchAttributes: false,
      body: async (handle) => {
        await whileRunning?.(handle);
        return handle.result();
      },
    });
    return { result, fakes, paymentId };
  }

  it('refunds a payin to a completed payment from the deposit address to its sender; the payment stays completed', async () => {
    const payin = detectedPayin({ tx: 'late-completed', amountUnits: '3000000', from: OTHER_SENDER_ADDRESS });
    const { result, fakes, paymentId } = await late(payin, 'payment_completed');
    assert.equal(result, 'refunded');
    const [refund] = fakes.callsOf('sweepDeposit');
    assert.deepEqual(
      [refund?.intentKey, refund?.paymentId, refund?.amountUnits, refund?.recipient],
      [intentKeys.refund(payinId(payin)), paymentId, '3000000', { kind: 'address', address: OTHER_SENDER_ADDRESS }],
    );
    assert.deepEqual(fakes.statuses(), [], 'a completed payment keeps its status');
    assert.equal(fakes.callsOf('claimPayinRefund').length, 1, 'the database is asked before anything moves');
    assert.ok(fakes.callsOf('awaitChainTx').some((c) => c.intentKey === refund!.intentKey), 'the run ends once the refund landed');
  });

  it('an expired payment that receives a payin is bounced, then refunded, with writes that win over the payment run', async () => {
    const payin = detectedPayin({ tx: 'late-expired' });
    const { result, fakes } = await late(payin, 'payment_expired');
    assert.equal(result, 'refunded');
    assert.deepEqual(fakes.statuses(), ['payment_bounced', 'payment_refunded']);
    for (const t of fakes.transitions()) assert.ok(t.sequence > LATE_PAYIN_SEQUENCE_BASE);
  });

  it('refunds a payin in another token in that token', async () => {
    const payin = detectedPayin({ tx: 'late-other-token', tokenAddress: OTHER_TOKEN, amountUnits: '5' });
    const { fakes } = await late(payin, 'payment_completed');
    assert.equal(fakes.callsOf('sweepDeposit')[0]!.tokenAddress, OTHER_TOKEN);
  });

  it('never refunds a payin its payment counted (the database says so), whatever started the run', async () => {
    const payin = detectedPayin({ tx: 'late-counted' });
    const { result, fakes } = await late(payin, 'payment_completed', (f) => f.countedByPayment.add(payinId(payin)));
    assert.equal(result, 'counted_by_payment');
    assert.deepEqual(fakes.chainWrites(), []);
  });

  it('ends without a refund when a reorg removed the payin', async () => {
    const payin = detectedPayin({ tx: 'late-dropped' });
    const { result, fakes } = await late(payin, 'payment_completed', (f) => f.scriptConfirmation(payin, 'confirmations', 'dropped'));
    assert.equal(result, 'dropped');
    assert.deepEqual(fakes.chainWrites(), []);
    assert.equal(fakes.callsOf('recordPayin')[0]!.status, 'dropped');
  });

  const operatorWaits: Array<[string, (f: FakeActivities) => void, string]> = [
    ['whose call would revert', (f) => (f.revertingEstimates.refunds = 1), 'chain_step_reverts'],
    ['whose transaction the node keeps refusing', (f) => (f.refusedWaits.refunds = 1), 'chain_tx_refused'],
  ];
  for (const [why, setUp, waitsAs] of operatorWaits) {
    it(`a refund ${why} waits, visibly (${waitsAs}), for an operator’s retryChainStep, then lands`, async () => {
      const payin = detectedPayin({ tx: `late-operator-${waitsAs}` });
      const { result, fakes } = await late(payin, 'payment_completed', setUp, async (handle) => {
        await eventually('the refund to wait for an operator', 10_000, async () => ((await handle.describe()).typedSearchAttributes.get(AwaitingOperatorKey) === waitsAs ? true : undefined));
        await handle.signal(retryChainStepSignal);
      });
      assert.equal(result, 'refunded');
      assert.deepEqual(fakes.callsOf('awaitChainTx').map((c) => c.intentKey).at(-1), intentKeys.refund(payinId(payin)), 'the refund landed');
    });
  }
});
