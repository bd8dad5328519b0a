import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parseUnits } from '../../domain/money';
import { listHeldPayins } from '../../db/queries/held-payins';
import type { DevStackInfo, Stack } from '../../scripts/stack';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { eventually } from '../support/poll';
import { connectServices, startExtraApi, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { newStellarUsdcAccount, stellarChain, stellarCustomerPayment, stellarDestination, stellarUsdcBalance } from '../support/stellar';
import { newTronAddress, tronChain, tronCustomerTransfer, tronUsdtBalance } from '../support/tron';
import { createMerchant, type TestMerchant } from '../api/helpers';

/** FEE_BPS=50 in the test stack. */
const payoutOf = (amount: bigint) => amount - (amount * 50n) / 10_000n;

/** What the tests need of a family: its chain, its token, a payout wallet, and the customer's wallet. */
interface Family {
  name: string;
  chainId: (info: DevStackInfo) => number;
  symbol: string;
  decimals: number;
  customer: (info: DevStackInfo) => string;
  newPayoutWallet: (info: DevStackInfo) => Promise<string>;
  /** The customer pays the deposit as its wallet is told to (Stellar: the shared account with the memo). */
  pay: (info: DevStackInfo, depositAddress: string, amount: string) => Promise<string>;
  balance: (info: DevStackInfo, owner: string) => Promise<bigint>;
}

const FAMILIES: Family[] = [
  {
    name: 'USDT on Tron',
    chainId: (info) => tronChain(info).chainId,
    symbol: 'USDT',
    decimals: 6,
    customer: (info) => info.customer.tron.address,
    newPayoutWallet: () => Promise.resolve(newTronAddress()),
    pay: tronCustomerTransfer,
    balance: tronUsdtBalance,
  },
  {
    name: 'USDC on Stellar',
    chainId: (info) => stellarChain(info).chainId,
    symbol: 'USDC',
    decimals: 7,
    customer: (info) => info.customer.stellar.address,
    newPayoutWallet: newStellarUsdcAccount,
    pay: (info, deposit, amount) => {
      const { account, memo } = stellarDestination(deposit);
      return stellarCustomerPayment(info, { account, memo }, amount);
    },
    balance: stellarUsdcBalance,
  },
];

/** Payin-to-`payment_completed` times, printed at the end for the closing note. */
const timings: string[] = [];

for (const family of FAMILIES) {
  describe(`${family.name} end to end on its devnet`, function () {
    this.timeout(180_000);
    let stack: Stack;
    let services: StackServices;
    let api: string;
    let chainId: string;
    let merchant: TestMerchant;
    let payout: string;

    before(async function () {
      this.timeout(300_000);
      stack = await getStack();
      services = await connectServices(stack);
      api = stack.info.paymentApiUrl;
      chainId = String(family.chainId(stack.info));
      payout = await family.newPayoutWallet(stack.info);
      merchant = await createMerchant(services.knex, { apiKeyPrefix: stack.config.apiKeyPrefix, payoutAddress: payout, payoutChainId: Number(chainId), payoutTokenSymbol: family.symbol });
    });
    after(async () => {
      if (timings.length > 0) console.log(`      payin → payment_completed: ${timings.splice(0).join(', ')}`);
      await services?.close();
    });

    async function payAndComplete(amount: string) {
      const created = await createPayment(api, merchant.ordersKey, paymentBody({ orderId: `${chainId}-${randomUUID()}`, chainId, tokenSymbol: family.symbol, amount }));
      const started = Date.now();
      const txHash = await family.pay(stack.info, created.source.receiverAddress, amount);
      const { payment } = await waitForStatus(api, created.id, 'payment_completed');
      timings.push(`${family.name} ${((Date.now() - started) / 1000).toFixed(1)} s`);
      assert.equal(payment.source.txHash, txHash);
      assert.equal(payment.source.senderAddress, family.customer(stack.info));
      assert.equal(payment.source.amountReceived, amount);
      return payment;
    }

    it('paid from the customer wallet, paid out to the merchant wallet on the same chain', async () => {
      const before = await family.balance(stack.info, payout);
      const payment = await payAndComplete('5');
      assert.equal(payment.destination.amount, '4.975');
      assert.equal(await family.balance(stack.info, payout), before + payoutOf(parseUnits('5', family.decimals)), 'the merchant wallet holds amount − fee on chain');
    });

    it('an underpayment bounces at expiry and the customer gets it back on chain', async () => {
      const shortLived = await startExtraApi(stack, services, { paymentTtlSeconds: 20 });
      try {
        const created = await createPayment(shortLived.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `under-${randomUUID()}`, chainId, tokenSymbol: family.symbol, amount: '10' }));
        const customer = family.customer(stack.info);
        const before = await family.balance(stack.info, customer);
        await family.pay(stack.info, created.source.receiverAddress, '4');
        assert.equal(await family.balance(stack.info, customer), before - parseUnits('4', family.decimals));
        const { payment } = await waitForStatus(api, created.id, 'payment_refunded');
        assert.equal(payment.source.amountReceived, '4');
        assert.equal(await family.balance(stack.info, customer), before, 'the refund restored the customer balance');
      } finally {
        await shortLived.close();
      }
    });

    it('a payin after completion is refunded on chain by a late-payin workflow', async () => {
      const payment = await payAndComplete('2');
      const customer = family.customer(stack.info);
      const before = await family.balance(stack.info, customer);
      await family.pay(stack.info, payment.source.receiverAddress, '1');
      await eventually('the late payin to be refunded', 120_000, async () => ((await family.balance(stack.info, customer)) === before ? true : undefined), 500);
      assert.equal((await getPayment(api, payment.id)).status, 'payment_completed', 'the payment stays completed');
    });
  });
}

describe('Stellar payments without the right memo', function () {
  this.timeout(180_000);
  let stack: Stack;
  let services: StackServices;
  let merchant: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    const payoutAddress = await newStellarUsdcAccount(stack.info);
    merchant = await createMerchant(services.knex, { apiKeyPrefix: stack.config.apiKeyPrefix, payoutAddress, payoutChainId: stellarChain(stack.info).chainId, payoutTokenSymbol: 'USDC' });
  });
  after(() => services?.close());

  it('no memo, or a memo of no payment: held for the operator, recorded and visible, and no payment is credited', async () => {
    const chain = stellarChain(stack.info);
    const created = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `memo-${randomUUID()}`, chainId: String(chain.chainId), tokenSymbol: 'USDC', amount: '3' }));
    const { account } = stellarDestination(created.source.receiverAddress);
    assert.equal(account, chain.receivingAccount);
    const noMemo = await stellarCustomerPayment(stack.info, { account, memo: null }, '3');
    const unknownMemo = await stellarCustomerPayment(stack.info, { account, memo: '42' }, '2.5');
    const held = await eventually('both payins to be held', 60_000, async () => {
      const rows = (await listHeldPayins({ knex: services.knex, chainId: chain.chainId })).filter((r) => r.tx_hash === noMemo || r.tx_hash === unknownMemo);
      return rows.length === 2 ? rows : undefined;
    });
    for (const row of held) {
      assert.equal(row.sender_address, stack.info.customer.stellar.address);
      assert.equal(row.receiver_address, chain.receivingAccount);
      assert.equal(row.token_address, chain.tokens.USDC.address);
    }
    assert.deepEqual(held.map((r) => r.amount_units).sort(), ['25000000', '30000000']);
    assert.equal((await getPayment(stack.info.paymentApiUrl, created.id)).status, 'payment_unpaid', 'a payment without its memo credits nothing');
  });
});
