import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Wallet, parseEther, parseUnits } from 'ethers';
import { generateKeyPairSigner } from '@solana/kit';
import type { BrowserContext, Page } from 'playwright-core';
import type { OrderCallbackAttemptRow, PayinRow } from '../../db/tables';
import { stackChain, type Stack } from '../../tools/stack/stack';
import type { PageState } from '../../services/pay-page';
import { startWorker, type RunningWorker } from '../../workers/main';
import { orderWorkflowId, paymentWorkflowId } from '../../workflows/ids';
import { listWorkflows, uniqueOrderId } from '../api/helpers';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer, providerFor, tokenBalance } from '../support/chain';
import { launchChromium, type TestBrowser } from '../support/browser';
import { request } from '../support/http';
import { sinkMessages } from '../support/mail';
import { eventually } from '../support/poll';
import { connectServices, startExtraApi, type ExtraApi, type StackServices } from '../support/services';
import { solanaCustomerTransfer } from '../support/solana';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { startShop, type OrderCreated, type ShopServer } from './helpers';

/** Set to a directory to keep a screenshot of every page state the tests reach. */
const SCREENSHOT_DIR = process.env.PAYRAIL_SCREENSHOT_DIR;

interface CallbackAttempt {
  callback_id: string;
  status: string;
  attempt: number;
  status_code: number | null;
  attempted_at: string;
}

/**
 * Legacy orders on the real stack (API, Temporal, PostgreSQL, hardhat), the customer in headless Chromium. The
 * orders run on their own task queue, served by a worker that mails through a local SMTP sink; the stack's API
 * serves the hosted page.
 */
