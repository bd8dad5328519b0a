/**
 * The rebalancer and a rebalance's run against faked activities on the time-skipping server: the rebalancer's rounds
 * (every interval, at once on `checkFloats`), and one bridge transfer between treasuries with the payment bridge
 * step's outbox, quote and retry rules, keyed by the rebalance.
 */
import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { WorkflowContinuedAsNewError, WorkflowFailedError } from '@temporalio/client';
import { intentKeys } from '../../domain/chain-txs';
import type { rebalancerWorkflow, rebalanceWorkflow } from '../../workflows';
import { rebalanceWorkflowId } from '../../workflows/ids';
import { checkFloatsSignal, retryChainStepSignal } from '../../workflows/messages';
import { eventually } from '../support/poll';
import { getTestEnv, getWorkflowBundle } from '../support/temporal';
import { awaitingOperator, DESTINATION_CHAIN_ID, FakeActivities, runWorkflow, SOURCE_CHAIN_ID, txHashOf } from './harness';

describe('rebalancer and rebalance workflows (faked activities, time-skipping server)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let workflowBundle: WorkflowBundleWithSourceMap;
  let seq = 0;

  before(async function () {
    this.timeout(180_000);
    [env, workflowBundle] = await Promise.all([getTestEnv(), getWorkflowBundle()]);
  });

  /** Runs one rebalance of 100,000 USDC from the source chain to the destination chain with its own fakes. */
  async function rebalance(drive: (handle: Parameters<Parameters<typeof runWorkflow<typeof rebalanceWorkflow, unknown>>[0]['body']>[0], fakes: FakeActivities) => Promise<void>, prepare?: (fakes: FakeActivities) => void) {
    const rebalanceId = `rebal_${Date.now().toString(36)}_${++seq}`;
    const fakes = new FakeActivities();
    fakes.rebalances.set(rebalanceId, { rebalanceId, tokenSymbol: 'USDC', fromChainId: SOURCE_CHAIN_ID, toChainId: DESTINATION_CHAIN_ID, amountUnits: '100000000000', status: 'bridging' });
    prepare?.(fakes);
    const outcome = await runWorkflow<typeof rebalanceWorkflow, { result: unknown; awaiting: unknown }>({
      env,
      workflowBundle,
      fakes,
      workflowType: 'rebalanceWorkflow',
      workflowId: rebalanceWorkflowId(rebalanceId),
      args: [{ rebalanceId }],
      searchAttributes: false,
      body: async (handle) => {
        await drive(handle, fakes);
        const result = await handle.result().catch((err: unknown) => err);
        return { result, awaiting: await awaitingOperator(handle) };
      },
    });
    return { ...outcome, fakes, rebalanceId };
  }

  it('moves the amount in one bridge transfer: quote recorded, approve → burn → attestation → mint keyed by the rebalance, then completed', async () => {
    const { result, fakes, rebalanceId } = await rebalance(() => Promise.resolve());
    assert.equal(result, 'completed');
    assert.deepEqual(fakes.chainWrites().map((w) => w.name), ['approveBridge', 'startBridge', 'finishBridge']);
    for (const write of fakes.chainWrites()) assert.equal(write.input.rebalanceId, rebalanceId, 'every step is the rebalance’s, of no payment');
    const [quote] = fakes.callsOf('quoteBridge');
    assert.deepEqual([quote!.sourceChainId, quote!.destinationChainId, quote!.tokenSymbol, quote!.amountUnits], [SOURCE_CHAIN_ID, DESTINATION_CHAIN_ID, 'USDC', '100000000000']);
    assert.equal(fakes.callsOf('recordRebalanceQuote')[0]!.quote.maxFeeUnits, '1100', 'the quote is kept before anything is signed');
    assert.ok(fakes.calls.findIndex((c) => c.name === 'recordRebalanceQuote') < fakes.calls.findIndex((c) => c.name === 'approveBridge'));
    assert.deepEqual(
      fakes.callsOf('awaitChainTx').map((c) => c.intentKey),
      [intentKeys.rebalanceApprove(rebalanceId), intentKeys.rebalanceBurn(rebalanceId), intentKeys.rebalanceMint(rebalanceId)],
    );
    assert.equal(fakes.callsOf('awaitBridgeArrival')[0]!.startTxHash, txHashOf(intentKeys.rebalanceBurn(rebalanceId)));
    assert.deepEqual(fakes.callsOf('endRebalance'), [{ rebalanceId, status: 'completed' }]);
  });

  it('a start whose call would revert waits for an operator (AwaitingOperator=chain_step_reverts) and goes on after retryChainStep', async () => {
    let waiting: unknown;
    const { result, fakes } = await rebalance(
      async (handle, f) => {
        await eventually('the operator wait', 15_000, async () => ((await awaitingOperator(handle)) === 'chain_step_reverts' ? true : undefined), 200);
        waiting = await awaitingOperator(handle);
        assert.equal(f.callsOf('startBridge').length, 1, 'not retried blindly');
        await handle.signal(retryChainStepSignal);
      },
      (f) => (f.revertingEstimates.bridgeStarts = 1),
    );
    assert.equal(waiting, 'chain_step_reverts');
    assert.equal(result, 'completed');
    assert.equal(fakes.callsOf('startBridge').length, 2);
  });

  it('a transfer past twice its expected time shows AwaitingOperator=bridge_late until it arrives', async () => {
    const { result, awaiting } = await rebalance(
      async (handle, f) => {
        const release = f.holdBridgeArrivals();
        await eventually('AwaitingOperator=bridge_late', 15_000, async () => ((await awaitingOperator(handle)) === 'bridge_late' ? true : undefined), 200);
        release();
      },
      (f) => (f.bridgeExpectedSeconds = 2),
    );
    assert.equal(result, 'completed');
    assert.equal(awaiting, undefined, 'the flag ends with the wait');
  });

  it('a burn that reverted ends the rebalance as failed and fails the run, naming the transaction', async () => {
    const { result, fakes, rebalanceId } = await rebalance(() => Promise.resolve(), (f) => f.reverted.add(`rebalance-burn:${f.rebalances.keys().next().value}`));
    assert.ok(result instanceof WorkflowFailedError, String(result));
    assert.match(String((result.cause as Error).message), /rebalance-burn:.* reverted/);
    assert.deepEqual(fakes.callsOf('endRebalance'), [{ rebalanceId, status: 'failed' }]);
    assert.equal(fakes.callsOf('finishBridge').length, 0);
  });

  it('a rebalance no longer bridging (its run started again) moves nothing', async () => {
    const { result, fakes } = await rebalance(() => Promise.resolve(), (f) => {
      const [id, terms] = [...f.rebalances][0]!;
      f.rebalances.set(id, { ...terms, status: 'completed' });
    });
    assert.equal(result, 'completed');
    assert.deepEqual(fakes.chainWrites(), []);
  });

  it('the rebalancer runs a round every interval, one at once on checkFloats, and continues as new after its rounds', async () => {
    const fakes = new FakeActivities();
    fakes.rebalanceRounds.push({ opened: ['r1'], bridging: ['r1'], operatorNeeds: [{ symbol: 'USDT', toChainId: 728126428, fromChainId: 8453, amountUnits: '99000000000', route: 'operator' }] });
    await runWorkflow<typeof rebalancerWorkflow, void>({
      env,
      workflowBundle,
      fakes,
      workflowType: 'rebalancerWorkflow',
      workflowId: `rebalancer-test-${Date.now()}`,
      args: [{ intervalMs: 3_600_000, roundsPerRun: 3 }],
      searchAttributes: false,
      body: async (handle) => {
        await eventually('the first round', 10_000, () => Promise.resolve(fakes.callsOf('rebalanceRound').length === 1 ? true : undefined));
        await handle.signal(checkFloatsSignal);
        await eventually('a round at once on checkFloats', 10_000, () => Promise.resolve(fakes.callsOf('rebalanceRound').length === 2 ? true : undefined));
        const first = env.client.workflow.getHandle(handle.workflowId, (await handle.describe()).runId, { followRuns: false });
        await assert.rejects(first.result(), WorkflowContinuedAsNewError);
      },
    });
    assert.ok(fakes.callsOf('rebalanceRound').length >= 3);
  });
});
