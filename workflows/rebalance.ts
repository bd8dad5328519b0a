import { ApplicationFailure, log, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { RebalanceActivities } from '../activities';
import { readModelOptions } from './activity-options';
import { bridgeTransfer } from './bridge-transfer';
import { ChainSteps } from './chain-steps';
import { retryChainStepSignal } from './messages';
import type { RebalanceTerms, RebalanceWorkflowInput } from './types';

/** Its bookkeeping writes are quick database writes, local to the run like a payment's. */
const records = proxyLocalActivities<RebalanceActivities>(readModelOptions);

/**
 * One rebalance (`rebalance-<id>`): moves the rebalance's amount of its token from the source treasury to the short
 * one in one bridge transfer (CCTP v2 burn → attestation → mint, or OFT send → delivery), with the payment's bridge
 * step's outbox, quote in history and retry rules: a step whose call would revert or that the node keeps refusing
 * waits for an operator (`AwaitingOperator`, then `retryChainStep`), a late transfer shows `bridge_late`. A
 * transaction that reverted ends the rebalance as failed (the rebalancer may open another). What arrived is in the
 * history (`endRebalance`'s result) and the rebalance's row.
 */
export async function rebalanceWorkflow(input: RebalanceWorkflowInput): Promise<RebalanceTerms['status']> {
  const { rebalanceId } = input;
  const chain = new ChainSteps(`rebalance:${rebalanceId}`);
  setHandler(retryChainStepSignal, () => chain.operatorRetried());
  const terms = await records.loadRebalance({ rebalanceId });
  if (terms.status !== 'bridging') return terms.status;
  try {
    await bridgeTransfer(
      chain,
      { rebalanceId },
      { sourceChainId: terms.fromChainId, destinationChainId: terms.toChainId, tokenSymbol: terms.tokenSymbol, amountUnits: terms.amountUnits },
      (quote) => records.recordRebalanceQuote({ rebalanceId, quote }),
    );
  } catch (err) {
    if (!(err instanceof ApplicationFailure && err.type === 'ChainTxReverted')) throw err;
    log.error('a rebalance transaction reverted; the rebalance failed', { rebalanceId, error: err.message });
    await records.endRebalance({ rebalanceId, status: 'failed' });
    throw err;
  }
  const ended = await records.endRebalance({ rebalanceId, status: 'completed' });
  log.info('rebalanced', { rebalanceId, token: terms.tokenSymbol, fromChainId: terms.fromChainId, toChainId: terms.toChainId, amountUnits: terms.amountUnits, receivedUnits: ended.receivedUnits });
  return 'completed';
}
