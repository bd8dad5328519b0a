import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { uniqueOrderId } from '../api/helpers';
import { launchChromium, type TestBrowser } from '../support/browser';
import { request } from '../support/http';
import { connectServices, type StackServices } from '../support/services';
import { newMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { newStellarUsdcAccount, stellarCustomerPayment } from '../support/stellar';
import { newTronAddress, tronCustomerTransfer } from '../support/tron';
import type { OrderCreated } from '../legacy/helpers';

describe('the hosted page for USDT_TRC20 and USDC_XLM orders (Chromium)', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  let chromium: TestBrowser;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    chromium = await launchChromium();
  });
  after(async function () {
    this.timeout(60_000);
    await chromium?.close();
    await services?.close();
  });

  /** A legacy order of a merchant paid out on the given chain, opened on its hosted page with the currency chosen. */
  async function openOrder(payout: { chainId: number; tokenSymbol: string; address: string }, currency: RegExp): Promise<{ page: Page; errors: string[] }> {
    const merchant = await newMerchant(stack, services.knex, { payout });
    const res = await request(`${stack.info.legacyApiUrl}/v1/orders`, { headers: { token: merchant.ordersKey }, body: { merchant_order_id: uniqueOrderId('page'), price_amount: 7.5, title: 'Tea sampler' } });
    assert.equal(res.status, 201, res.text);
    const page = await chromium.browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto((res.body as OrderCreated).payment_url);
    await page.getByRole('button', { name: currency }).click();
    await page.locator('#deposit-address').waitFor({ timeout: 30_000 });
    assert.equal(await page.getByRole('img', { name: /QR code to pay 7\.5 / }).count(), 1);
    return { page, errors };
  }

  const paid = (page: Page) => page.waitForFunction(() => document.getElementById('status')?.textContent === 'Paid', undefined, { timeout: 90_000 });

  it('USDT on Tron: deposit address, tron: link in the QR and the wallet button, paid from tronweb', async () => {
    const chain = stackChain(stack.info, 'tron');
    const { page, errors } = await openOrder({ chainId: chain.chainId, tokenSymbol: 'USDT', address: newTronAddress() }, /USDT\s+on Tron/);
    const deposit = (await page.locator('#deposit-address').textContent())!.trim();
    assert.match(deposit, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    assert.equal(await page.locator('#pay-memo').count(), 0, 'no memo on Tron');
    assert.equal(await page.locator('#pay-amount').textContent(), '7.5 USDT');
    const link = await page.getByRole('link', { name: 'Open in a Tron wallet (tron: link)' }).getAttribute('href');
    assert.equal(link, `tron:${deposit}?amount=7.5&token=${chain.tokens.USDT.address}`);
    await tronCustomerTransfer(stack.info, deposit, '7.5');
    await paid(page);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('USDC on Stellar: the receiving account, the memo shown prominently and in the web+stellar: link, paid with the memo', async () => {
    const chain = stackChain(stack.info, 'stellar');
    const { page, errors } = await openOrder({ chainId: chain.chainId, tokenSymbol: 'USDC', address: await newStellarUsdcAccount(stack.info) }, /USDC\s+on Stellar/);
    assert.equal((await page.locator('#deposit-address').textContent())!.trim(), chain.receivingAccount);
    const memoBox = page.locator('#pay-memo');
    assert.ok(await memoBox.isVisible(), 'the memo is on the page');
    const memo = (await memoBox.textContent())!.trim();
    assert.match(memo, /^\d+$/);
    assert.match((await page.locator('#memo-label').textContent()) ?? '', /Memo.*required/);
    assert.equal(await page.getByRole('button', { name: `Copy memo ${memo}` }).getAttribute('data-copy'), memo);
    const link = new URL((await page.getByRole('link', { name: 'Open in a Stellar wallet (SEP-7 link)' }).getAttribute('href'))!);
    assert.equal(link.protocol, 'web+stellar:');
    assert.equal(link.searchParams.get('destination'), chain.receivingAccount);
    assert.equal(link.searchParams.get('memo'), memo);
    assert.equal(link.searchParams.get('memo_type'), 'MEMO_ID');
    assert.equal(link.searchParams.get('amount'), '7.5');
    assert.equal(`${link.searchParams.get('asset_code')}:${link.searchParams.get('asset_issuer')}`, chain.tokens.USDC.address);
    await stellarCustomerPayment(stack.info, { account: chain.receivingAccount, memo }, '7.5');
    await paid(page);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