describe('legacy orders end to end (hosted page in Chromium, callbacks, receipts, native ETH)', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  let shop: ShopServer;
  let worker: RunningWorker;
  let chromium: TestBrowser;
  let browser: BrowserContext;
  let origin: string;
  let merchant: TestMerchant;
  let key: string;
  const extraApis: ExtraApi[] = [];

  /** An API on the stack's services whose orders run on this suite's task queue. */
  let api: string;
  /** Orders that expire 5 s after creation: nobody can choose a currency in time. */
  let shortLivedApi: string;
  /** Orders (and so their payments) that expire 20 s after creation: time to pay, and an underpayment is returned soon. */
  let briefApi: string;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    origin = stack.info.legacyApiUrl;
    merchant = await newMerchant(stack, services.knex);
    key = merchant.ordersKey;
    shop = await startShop();
    const taskQueue = `legacy-e2e-${randomUUID()}`;
    worker = await startWorker({ ...stack.config, temporal: { ...stack.config.temporal, taskQueue } });
    // Payment URLs point at the stack's API: any API serves any order's page.
    for (const orderTtlSeconds of [3600, 5, 20]) extraApis.push(await startExtraApi(stack, services, { taskQueue, orderTtlSeconds }));
    [api, shortLivedApi, briefApi] = extraApis.map((a) => a.origin) as [string, string, string];
    chromium = await launchChromium();
    browser = chromium.browser;
  });

  after(async function () {
    this.timeout(60_000);
    await chromium?.close();
    for (const extra of extraApis) await extra.close();
    await worker?.shutdown();
    await shop?.close();
    await services?.close();
  });

  async function createOrder(body: Record<string, unknown>, through = api, token = key): Promise<OrderCreated> {
    const res = await request(`${through}/v1/orders`, { headers: { token }, body });
    assert.equal(res.status, 201, res.text);
    return res.body as OrderCreated;
  }

  async function orderRead(id: string): Promise<{ order: OrderCreated['order']; callbacks: CallbackAttempt[] }> {
    const res = await request(`${origin}/v1/orders/${id}`, { headers: { token: key } });
    assert.equal(res.status, 200, res.text);
    return res.body as { order: OrderCreated['order']; callbacks: CallbackAttempt[] };
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    if (SCREENSHOT_DIR) await page.screenshot({ path: path.join(SCREENSHOT_DIR, `legacy-${name}.png`), fullPage: true });
  }

  /** Script errors on any page fail the test that opened it. */
  const pageErrors: string[] = [];
  async function newPage(): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    return page;
  }
  afterEach(() => {
    const errors = pageErrors.splice(0);
    assert.deepEqual(errors, [], 'no script errors on the page');
  });

  const statusText = (page: Page) => page.locator('#status').textContent();

  it('the customer chooses USDC on Arbitrum, pays, sees it paid and lands on success_url; callback and receipt follow', async () => {
    const merchantOrderId = uniqueOrderId('legacy-e2e');
    const successUrl = `${shop.url}/shop/success?order=${merchantOrderId}`;
    const created = await createOrder({
      merchant_order_id: merchantOrderId,
      price_amount: 15.25,
      title: 'Espresso machine descaler',
      description: 'Pack of 3 tablets',
      email: 'buyer@example.com',
      callback_url: `${shop.url}/callbacks/happy`,
      success_url: successUrl,
      cancel_url: `${shop.url}/shop/cancel`,
      merchant_token: 'mt-happy-7f3a',
    });
    assert.equal(created.order.status, 'new');

    const page = await newPage();
    await page.goto(created.payment_url);
    assert.equal(await page.locator('h1').textContent(), 'Espresso machine descaler');
    assert.equal(await page.locator('#price').textContent(), '15.25 USD');
    assert.equal(await statusText(page), 'Waiting for you to choose a currency');
    assert.equal(await page.locator('#status').getAttribute('aria-live'), 'polite');
    await page.waitForFunction(() => /^\d+:\d\d$/.test(document.getElementById('countdown')?.textContent ?? ''));
    await screenshot(page, 'choose');

    await page.getByRole('button', { name: /USDC\s+on Arbitrum/ }).click();
    const addressBox = page.locator('#deposit-address');
    await addressBox.waitFor({ timeout: 30_000 });
    const deposit = (await addressBox.textContent())!.trim();
    assert.match(deposit, /^0x[0-9a-fA-F]{40}$/);
    assert.equal(await page.locator('#pay-amount').textContent(), '15.25 USDC');
    assert.match((await page.locator('#pay-network').textContent()) ?? '', /^Arbitrum/);
    assert.equal(await page.getByRole('img', { name: /QR code to pay 15\.25 USDC/ }).count(), 1);
    assert.equal(await page.getByRole('button', { name: 'Copy deposit address' }).getAttribute('data-copy'), deposit);
    const walletLink = await page.getByRole('link', { name: 'Open in an Ethereum wallet (EIP-681 link)' }).getAttribute('href');
    assert.match(walletLink ?? '', new RegExp(`^ethereum:0x[0-9a-fA-F]{40}@42161/transfer\\?address=${deposit}&uint256=15250000$`));
    assert.equal(await statusText(page), 'Waiting for your payment');
    await screenshot(page, 'pay');

    await customerTransfer(stack.info, 42161, 'USDC', deposit, '15.25');
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'Paid', undefined, { timeout: 60_000 });
    assert.equal(await page.locator('#outcome-title').textContent(), 'Payment received');
    await screenshot(page, 'paid');
    await page.waitForURL(successUrl, { timeout: 15_000 });
    assert.equal(await page.locator('h1').textContent(), 'Shop success page');
    await screenshot(page, 'success-url');
    await page.close();

    const callback = await shop.waitForCallback('happy', (b) => b.status === 'paid');
    assert.equal(callback.merchant_token, 'mt-happy-7f3a');
    assert.equal(callback.id, created.order.id);
    assert.equal(callback.merchant_order_id, merchantOrderId);
    assert.equal(callback.pay_currency, 'USDC_ARB');
    assert.equal(callback.pay_amount, '15.25');
    assert.equal(callback.received_amount, '15.25');
    assert.match(String(callback.tx_hash), /^0x[0-9a-f]{64}$/);
    assert.match(String(callback.callback_id), /^[0-9a-f-]{36}$/);

    const { order, callbacks } = await orderRead(created.order.id);
    assert.equal(order.status, 'paid');
    assert.ok(order.paid_at);
    const paidAttempts = callbacks.filter((c) => c.status === 'paid');
    assert.deepEqual(paidAttempts.map((c) => [c.attempt, c.status_code]), [[1, 200]]);

    const receipt = await eventually('the receipt mail', 30_000, async () =>
      (await sinkMessages(stack.info.mailSinkUrl!, 'buyer@example.com')).find((m) => m.subject === 'Payment receipt: Espresso machine descaler'),
    );
    assert.match(receipt.text, /15\.25 USDC/);

    // Operators find the order and its child payment in Temporal by the merchant's order id.
    const workflows = await eventually('both workflows in visibility', 30_000, async () => {
      const found = await listWorkflows(services.client, `OrderId = "${merchantOrderId}"`);
      return found.length >= 2 ? found : undefined;
    });
    const ids = workflows.map((w) => w.workflowId).sort();
    assert.deepEqual(ids, [orderWorkflowId(created.order.id), paymentWorkflowId(order.payment_id!)].sort());
    const child = await services.client.workflow.getHandle(paymentWorkflowId(order.payment_id!)).describe();
    assert.equal(child.parentExecution?.workflowId, orderWorkflowId(created.order.id));
    const parent = await services.client.workflow.getHandle(orderWorkflowId(created.order.id)).describe();
    assert.equal(parent.memo?.merchantOrderId, merchantOrderId);
    assert.equal(await services.client.workflow.getHandle(orderWorkflowId(created.order.id)).result(), 'paid');
  });

  it('the customer chooses USDC on Solana: a base58 deposit address, its QR code and solana: link; paid with @solana/kit', async () => {
    // USDC on Solana is offered to merchants paid out on Solana (no bridge carries it to their EVM payout yet).
    const solanaMerchant = await newMerchant(stack, services.knex, {
      payout: { chainId: stackChain(stack.info, 'solana').chainId, tokenSymbol: 'USDC', address: (await generateKeyPairSigner()).address },
    });
    const merchantOrderId = uniqueOrderId('legacy-e2e-sol');
    const created = await createOrder({
      merchant_order_id: merchantOrderId,
      price_amount: 7.5,
      title: 'Pour-over kettle',
      callback_url: `${shop.url}/callbacks/solana`,
      merchant_token: 'mt-solana-21b0',
    }, api, solanaMerchant.ordersKey);
    const page = await newPage();
    await page.goto(created.payment_url);
    await page.getByRole('button', { name: /USDC\s+on Solana/ }).click();
    const addressBox = page.locator('#deposit-address');
    await addressBox.waitFor({ timeout: 30_000 });
    const deposit = (await addressBox.textContent())!.trim();
    assert.match(deposit, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    assert.equal(await page.locator('#pay-amount').textContent(), '7.5 USDC');
    assert.match((await page.locator('#pay-network').textContent()) ?? '', /^Solana/);
    assert.equal(await page.getByRole('img', { name: /QR code to pay 7\.5 USDC/ }).count(), 1);
    const walletLink = await page.getByRole('link', { name: 'Open in a Solana wallet (Solana Pay link)' }).getAttribute('href');
    assert.equal(walletLink, `solana:${deposit}?amount=7.5&spl-token=${stackChain(stack.info, 'solana').tokens.USDC.address}`);
    await screenshot(page, 'solana-pay');

    const signature = await solanaCustomerTransfer(stack.info, 'USDC', deposit, '7.5');
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'Paid', undefined, { timeout: 60_000 });
    await page.close();
    const callback = await shop.waitForCallback('solana', (b) => b.status === 'paid');
    assert.equal(callback.pay_currency, 'USDC_SOL');
    assert.equal(callback.received_amount, '7.5');
    assert.equal(callback.tx_hash, signature);
  });

  it('an order nobody pays expires: the page shows it and the expiry callback is sent', async () => {
    const created = await createOrder(
      { merchant_order_id: uniqueOrderId('legacy-expire'), price_amount: 4, callback_url: `${shop.url}/callbacks/expiry`, merchant_token: 'mt-expiry', cancel_url: `${shop.url}/shop/cancel` },
      shortLivedApi,
    );
    const page = await newPage();
    await page.goto(created.payment_url);
    assert.equal(await page.locator('.choose').count(), 1);
    await page.waitForFunction(() => document.getElementById('outcome-title')?.textContent === 'This payment has expired', undefined, { timeout: 30_000 });
    assert.equal(await statusText(page), 'Expired');
    assert.ok(!(await page.locator('.choose').isVisible()), 'the currency chooser is gone');
    await page.reload();
    assert.equal(await page.locator('#outcome-title').textContent(), 'This payment has expired');
    assert.equal(await page.getByRole('link', { name: 'Return to the shop' }).getAttribute('href'), `${shop.url}/shop/cancel`);
    await screenshot(page, 'expired');
    await page.close();

    const callback = await shop.waitForCallback('expiry', (b) => b.id === created.order.id);
    assert.equal(callback.status, 'expired');
    assert.equal(callback.merchant_token, 'mt-expiry');
    assert.equal((await orderRead(created.order.id)).order.status, 'expired');
  });

  it('a callback receiver that fails twice, then answers 200, has three logged attempts', async () => {
    shop.failNext('flaky', 2);
    const created = await createOrder(
      { merchant_order_id: uniqueOrderId('legacy-flaky'), price_amount: 4, callback_url: `${shop.url}/callbacks/flaky`, merchant_token: 'mt-flaky' },
      shortLivedApi,
    );
    await shop.waitForCallback('flaky', (b) => b.id === created.order.id);
    const received = shop.callbacks('flaky').filter((c) => c.body.id === created.order.id);
    assert.deepEqual(received.map((c) => c.answered), [500, 500, 200]);
    assert.equal(new Set(received.map((c) => c.body.callback_id)).size, 1, 'one callback, three attempts');

    const attempts = await eventually('three logged attempts', 10_000, async () => {
      const { callbacks } = await orderRead(created.order.id);
      return callbacks.length >= 3 ? callbacks : undefined;
    });
    assert.deepEqual(attempts.map((a) => [a.attempt, a.status_code, a.status]), [[1, 500, 'expired'], [2, 500, 'expired'], [3, 200, 'expired']]);
    const gaps = attempts.slice(1).map((a, i) => Date.parse(a.attempted_at) - Date.parse(attempts[i]!.attempted_at));
    assert.ok(gaps[1]! > gaps[0]!, `backoff grows between attempts (${gaps.join(', ')} ms)`);
    const rows = await services.knex<OrderCallbackAttemptRow>('order_callback_attempts').where({ order_id: created.order.id });
    assert.ok(rows.every((r) => r.duration_ms >= 0 && r.url === `${shop.url}/callbacks/flaky`));
  });

  it('an order paid in native ETH on Base: priced by the feed, detected without a log, the merchant paid in USDC', async () => {
    const payout = merchant.payout.address;
    const before = await tokenBalance(stack.info, 8453, 'USDC', payout);
    const created = await createOrder({ merchant_order_id: uniqueOrderId('legacy-eth'), price_amount: 30, pay_currency: 'ETH_BASE', callback_url: `${shop.url}/callbacks/eth`, merchant_token: 'mt-eth' });
    assert.equal(created.order.status, 'pending');
    assert.equal(created.order.pay_amount, '0.01');
    const deposit = created.order.pay_address!;

    const page = await newPage();
    await page.goto(created.payment_url);
    const walletLink = await page.getByRole('link', { name: 'Open in an Ethereum wallet (EIP-681 link)' }).getAttribute('href');
    assert.equal(walletLink, `ethereum:${deposit}@8453?value=${parseEther('0.01')}`);
    await screenshot(page, 'pay-eth');

    const customer = new Wallet(stack.info.customer.evm.privateKey, providerFor(stack.info, 8453));
    const tx = await customer.sendTransaction({ to: deposit, value: parseEther('0.01') });
    await tx.wait();
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'Paid', undefined, { timeout: 60_000 });
    await page.close();

    const callback = await shop.waitForCallback('eth', (b) => b.status === 'paid');
    assert.equal(callback.tx_hash, tx.hash);
    assert.equal(callback.received_amount, '0.01');
    const { order } = await orderRead(created.order.id);
    const { payment, seen } = await waitForStatus(stack.info.paymentApiUrl, order.payment_id!, 'payment_completed');
    assert.ok(!seen.includes('payment_bridging'), `no bridge for a coin the treasury keeps: ${seen.join(' → ')}`);
    assert.equal(payment.source.tokenAddress, '0x0000000000000000000000000000000000000000');
    // 30 USD at the stored rate, minus the 0.5 % fee.
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', payout)) - before, parseUnits('29.85', 6));
    // Swept behind the payment, which does not wait for it.
    await eventually('the deposit address to be swept', 60_000, async () => ((await providerFor(stack.info, 8453).getBalance(deposit)) === 0n ? true : undefined));
    const [payin] = await services.knex<PayinRow>('payins').where({ payment_id: order.payment_id! });
    assert.equal(payin?.token_address, '0x0000000000000000000000000000000000000000');
    assert.equal(payin?.log_index, -1);
    assert.equal(payin?.disposition, 'payment');
  });

  it('an underpaid order is invalid once it expires: the payin goes back to the customer and the invalid callback is sent', async () => {
    const customer = stack.info.customer.evm.address;
    const created = await createOrder(
      { price_amount: 6, pay_currency: 'USDC_BASE', callback_url: `${shop.url}/callbacks/invalid`, merchant_token: 'mt-invalid' },
      briefApi,
    );
    const before = await tokenBalance(stack.info, 8453, 'USDC', customer);
    await customerTransfer(stack.info, 8453, 'USDC', created.order.pay_address!, '4');
    const callback = await shop.waitForCallback('invalid', (b) => b.id === created.order.id);
    // The customer could still have topped the payment up until the order expired.
    assert.ok(Date.now() >= Date.parse(created.order.expires_at), `invalid before the order expired at ${created.order.expires_at}`);
    assert.equal(callback.status, 'invalid');
    assert.equal(callback.received_amount, '4');
    await waitForStatus(stack.info.paymentApiUrl, created.order.payment_id!, 'payment_refunded');
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), before, 'the customer has their 4 USDC back');
    const page = await newPage();
    await page.goto(created.payment_url);
    assert.equal(await page.locator('#outcome-title').textContent(), 'Payment could not be accepted');
    await screenshot(page, 'invalid');
    await page.close();
  });

  it('the customer cancels: redirected to cancel_url, the canceled callback is sent', async () => {
    const cancelUrl = `${shop.url}/shop/cancel?from=pay`;
    const created = await createOrder({ price_amount: 9, callback_url: `${shop.url}/callbacks/cancel`, cancel_url: cancelUrl, merchant_token: 'mt-cancel' });
    const page = await newPage();
    await page.goto(created.payment_url);
    await page.getByRole('button', { name: 'Cancel payment and return to the shop' }).click();
    await page.waitForURL(cancelUrl, { timeout: 15_000 });
    await page.close();
    const callback = await shop.waitForCallback('cancel', (b) => b.id === created.order.id);
    assert.equal(callback.status, 'canceled');
    assert.equal((await orderRead(created.order.id)).order.status, 'canceled');
    const page2 = await newPage();
    await page2.goto(created.payment_url);
    assert.equal(await page2.locator('#outcome-title').textContent(), 'Payment cancelled');
    await screenshot(page2, 'canceled');
    await page2.close();
  });

  it('other page states: a plain payment link, the mobile layout, an unknown order', async () => {
    const payment = await createPayment(stack.info.paymentApiUrl, key, paymentBody({ orderId: uniqueOrderId('legacy-page'), chainId: '8453', amount: '7.5' }));
    const page = await newPage();
    await page.goto(payment.paymentLink);
    assert.equal(await page.locator('#pay-amount').textContent(), '7.5 USDC');
    assert.equal((await page.locator('#deposit-address').textContent())?.trim(), payment.source.receiverAddress);
    assert.equal(await page.getByRole('button', { name: /Cancel/ }).count(), 0, 'a plain payment has no cancel');
    await screenshot(page, 'payment-link');
    const state = (await request(`${origin}/pay/${payment.id}/state`)).body as PageState;
    assert.equal(state.view, 'pay');

    const mobile = await createOrder({ price_amount: 5, pay_currency: 'USDT_ARB', mobile: true, title: 'Tip' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(mobile.payment_url);
    assert.equal(await page.locator('body').getAttribute('class'), 'mobile');
    assert.ok(await page.getByRole('link', { name: 'Open in an Ethereum wallet (EIP-681 link)' }).isVisible());
    assert.ok(await page.getByRole('img', { name: /QR code/ }).isVisible(), 'the QR code is shown on a phone too (to scan from another device)');
    await screenshot(page, 'mobile');

    const missing = await page.goto(`${origin}/pay/order/${randomUUID()}`);
    assert.equal(missing?.status(), 404);
    assert.equal(await page.locator('h1').textContent(), 'We could not find this order');
    await screenshot(page, 'not-found');
    await page.close();
  });
});
