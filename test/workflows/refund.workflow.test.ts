/**
 * The merchant refund workflow against faked activities: one transaction from the treasury, then its booking; past
 * the app's refund credit, the wait for the merchant's funding first.
 */
import assert from 'node:assert/strict';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { intentKeys } from '../../domain/chain-txs';
import type { RefundStatus } from '../../domain/refunds';
import type { refundWorkflow } from '../../workflows';
import { refundWorkflowId } from '../../workflows/ids';
import { refundFundedSignal, retryChainStepSignal } from '../../workflows/messages';
import { AwaitingOperatorKey } from '../../workflows/search-attributes';
import { eventually } from '../support/poll';
import { getTestEnv, getWorkflowBundle } from '../support/temporal';
import { FakeActivities, runWorkflow } from './harness';

describe('merchant refund workflow (mocked activities, time-skipping server)', function () {
  this.timeout(60_000);
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;
  let seq = 0;

  before(async function () {
    this.timeout(180_000);
    [env, workflowBundle] = await Promise.all([getTestEnv(), getWorkflowBundle()]);
  });

  async function refund(prepare?: (fakes: FakeActivities, refundId: string) => void, whileRunning?: (handle: WorkflowHandle<typeof refundWorkflow>) => Promise<void>) {
    const refundId = `refund_${Date.now().toString(36)}_${++seq}`;
    const fakes = new FakeActivities();
    prepare?.(fakes, refundId);
    const result = await runWorkflow<typeof refundWorkflow, RefundStatus>({
      env,
      workflowBundle,
      fakes,
      workflowType: 'refundWorkflow',
      workflowId: refundWorkflowId(refundId),
      args: [{ refundId, paymentId: 'payment_of_refund' }],
      searchAttributes: false,
      body: async (handle) => {
        await whileRunning?.(handle);
        return handle.result();
      },
    });
    return { result, fakes, refundId };
  }

  it('sends the refund once, waits for it to land, then books it as completed', async () => {
    const { result, fakes, refundId } = await refund();
    assert.equal(result, 'completed');
    assert.deepEqual(fakes.callsOf('sendMerchantRefund'), [{ refundId }], 'the run names the refund, nothing it moves');
    assert.deepEqual(fakes.callsOf('awaitChainTx').map((c) => c.intentKey), [intentKeys.merchantRefund(refundId)]);
    const [completed] = fakes.callsOf('completeMerchantRefund');
    assert.equal(completed?.refundId, refundId);
    assert.match(completed?.txHash ?? '', /^0x/);
    assert.deepEqual(fakes.callsOf('failMerchantRefund'), []);
  });

  it('a refund whose transaction reverted is failed, and nothing is booked', async () => {
    const { result, fakes, refundId } = await refund((f, id) => f.reverted.add(intentKeys.merchantRefund(id)));
    assert.equal(result, 'failed');
    assert.deepEqual(fakes.callsOf('failMerchantRefund').map((c) => c.refundId), [refundId]);
    assert.deepEqual(fakes.callsOf('completeMerchantRefund'), []);
  });

  const operatorWaits: Array<[string, (f: FakeActivities) => void, string]> = [
    ['the treasury cannot cover beside what others reserved', (f) => (f.treasuryShortForRefunds = 1), 'treasury_short'],
    ['whose call would revert (the treasury out of gas coin)', (f) => (f.revertingEstimates.refunds = 1), 'chain_step_reverts'],
  ];
  for (const [why, setUp, waitsAs] of operatorWaits) {
    it(`a refund ${why} waits, visibly (${waitsAs}), for an operator’s retryChainStep, then sends`, async () => {
      const { result, fakes } = await refund(setUp, async (handle) => {
        await eventually('the refund to wait for an operator', 10_000, async () => ((await handle.describe()).typedSearchAttributes.get(AwaitingOperatorKey) === waitsAs ? true : undefined));
        await handle.signal(retryChainStepSignal);
      });
      assert.equal(result, 'completed');
      assert.equal(fakes.callsOf('sendMerchantRefund').length, 2, 'tried again once the operator said so');
    });
  }

  it('past the refund credit: waits for its funding, woken by refundFunded, then sends from the deposit and returns the excess', async () => {
    let running: FakeActivities | undefined;
    const { result, fakes, refundId } = await refund(
      (f, id) => {
        f.refundFundings.set(id, ['awaiting', 'funded']);
        f.fundingExcess = true;
        running = f;
      },
      async (handle) => {
        // Before the run's result is awaited, the test server skips no time: only the wake-up ends this wait.
        await eventually('the refund to read its funding', 10_000, () => Promise.resolve(running!.callsOf('refundFunding').length > 0 ? true : undefined));
        await handle.signal(refundFundedSignal);
        await eventually('the woken refund to be sent', 10_000, () => Promise.resolve(running!.callsOf('sendMerchantRefund').length > 0 ? true : undefined));
      },
    );
    assert.equal(result, 'completed');
    assert.equal(fakes.callsOf('refundFunding').length, 2, 'read once, then again when woken');
    assert.deepEqual(fakes.callsOf('awaitChainTx').map((c) => c.intentKey), [intentKeys.fundedRefund(refundId), intentKeys.refund(`funding-of-${refundId}`)]);
    assert.deepEqual(fakes.callsOf('returnFundingExcess'), [{ refundId }], 'the excess goes back after the refund landed');
    assert.equal(fakes.callsOf('completeMerchantRefund').length, 1);
  });

  it('a refund never funded reads its funding again every hour, and fails at the end of its window without sending anything', async () => {
    const { result, fakes } = await refund((f, id) => f.refundFundings.set(id, ['awaiting', 'awaiting', 'expired']));
    assert.equal(result, 'failed');
    assert.equal(fakes.callsOf('refundFunding').length, 3, 'each hour without a wake-up');
    assert.deepEqual([fakes.callsOf('sendMerchantRefund'), fakes.callsOf('returnFundingExcess')], [[], []]);
  });
});
