/**
 * TON and USDT on TON end to end: the payment API, Temporal and PostgreSQL of the test stack, and the TON devnet
 * (the TVM emulator behind a toncenter front). The customer pays from its wallet v5r1 with an unmodified
 * `TonClient`; balances are read on chain.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { keyPairFromSeed } from '@ton/crypto';
import { Address, WalletContractV5R1, beginCell, toNano } from '@ton/ton';
import type { PaymentResource } from '../../api/serializers/payment';
import { listPayins } from '../../db/queries/payins';
import { stackChain, type Stack, type StackChain } from '../../tools/stack/stack';
import { uniqueOrderId } from '../api/helpers';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { eventually } from '../support/poll';
import { connectServices, startExtraApi, type StackServices } from '../support/services';
import { launchChromium, type TestBrowser } from '../support/browser';
import { tokenBalance } from '../support/chain';
import { request } from '../support/http';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { payJetton, payTon, tonPayer, type TonPayer } from '../support/ton';

/** FEE_BPS=50 in the test stack. */
const afterFee = (units: bigint) => units - (units * 50n) / 10_000n;

/** A fresh, never deployed wallet address: a merchant's new TON wallet. */
const freshWallet = (): string => WalletContractV5R1.create({ workchain: 0, publicKey: keyPairFromSeed(randomBytes(32)).publicKey }).address.toString({ bounceable: false });

