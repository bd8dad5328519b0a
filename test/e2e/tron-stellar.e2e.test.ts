import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parseUnits } from '../../domain/money';
import { listHeldPayins } from '../../db/queries/held-payins';
import { stackChain, type DevStackInfo, type Stack } from '../../tools/stack/stack';
import { assertFuelOnTerms, TransferRefused, type TransferRequest } from '../../services/money-terms';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { tokenBalance } from '../support/chain';
import { eventually } from '../support/poll';
import { connectServices, startExtraApi, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { newStellarUsdcAccount, stellarCustomerPayment, stellarDestination, stellarUsdcBalance } from '../support/stellar';
import { newTronAddress, tronCustomerTransfer, tronUsdtBalance } from '../support/tron';

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
  /** A late payin worth refunding: its network cost well under the chain's share of its value (a Tron refund burns about 1.6 USD). */
  latePayin: string;
}

const FAMILIES: Family[] = [
  {
    name: 'USDT on Tron',
    chainId: (info) => stackChain(info, 'tron').chainId,
    symbol: 'USDT',
    decimals: 6,
    customer: (info) => info.customer.tron.address,
    newPayoutWallet: () => Promise.resolve(newTronAddress()),
    pay: tronCustomerTransfer,
    balance: tronUsdtBalance,
    latePayin: '5',
  },
  {
    name: 'USDC on Stellar',
    chainId: (info) => stackChain(info, 'stellar').chainId,
    symbol: 'USDC',
    decimals: 7,
    customer: (info) => info.customer.stellar.address,
    newPayoutWallet: newStellarUsdcAccount,
    pay: (info, deposit, amount) => {
      const { account, memo } = stellarDestination(deposit);
      return stellarCustomerPayment(info, { account, memo }, amount);
    },
    balance: stellarUsdcBalance,
    latePayin: '1',
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
    /** Paid out in USDC on Base. */
    let baseMerchant: TestMerchant;

    before(async function () {
      this.timeout(300_000);
      stack = await getStack();
      services = await connectServices(stack);
      api = stack.info.paymentApiUrl;
      chainId = String(family.chainId(stack.info));
      payout = await family.newPayoutWallet(stack.info);
      merchant = await newMerchant(stack, services.knex, { payout: { chainId: Number(chainId), tokenSymbol: family.symbol, address: payout } });
      baseMerchant = await newMerchant(stack, services.knex);
    });
    after(async () => {
      if (timings.length > 0) console.log(`      payin → payment_completed: ${timings.splice(0).join(', ')}`);
      await services?.close();
    });

    async function payAndComplete(amount: string, key = merchant.ordersKey) {
      const created = await createPayment(api, key, paymentBody({ orderId: `${chainId}-${randomUUID()}`, chainId, tokenSymbol: family.symbol, amount }));
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

    it(`${family.symbol} on ${family.name.split(' on ')[1]} for a merchant paid out on Base: the Base treasury pays USDC from its float`, async () => {
      const before = await tokenBalance(stack.info, 8453, 'USDC', baseMerchant.payout.address);
      const payment = await payAndComplete('3', baseMerchant.ordersKey);
      assert.equal(payment.destination.chainId, '8453');
      assert.equal((await tokenBalance(stack.info, 8453, 'USDC', baseMerchant.payout.address)) - before, parseUnits('2.985', 6));
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
      await family.pay(stack.info, payment.source.receiverAddress, family.latePayin);
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
    const address = await newStellarUsdcAccount(stack.info);
    merchant = await newMerchant(stack, services.knex, { payout: { chainId: stackChain(stack.info, 'stellar').chainId, tokenSymbol: 'USDC', address } });
  });
  after(() => services?.close());

  it('no memo, or a memo of no payment: held for the operator, recorded and visible, and no payment is credited', async () => {
    const chain = stackChain(stack.info, 'stellar');
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
    const quarantined = await services.knex('ledger_entries').whereIn('ref', held.map((r) => `quarantined:${r.chain_id}:${r.tx_hash}:${r.log_index}`));
    assert.deepEqual(
      quarantined.map((e: { kind: string; debit_account: string; credit_account: string; payment_id: string | null }) => [e.kind, e.debit_account, e.credit_account, e.payment_id]),
      [['quarantined', 'quarantine', 'external', null], ['quarantined', 'quarantine', 'external', null]],
      'the ledger accounts for both as quarantined',
    );
    assert.equal((await getPayment(stack.info.paymentApiUrl, created.id)).status, 'payment_unpaid', 'a payment without its memo credits nothing');
  });
});

describe('the Tron sweep top-up on the payment’s terms', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let merchant: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex, { payout: { chainId: stackChain(stack.info, 'tron').chainId, tokenSymbol: 'USDT', address: newTronAddress() } });
  });
  after(() => services?.close());

  it('TRX goes only with a transfer out of the payment’s deposit, only to its stored deposit address, at most the chain’s fee_limit', async () => {
    const chain = stackChain(stack.info, 'tron');
    const created = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `fuel-${randomUUID()}`, chainId: String(chain.chainId), tokenSymbol: 'USDT', amount: '3' }));
    const adapter = services.chains.adapter(chain.chainId);
    const cap = adapter.maxSweepFuelUnits!;
    const deps = { knex: services.knex, chains: services.chains };
    const sweep: TransferRequest = {
      intentKey: `sweep:${created.id}`,
      paymentId: created.id,
      chainId: chain.chainId,
      tokenAddress: chain.tokens.USDT.address,
      recipient: null,
      amountUnits: '3000000',
      from: 'deposit',
    };
    const deposit = created.source.receiverAddress;
    await assertFuelOnTerms(deps, sweep, { to: deposit, amountUnits: cap.toString() });
    await assertFuelOnTerms(deps, { ...sweep, intentKey: `refund:${chain.chainId}:0xabc:0`, recipient: stack.info.customer.tron.address }, { to: deposit, amountUnits: '1' });
    const refusals: Array<[string, TransferRequest, { to: string; amountUnits: string }]> = [
      ['above the fee_limit', sweep, { to: deposit, amountUnits: (cap + 1n).toString() }],
      ['to another address', sweep, { to: newTronAddress(), amountUnits: '1' }],
      ['with a payout', { ...sweep, intentKey: `payout:${created.id}`, from: 'treasury', recipient: deposit }, { to: deposit, amountUnits: '1' }],
      ['with a refund from the treasury', { ...sweep, intentKey: `refund-from-treasury:${created.id}`, from: 'treasury', recipient: deposit }, { to: deposit, amountUnits: '1' }],
      ['for another payment', { ...sweep, paymentId: randomUUID() }, { to: deposit, amountUnits: '1' }],
    ];
    for (const [what, request, fuel] of refusals) await assert.rejects(assertFuelOnTerms(deps, request, fuel), TransferRefused, what);
  });
});
