import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parseUnits } from '../../domain/money';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { tokenBalance } from '../support/chain';
import { request } from '../support/http';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { tonCustomer } from '../support/payin-families';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { solanaCustomerTransfer } from '../support/solana';
import { getStack } from '../support/stack';
import { stellarCustomerPayment, stellarDestination } from '../support/stellar';
import { payJetton, payTon } from '../support/ton';
import { tronCustomerTransfer } from '../support/tron';
import type { OrderCreated } from '../legacy/helpers';

/** How the devnet customer pays a legacy order's deposit in each currency, as its wallet is told to. */
const PAYERS: Record<string, (stack: Stack, deposit: string, amount: string) => Promise<unknown>> = {
  USDC_SOL: (stack, deposit, amount) => solanaCustomerTransfer(stack.info, 'USDC', deposit, amount),
  USDT_TRC20: (stack, deposit, amount) => tronCustomerTransfer(stack.info, deposit, amount),
  TON: async (stack, deposit, amount) => payTon(await tonCustomer(stack.info), deposit, parseUnits(amount, 9)),
  USDT_TON: async (stack, deposit, amount) => payJetton(await tonCustomer(stack.info), stackChain(stack.info, 'ton').tokens.USDT.address, deposit, parseUnits(amount, 6)),
  USDC_XLM: (stack, deposit, amount) => stellarCustomerPayment(stack.info, stellarDestination(deposit), amount),
};

/** Payin → payout-completed times, printed at the end for the closing note. */
const timings: string[] = [];

describe('settlement from float: a merchant paid out in USDC on Base takes every family’s currency', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  /** Paid out in USDC on Base, as the demo merchant of `npm start` is. */
  let merchant: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex);
  });
  after(async () => {
    if (timings.length > 0) console.log(`      payin sent → payout completed: ${timings.join(', ')}`);
    await services?.close();
  });

  /** Waits for the payment to complete and returns the payout the merchant's Base wallet received, in base units. */
  async function completedPayout(paymentId: string, balanceBefore: bigint, label: string, sentAt: number): Promise<{ paidUnits: bigint; seen: string[] }> {
    const payout = await waitForStatus(stack.info.paymentApiUrl, paymentId, 'payment_payout_completed', 120_000);
    timings.push(`${label} ${((Date.now() - sentAt) / 1000).toFixed(1)} s`);
    const { payment, seen } = await waitForStatus(stack.info.paymentApiUrl, paymentId, 'payment_completed', 120_000);
    assert.equal(payment.destination.chainId, '8453');
    assert.equal(payment.destination.tokenSymbol, 'USDC');
    assert.equal(payment.destination.receiverAddress, merchant.payout.address);
    const expected = parseUnits(payment.destination.amount, 6);
    const paidUnits = await eventually(`${label}: the payout in the merchant's Base wallet`, 30_000, async () => {
      const delta = (await tokenBalance(stack.info, 8453, 'USDC', merchant.payout.address)) - balanceBefore;
      return delta >= expected ? delta : undefined;
    });
    return { paidUnits, seen: [...payout.seen, ...seen] };
  }

  for (const currency of Object.keys(PAYERS)) {
    it(`a legacy order in ${currency} is paid and the merchant receives USDC on Base from the Base treasury's float`, async () => {
      const res = await request(`${stack.info.legacyApiUrl}/v1/orders`, {
        headers: { token: merchant.ordersKey },
        body: { merchant_order_id: `float-${currency}-${randomUUID()}`, price_amount: 10, pay_currency: currency },
      });
      assert.equal(res.status, 201, res.text);
      const created = res.body as OrderCreated;
      assert.equal(created.order.pay_currency, currency);
      const deposit = created.order.pay_address;
      const amount = created.order.pay_amount;
      assert.ok(deposit && amount && created.order.payment_id, `the order answers with its payment: ${res.text}`);
      const before = await tokenBalance(stack.info, 8453, 'USDC', merchant.payout.address);

      const sentAt = Date.now();
      await PAYERS[currency]!(stack, deposit, amount);
      const { paidUnits, seen } = await completedPayout(created.order.payment_id, before, currency, sentAt);
      // 10 USD less the 0.5 % fee, whatever the family: priced 1:1 for a stablecoin, at the feed for TON.
      assert.equal(paidUnits, parseUnits('9.95', 6));
      assert.ok(!seen.includes('payment_bridging'), `paid from float, not bridged: ${seen.join(' → ')}`);
      const order = await eventually(`order ${created.order.id} paid`, 30_000, async () => {
        const read = await request(`${stack.info.legacyApiUrl}/v1/orders/${created.order.id}`, { headers: { token: merchant.ordersKey } });
        const body = read.body as { order: OrderCreated['order'] };
        return body.order.status === 'paid' ? body.order : undefined;
      });
      assert.equal(order.received_amount, amount);
    });
  }

  it('a payment-API payment in PYUSD on Solana completes with USDC on Base in the merchant wallet', async () => {
    const chainId = String(stackChain(stack.info, 'solana').chainId);
    const created = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `float-pyusd-${randomUUID()}`, chainId, tokenSymbol: 'PYUSD', amount: '5' }));
    assert.equal(created.destination.chainId, '8453');
    const before = await tokenBalance(stack.info, 8453, 'USDC', merchant.payout.address);
    const sentAt = Date.now();
    await solanaCustomerTransfer(stack.info, 'PYUSD', created.source.receiverAddress, '5');
    const { paidUnits, seen } = await completedPayout(created.id, before, 'PYUSD on Solana', sentAt);
    assert.equal(paidUnits, parseUnits('4.975', 6));
    assert.ok(!seen.includes('payment_bridging'), `paid from float, not bridged: ${seen.join(' → ')}`);
  });
});
