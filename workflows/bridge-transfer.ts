import { condition, log, proxyLocalActivities } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import { bridgeLateAfterMs, type BridgeArrival, type BridgeOwner, type BridgeQuote } from '../domain/bridges';
import { chainWriteOptions } from './activity-options';
import type { ChainSteps } from './chain-steps';

/** Chain writes are local activities of the run, idempotent by intent key (as in workflows/payment.ts). */
const chainWrites = proxyLocalActivities<PaymentActivities>(chainWriteOptions);

/** What a bridge transfer moves: `amountUnits` of the token from the source chain's treasury to the destination's. */
export interface BridgeTransferRequest {
  sourceChainId: number;
  destinationChainId: number;
  tokenSymbol: string;
  amountUnits: string;
}

/**
 * Moves a token from one treasury to another through the route's bridge (a payment's own funds, or a rebalance of
 * the treasuries' float). The quote is kept in the run's history, so every retried or resumed step uses the same
 * one; every transaction is an outbox intent of the owner, so a crash never burns or mints twice. A step whose call
 * would revert, or a transaction the node keeps refusing, waits for an operator (`AwaitingOperator`); a transfer
 * late on its way shows `AwaitingOperator=bridge_late` until it arrives. `quoted` sees the quote before anything is
 * signed. Returns the quote.
 */
export async function bridgeTransfer(chain: ChainSteps, owner: BridgeOwner, request: BridgeTransferRequest, quoted: (quote: BridgeQuote) => Promise<void> = () => Promise.resolve()): Promise<BridgeQuote> {
  const quote = await chainWrites.quoteBridge({ ...owner, ...request });
  log.info('bridging', { ...owner, bridge: quote.kind, maxFeeUnits: quote.maxFeeUnits, nativeFeeWei: quote.nativeFeeWei, expectedSeconds: quote.expectedSeconds });
  await quoted(quote);
  const approval = await chain.untilOperatorFixes(() => chainWrites.approveBridge({ ...owner, quote }));
  if (approval) await chain.landed(approval);
  const started = await chain.landed(await chain.untilOperatorFixes(() => chainWrites.startBridge({ ...owner, quote })));
  const arrival = await bridgeArrival(chain, owner, quote, started.txHash);
  const finish = await chain.untilOperatorFixes(() => chainWrites.finishBridge({ ...owner, quote, arrival }));
  if (finish) await chain.landed(finish);
  return quote;
}

/**
 * Waits for the transfer on its way (Iris's attestation of our burn, a LayerZero delivery). One that outlasts its
 * protocol's time shows `AwaitingOperator=bridge_late` until it arrives: nothing is lost, but someone should look.
 */
async function bridgeArrival(chain: ChainSteps, owner: BridgeOwner, quote: BridgeQuote, startTxHash: string): Promise<Exclude<BridgeArrival, { state: 'pending' }>> {
  let ended = false;
  const arriving = chain.waits.awaitBridgeArrival({ ...owner, quote, startTxHash });
  arriving.then(
    () => (ended = true),
    () => (ended = true),
  );
  if (!(await condition(() => ended, bridgeLateAfterMs(quote)))) {
    log.warn('the bridge transfer is late; waiting for it (AwaitingOperator=bridge_late)', { ...owner, bridge: quote.kind, startTxHash, expectedSeconds: quote.expectedSeconds });
    const lateEnded = chain.beginOperatorWait('bridge_late');
    try {
      return await arriving;
    } finally {
      lateEnded();
    }
  }
  return arriving;
}
