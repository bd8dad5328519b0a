import { randomUUID } from 'node:crypto';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody } from './api';
import type { TestMerchant } from './merchant';
import type { StackServices } from './services';
import { REBALANCER_WORKFLOW_ID } from '../../workflows/ids';
import { checkFloatsSignal } from '../../workflows/messages';

/**
 * Sets a treasury's whole float of a token aside, as payouts in flight would: a payment paid out there finds the
 * float short and bridges its own funds where a route exists (`payment_bridging`). The hold is an open reservation
 * of an unpaid payment of the merchant's own; the returned function releases it.
 */
export async function holdTreasuryFloat(stack: Stack, services: StackServices, merchant: TestMerchant, chainId: number, tokenSymbol: string): Promise<() => Promise<void>> {
  const holder = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `float-hold-${randomUUID()}`, chainId: String(chainId), tokenSymbol, amount: '1' }));
  const token = services.chains.registry.token(chainId, tokenSymbol);
  const adapter = services.chains.adapter(chainId);
  const balance = await adapter.balanceOf(adapter.treasuryAddress(), token.address);
  await services.knex('treasury_reservations').insert({ payment_id: holder.id, chain_id: chainId, token_address: token.address.toLowerCase(), amount_units: balance.toString() });
  return async () => {
    await services.knex('treasury_reservations').where({ payment_id: holder.id }).update({ released_at: services.knex.fn.now() });
  };
}

/** Asks the stack's rebalancer to look at the floats now (the test stack's interval is an hour). */
export async function checkFloats(services: StackServices): Promise<void> {
  await services.client.workflow.getHandle(REBALANCER_WORKFLOW_ID).signal(checkFloatsSignal);
}