describe('TON and USDT on TON end to end on the TON devnet', function () {
  this.timeout(300_000);
  let stack: Stack;
  let services: StackServices;
  let ton: StackChain<'ton'>;
  let customer: TonPayer;
  let tonMerchant: TestMerchant & { wallet: string };
  let usdtMerchant: TestMerchant & { wallet: string };
  /** Paid out in USDC on Base. */
  let baseMerchant: TestMerchant;
  const timings: string[] = [];

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    ton = stackChain(stack.info, 'ton');
    customer = await tonPayer(ton.rpcUrl, stack.info.customer.ton.mnemonic);
    const merchant = async (tokenSymbol: 'TON' | 'USDT') => {
      const wallet = freshWallet();
      const app = await newMerchant(stack, services.knex, { payout: { chainId: ton.chainId, tokenSymbol, address: Address.parse(wallet).toRawString() } });
      return { ...app, wallet };
    };
    tonMerchant = await merchant('TON');
    usdtMerchant = await merchant('USDT');
    baseMerchant = await newMerchant(stack, services.knex);
  });
  after(async () => {
    if (timings.length) console.log(`      payin → payment_completed: ${timings.join(', ')}`);
    await services?.close();
  });

  const tonBalance = (address: string) => customer.client.getBalance(Address.parse(address));
  async function usdtBalance(owner: string): Promise<bigint> {
    const { stack: result } = await customer.client.runMethod(Address.parse(ton.tokens.USDT.address), 'get_wallet_address', [{ type: 'slice', cell: beginCell().storeAddress(Address.parse(owner)).endCell() }]);
    const wallet = result.readAddress();
    if ((await customer.client.getContractState(wallet)).state !== 'active') return 0n;
    return (await customer.client.runMethod(wallet, 'get_wallet_data')).stack.readBigNumber();
  }
  const customerAddress = () => customer.wallet.address.toRawString();

  async function payAndComplete(label: string, merchant: TestMerchant, tokenSymbol: 'TON' | 'USDT', amount: string, pay: (to: string) => Promise<void>): Promise<PaymentResource> {
    const created = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `ton-${randomUUID()}`, chainId: String(ton.chainId), tokenSymbol, amount }));
    assert.equal(created.status, 'payment_unpaid');
    // Shown as TON wallets write a deposit: user-friendly, non-bounceable (a deposit wallet has no code until swept).
    assert.match(created.source.receiverAddress, /^UQ[A-Za-z0-9_-]{46}$/);
    assert.equal(Address.parseFriendly(created.source.receiverAddress).isBounceable, false);
    const t0 = performance.now();
    await pay(created.source.receiverAddress);
    const { payment } = await waitForStatus(stack.info.paymentApiUrl, created.id, 'payment_completed', 180_000);
    timings.push(`${label} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    assert.equal(payment.source.senderAddress, customerAddress());
    assert.equal(payment.source.amountReceived, amount);
    return payment;
  }

  it('TON with a comment: the merchant wallet receives amount − fee on chain and the payment completes', async () => {
    const payment = await payAndComplete('TON', tonMerchant, 'TON', '2.5', (to) => payTon(customer, to, toNano('2.5'), 'thanks'));
    await eventually('the TON payout at the merchant', 60_000, async () => ((await tonBalance(tonMerchant.wallet)) === afterFee(toNano('2.5')) ? true : undefined));
    assert.ok(payment.destination.txHash);
  });

  it('USDT on TON: the merchant wallet receives amount − fee in USDT on chain and the payment completes', async () => {
    const before = await usdtBalance(usdtMerchant.wallet);
    await payAndComplete('USDT_TON', usdtMerchant, 'USDT', '12.5', (to) => payJetton(customer, ton.tokens.USDT.address, to, 12_500_000n));
    await eventually('the USDT payout at the merchant', 60_000, async () => ((await usdtBalance(usdtMerchant.wallet)) - before === afterFee(12_500_000n) ? true : undefined));
  });

  it('USDT on TON for a merchant paid out on Base: the Base treasury pays USDC from its float', async () => {
    const before = await tokenBalance(stack.info, 8453, 'USDC', baseMerchant.payout.address);
    const payment = await payAndComplete('USDT_TON → Base', baseMerchant, 'USDT', '3', (to) => payJetton(customer, ton.tokens.USDT.address, to, 3_000_000n));
    assert.equal(payment.destination.chainId, '8453');
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', baseMerchant.payout.address)) - before, afterFee(3_000_000n));
  });

  it('an underpaid USDT payment bounces at expiry and the customer gets every jetton back on chain', async () => {
    const shortLived = await startExtraApi(stack, services, { paymentTtlSeconds: 20 });
    try {
      const created = await createPayment(shortLived.paymentApiUrl, usdtMerchant.ordersKey, paymentBody({ orderId: `ton-under-${randomUUID()}`, chainId: String(ton.chainId), tokenSymbol: 'USDT', amount: '10' }));
      const before = await usdtBalance(customerAddress());
      await payJetton(customer, ton.tokens.USDT.address, created.source.receiverAddress, 4_000_000n);
      const { payment } = await waitForStatus(stack.info.paymentApiUrl, created.id, 'payment_refunded', 180_000);
      assert.equal(payment.source.amountReceived, '4');
      await eventually('the refund at the customer', 60_000, async () => ((await usdtBalance(customerAddress())) === before ? true : undefined));
      assert.equal(await usdtBalance(created.source.receiverAddress), 0n);
      const payins = await listPayins({ knex: services.knex, paymentId: created.id });
      assert.deepEqual(payins.map((p) => [p.status, p.disposition]), [['confirmed', 'refund']]);
    } finally {
      await shortLived.close();
    }
  });

  it('a TON payin after completion is refunded on chain by a late-payin workflow; the payment stays completed', async () => {
    const payment = await payAndComplete('TON (late test)', tonMerchant, 'TON', '1', (to) => payTon(customer, to, toNano('1')));
    const before = await tonBalance(customerAddress());
    await payTon(customer, payment.source.receiverAddress, toNano('3'));
    const paid = await tonBalance(customerAddress());
    assert.ok(before - paid >= toNano('3'));
    const refund = await eventually('the late payin refunded', 120_000, async () => {
      const late = (await listPayins({ knex: services.knex, paymentId: payment.id })).find((p) => p.amount_units === toNano('3').toString());
      return late?.disposition === 'refund' ? late : undefined;
    });
    assert.equal(refund.status, 'confirmed');
    // The deposit wallet sent the 3 TON back in full (the service paid the refund's fees).
    const deposit = Address.parse(payment.source.receiverAddress);
    await eventually('the full refund from the deposit at the customer', 120_000, async () => {
      const txs = await customer.client.getTransactions(customer.wallet.address, { limit: 20 });
      const back = txs.find((tx) => tx.inMessage?.info.type === 'internal' && tx.inMessage.info.src.equals(deposit) && tx.inMessage.info.value.coins === toNano('3'));
      return back ? true : undefined;
    });
    assert.ok((await tonBalance(customerAddress())) > paid + toNano('2.99'), 'the customer has the 3 TON back, less its wallet\'s receiving fee');
    const { payment: after } = await waitForStatus(stack.info.paymentApiUrl, payment.id, 'payment_completed', 10_000);
    assert.equal(after.status, 'payment_completed');
  });
});

describe('a TON legacy order on the hosted page in Chromium', function () {
  this.timeout(300_000);
  let stack: Stack;
  let services: StackServices;
  let shop: TestMerchant;
  let chromium: TestBrowser;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    shop = await newMerchant(stack, services.knex);
    chromium = await launchChromium();
  });
  after(async () => {
    await chromium?.close();
    await services?.close();
  });

  it('the customer chooses TON, gets a ton://transfer link and QR code, pays 2 TON for 10 USD, and sees it paid', async () => {
    const ton = stackChain(stack.info, 'ton');
    const customer = await tonPayer(ton.rpcUrl, stack.info.customer.ton.mnemonic);
    const res = await request(`${stack.info.legacyApiUrl}/v1/orders`, {
      headers: { token: shop.ordersKey },
      body: { merchant_order_id: uniqueOrderId('ton-page'), price_amount: 10, title: 'TON sticker pack' },
    });
    assert.equal(res.status, 201, res.text);
    const created = res.body as { payment_url: string };
    const pageErrors: string[] = [];
    const page = await chromium.browser.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(created.payment_url);
    // The devnet's TON/USD feed answers 5 USD.
    await page.getByRole('button', { name: /TON\s+on TON/ }).click();
    const addressBox = page.locator('#deposit-address');
    await addressBox.waitFor({ timeout: 30_000 });
    const deposit = (await addressBox.textContent())!.trim();
    assert.equal(Address.parseFriendly(deposit).isBounceable, false, 'the deposit is shown non-bounceable');
    assert.equal(await page.getByRole('button', { name: 'Copy deposit address' }).getAttribute('data-copy'), deposit);
    assert.equal(await page.locator('#pay-amount').textContent(), '2 TON');
    assert.equal(await page.getByRole('img', { name: /QR code to pay 2 TON/ }).count(), 1);
    const walletLink = await page.getByRole('link', { name: 'Open in a TON wallet (ton:// link)' }).getAttribute('href');
    assert.equal(walletLink, `ton://transfer/${deposit}?amount=2000000000`);

    await payTon(customer, deposit, toNano('2'));
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'Paid', undefined, { timeout: 120_000 });
    assert.equal(await page.locator('#outcome-title').textContent(), 'Payment received');
    await page.close();
    assert.deepEqual(pageErrors, [], 'no script errors on the page');
  });
});
