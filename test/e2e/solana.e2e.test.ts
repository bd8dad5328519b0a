import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { generateKeyPairSigner } from '@solana/kit';
import { parseUnits } from '../../domain/money';
import type { PaymentStatus } from '../../domain/payment';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { connectServices, startExtraApi, type StackServices } from '../support/services';
import { solanaCustomerTransfer, solanaTokenBalance, type SolanaTokenSymbol } from '../support/solana';
import { eventually } from '../support/poll';
import { tokenBalance } from '../support/chain';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';

/** FEE_BPS=50 in the test stack. */
const payoutOf = (amount: bigint) => amount - (amount * 50n) / 10_000n;

/** Payin-to-`payment_completed` times, printed at the end for the closing note. */
const timings: string[] = [];

describe('Solana end to end on the devnet (litesvm behind the Solana JSON-RPC, @solana/kit clients)', function () {
  this.timeout(180_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let chainId: string;
  let customer: string;
  /** Paid out in USDC on Solana. */
  let solanaMerchant: TestMerchant;
  let solanaPayout: string;
  /** Paid out in USDC on Base. */
  let baseMerchant: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    chainId = String(stackChain(stack.info, 'solana').chainId);
    customer = stack.info.customer.solana.address;
    solanaPayout = (await generateKeyPairSigner()).address;
    solanaMerchant = await newMerchant(stack, services.knex, { payout: { chainId: Number(chainId), tokenSymbol: 'USDC', address: solanaPayout } });
    baseMerchant = await newMerchant(stack, services.knex);
  });
  after(async () => {
    if (timings.length > 0) console.log(`      payin → payment_completed: ${timings.join(', ')}`);
    await services?.close();
  });

  async function payAndComplete(symbol: SolanaTokenSymbol, key: string, amount: string) {
    const created = await createPayment(api, key, paymentBody({ orderId: `sol-${randomUUID()}`, chainId, tokenSymbol: symbol, amount }));
    assert.equal(created.source.chainId, chainId);
    assert.equal(created.source.tokenAddress, stackChain(stack.info, 'solana').tokens[symbol].address);
    const started = Date.now();
    const txHash = await solanaCustomerTransfer(stack.info, symbol, created.source.receiverAddress, amount);
    const { payment } = await waitForStatus(api, created.id, 'payment_completed');
    timings.push(`${symbol} on Solana → ${payment.destination.chainId} ${((Date.now() - started) / 1000).toFixed(1)} s`);
    assert.equal(payment.source.txHash, txHash);
    assert.equal(payment.source.senderAddress, customer);
    assert.equal(payment.source.amountReceived, amount);
    return payment;
  }

  for (const symbol of ['USDC', 'PYUSD'] as const) {
    it(`${symbol === 'USDC' ? 'USDC_SOL' : 'PYUSD'}: paid from the customer wallet, paid out in USDC to the merchant's Solana wallet, deposit account closed`, async () => {
      const before = await solanaTokenBalance(stack.info, 'USDC', solanaPayout);
      const payment = await payAndComplete(symbol, solanaMerchant.ordersKey, '5');
      const paid = payoutOf(parseUnits('5', 6));
      assert.equal(payment.destination.amount, '4.975');
      assert.equal(await solanaTokenBalance(stack.info, 'USDC', solanaPayout), before + paid, 'the merchant wallet holds amount − fee on chain');
      // Swept behind the payment, which does not wait for it.
      await eventually('the deposit to be swept', 30_000, async () => ((await solanaTokenBalance(stack.info, symbol, payment.source.receiverAddress)) === 0n ? true : undefined));
    });
  }

  it('USDC on Solana for a merchant paid out on Base: the Base treasury pays USDC from its float', async () => {
    const before = await tokenBalance(stack.info, 8453, 'USDC', baseMerchant.payout.address);
    const payment = await payAndComplete('USDC', baseMerchant.ordersKey, '3');
    assert.equal(payment.destination.chainId, '8453');
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', baseMerchant.payout.address)) - before, payoutOf(parseUnits('3', 6)));
  });

  it('an underpayment bounces at expiry and the customer gets it back on chain', async () => {
    const shortLived = await startExtraApi(stack, services, { paymentTtlSeconds: 20 });
    try {
      const created = await createPayment(shortLived.paymentApiUrl, solanaMerchant.ordersKey, paymentBody({ orderId: `sol-under-${randomUUID()}`, chainId, tokenSymbol: 'USDC', amount: '10' }));
      const before = await solanaTokenBalance(stack.info, 'USDC', customer);
      await solanaCustomerTransfer(stack.info, 'USDC', created.source.receiverAddress, '4');
      assert.equal(await solanaTokenBalance(stack.info, 'USDC', customer), before - parseUnits('4', 6));
      const { payment } = await waitForStatus(api, created.id, 'payment_refunded');
      assert.equal(payment.source.amountReceived, '4');
      assert.equal(await solanaTokenBalance(stack.info, 'USDC', customer), before, 'the refund restored the customer balance');
    } finally {
      await shortLived.close();
    }
  });

  it('a payin after completion is refunded on chain by a late-payin workflow', async function () {
    // A payin landing as the sweep that closes the deposit's token account is built has it built again without the
    // close; one landing once it is signed gets it refused, signed again without the close once its blockhash
    // expired (150 slots), and the refund waits behind it.
    this.timeout(300_000);
    const payment = await payAndComplete('USDC', solanaMerchant.ordersKey, '2');
    const before = await solanaTokenBalance(stack.info, 'USDC', customer);
    await solanaCustomerTransfer(stack.info, 'USDC', payment.source.receiverAddress, '1');
    await eventually('the late payin to be refunded', 240_000, async () => ((await solanaTokenBalance(stack.info, 'USDC', customer)) === before ? true : undefined), 500);
    const after: PaymentStatus = (await waitForStatus(api, payment.id, 'payment_completed')).payment.status;
    assert.equal(after, 'payment_completed', 'the payment stays completed');
  });
});
