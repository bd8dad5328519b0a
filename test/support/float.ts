import { randomUUID } from 'node:crypto';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody } from './api';
import type { TestMerchant } from './merchant';
import type { StackServices } from './services';
import { releaseTreasuryReservation } from '../../db/queries/treasury-reservations';
import { intentKeys } from '../../domain/chain-txs';
import { REBALANCER_WORKFLOW_ID } from '../../workflows/ids';
import { checkFloatsSignal } from '../../workflows/messages';
import { eventually } from './poll';

/**
 * Sets a treasury's whole float of a token aside, as payouts in flight would: a payment paid out there finds the
 * float short and bridges its own funds where a route exists (`payment_bridging`). The hold is an open reservation
 * of an unpaid payment of the merchant's own, set once the rebalancer is between rounds (a round running now could
 * refill what the test just set aside); the returned function releases it.
 */
export async function holdTreasuryFloat(stack: Stack, services: StackServices, merchant: TestMerchant, chainId: number, tokenSymbol: string): Promise<() => Promise<void>> {
  await rebalancerBetweenRounds(services);
  const holder = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `float-hold-${randomUUID()}`, chainId: String(chainId), tokenSymbol, amount: '1' }));
  const token = services.chains.registry.token(chainId, tokenSymbol);
  const balance = await services.chains.treasuryBalance(chainId, token.address);
  const intentKey = intentKeys.payout(holder.id);
  await services.knex('treasury_reservations').insert({ intent_key: intentKey, payment_id: holder.id, chain_id: chainId, token_address: token.address.toLowerCase(), amount_units: balance.toString() });
  return () => releaseTreasuryReservation({ knex: services.knex, intentKey });
}

/** Asks the stack's rebalancer to look at the floats now (the test stack's interval is an hour). */
export async function checkFloats(services: StackServices): Promise<void> {
  await services.client.workflow.getHandle(REBALANCER_WORKFLOW_ID).signal(checkFloatsSignal);
}

/**
 * Waits until the stack's rebalancer has finished a round and waits for its next (a timer, no activity running): its
 * first round, when the worker starts, would otherwise see a float a test has just set aside and refill it then.
 */
export async function rebalancerBetweenRounds(services: StackServices): Promise<void> {
  const handle = services.client.workflow.getHandle(REBALANCER_WORKFLOW_ID);
  await eventually('the rebalancer between rounds', 120_000, async () => {
    const { events } = await handle.fetchHistory();
    const waiting = (events ?? []).some((e) => e.timerStartedEventAttributes);
    return waiting && (await handle.describe()).raw.pendingActivities?.length === 0 ? true : undefined;
  });
}

