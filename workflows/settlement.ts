import { log, proxyLocalActivities } from '@temporalio/workflow';
import type { PaymentActivities } from '../activities';
import { intentKeys } from '../domain/chain-txs';
import type { PaymentTerms } from '../domain/payment';
import { chainWriteOptions } from './activity-options';
import { bridgeTransfer } from './bridge-transfer';
import type { ChainSteps } from './chain-steps';
import type { PaymentRecord } from './payment-record';

/** Chain writes are local activities of the payment's run, idempotent by intent key (as in workflows/payment.ts). */
const chainWrites = proxyLocalActivities<PaymentActivities>(chainWriteOptions);

/** How long a payout waits before it looks at the treasury again when the treasury is short (sooner on `retryChainStep`). */
const LIQUIDITY_RECHECK = '1 minute';

/**
 * How a payment's payout is settled, part of its run (`payment-<id>`): from the destination treasury's float at once,
 * or, when the float is short, by bridging the payment's own funds there or waiting for the operator to top it up.
 */
export class Settlement {
  constructor(
    private readonly paymentId: string,
    private readonly chain: ChainSteps,
    private readonly record: PaymentRecord,
  ) {}

  /**
   * The payout, reserved against the destination treasury's float and signed in one step. A short float never
   * bounces a customer: a payment a bridge can carry bridges its own funds there (`payment_bridging`, then
   * `payment_payout_started` again), once its sweep has landed; any other waits in `payment_payout_started`,
   * visibly (`AwaitingOperator=treasury_short`), until the float is topped up.
   */
  async payFromFloat(terms: PaymentTerms, sweepLanded: () => Promise<unknown>, required: bigint): Promise<{ intentKey: string }> {
    const { source, destination } = terms;
    // Its amount is the database's: the payout of what settled, less what it keeps back for the app's refunds.
    const transfer = {
      intentKey: intentKeys.payout(this.paymentId), paymentId: this.paymentId, chainId: destination.chainId, tokenAddress: destination.address,
      to: destination.receiverAddress, purpose: 'payout to merchant',
    };
    const reserve = async () => (await this.chain.untilOperatorFixes(() => chainWrites.payOutFromTreasury(transfer))).payout;
    let payout = await reserve();
    if (!payout && terms.bridgeRoute) {
      log.info('destination float short of the payout; bridging the payment’s own funds', { paymentId: this.paymentId, chainId: destination.chainId, token: destination.symbol });
      await sweepLanded();
      await this.record.transition('payment_bridging');
      await bridgeTransfer(this.chain, { paymentId: this.paymentId }, {
        sourceChainId: source.chainId, destinationChainId: destination.chainId, tokenSymbol: source.symbol, amountUnits: (required - BigInt(source.feeUnits)).toString(),
      });
      await this.record.transition('payment_payout_started');
      payout = await reserve();
    }
    let treasuryWaitEnded: (() => void) | undefined;
    while (!payout) {
      log.warn('treasury short of the payout; waiting for funds', { paymentId: this.paymentId, chainId: destination.chainId, token: destination.symbol });
      treasuryWaitEnded ??= this.chain.beginOperatorWait('treasury_short');
      await this.chain.recheckAfter(LIQUIDITY_RECHECK);
      payout = await reserve();
    }
    treasuryWaitEnded?.();
    return payout;
  }
}
