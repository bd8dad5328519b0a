import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { Address } from '@ton/core';
import { getAddress } from 'ethers';
import type { Page } from 'playwright-core';
import type { PaymentResource } from '../../api/serializers/payment';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { uniqueOrderId } from '../api/helpers';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { launchChromium, type TestBrowser } from '../support/browser';
import { installEvmTestWallet, installSolanaTestWallet } from '../support/browser-wallets';
import { evmChain } from '../support/chain';
import { request } from '../support/http';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { connectServices, type StackServices } from '../support/services';
import { solanaTokenBalance } from '../support/solana';
import { getStack } from '../support/stack';
import { newStellarUsdcAccount } from '../support/stellar';
import type { OrderCreated } from '../legacy/helpers';

/** Set (PAYRAIL_DOCS_SCREENSHOTS=1) to write the README's screenshots of each family's page into docs/img. */
const DOCS_SCREENSHOTS = process.env.PAYRAIL_DOCS_SCREENSHOTS === '1';
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * axe-core in the page (evaluated through the debugging protocol, so the page's own CSP stays as served): the
 * serious and critical findings, which must be none.
 */
async function seriousAxeFindings(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('the hosted page as wallet users expect it (Chromium: EIP-6963 and Wallet Standard wallets, axe, 360 px)', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  let chromium: TestBrowser;
  /** Paid out in USDC on Base; the other families' payments are paid out on their own chain (no bridge reaches them). */
  let merchant: TestMerchant;
  const sameChainMerchants = new Map<number, TestMerchant>();

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    chromium = await launchChromium();
    merchant = await newMerchant(stack, services.knex);
  });
  after(async function () {
    this.timeout(60_000);
    await chromium?.close();
    await services?.close();
  });

  /** A page of its own, failing the test on any script error or CSP refusal. */
  async function newPage(errors: string[]): Promise<Page> {
    const page = await chromium.browser.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });
    return page;
  }

  /** A payment of `amount` of the token on the chain, paid out on Base (EVM) or on the same chain to `payoutTo`. */
  async function payment(chainId: number, tokenSymbol: string, amount: string, payoutTo?: () => Promise<string> | string): Promise<PaymentResource> {
    let app = merchant;
    if (payoutTo) {
      app = sameChainMerchants.get(chainId) ?? (await newMerchant(stack, services.knex, { payout: { chainId, tokenSymbol, address: await payoutTo() } }));
      sameChainMerchants.set(chainId, app);
    }
    return createPayment(stack.info.paymentApiUrl, app.ordersKey, paymentBody({ orderId: `page-${randomUUID()}`, chainId: String(chainId), tokenSymbol, amount }));
  }

  async function docsScreenshot(page: Page, name: string): Promise<void> {
    if (DOCS_SCREENSHOTS) await page.screenshot({ path: path.resolve(__dirname, `../../docs/img/pay-${name}.jpg`), type: 'jpeg', quality: 80, fullPage: true });
  }

  const walletButton = (page: Page, name: string) => page.getByRole('button', { name: `Pay with ${name}` });
  /** The wallet's button, once the page's wallet script found the wallet (failing with the page's errors if it never does). */
  async function foundWallet(page: Page, name: string, errors: string[]) {
    const button = walletButton(page, name);
    await button.waitFor({ timeout: 15_000 }).catch((err: Error) => {
      throw new Error(`${err.message}\npage errors: ${errors.join('\n') || 'none'}`);
    });
    return button;
  }
  const walletMessage = async (page: Page) => ((await page.locator('#wallet-message').textContent()) ?? '').trim();

  it('EVM: the EIP-55 deposit, then a wallet announced through EIP-6963 switches (adding the chain), is refused once, and pays once on a double click', async () => {
    const base = evmChain(stack.info, 8453);
    const created = await payment(42161, 'USDC', '3.25');
    assert.equal(created.source.receiverAddress, getAddress(created.source.receiverAddress), 'the API shows the EIP-55 form');
    const errors: string[] = [];
    const page = await newPage(errors);
    // The wallet knows Base only: the page must add Arbitrum with the chain's walletRpcUrl.
    const wallet = await installEvmTestWallet(page, { privateKey: stack.info.customer.evm.privateKey, chains: { '0x2105': base.rpcUrl }, startChainId: '0x2105' });
    await page.goto(created.paymentLink);
    assert.equal((await page.locator('#deposit-address').textContent())!.trim(), created.source.receiverAddress);
    assert.equal(await page.getByRole('button', { name: 'Copy deposit address' }).getAttribute('data-copy'), created.source.receiverAddress);
    assert.equal(await page.getByRole('button', { name: 'Copy amount 3.25' }).getAttribute('data-copy'), '3.25');
    assert.match((await page.locator('#pay-network').textContent()) ?? '', /^Arbitrum/);
    assert.ok(await page.getByRole('link', { name: 'Open in an Ethereum wallet (EIP-681 link)' }).isVisible());
    const button = await foundWallet(page, 'Payrail Test Wallet', errors);
    assert.deepEqual(await seriousAxeFindings(page), []);
    await docsScreenshot(page, 'evm');

    wallet.refuseNext();
    await button.click();
    await page.waitForFunction(() => /declined/.test(document.getElementById('wallet-message')?.textContent ?? ''));
    assert.equal(await walletMessage(page), 'You declined the request in your wallet. Nothing was sent.');
    assert.equal(await button.isEnabled(), true, 'a refusal leaves the customer free to try again');
    assert.deepEqual(wallet.sent, []);

    await button.dblclick();
    await page.waitForFunction(() => /^Sent from your wallet/.test(document.getElementById('wallet-message')?.textContent ?? ''), undefined, { timeout: 30_000 });
    assert.equal(wallet.chainId(), '0xa4b1', 'the wallet was switched to Arbitrum');
    assert.ok(wallet.calls.includes('wallet_addEthereumChain'), 'the wallet, lacking the chain, was asked to add it');
    assert.equal(wallet.sent.length, 1, 'a double click sends one transaction');
    assert.equal(await button.isDisabled(), true, 'no second payment from the same page');
    const { payment: done } = await waitForStatus(stack.info.paymentApiUrl, created.id, 'payment_completed', 120_000);
    assert.equal(done.source.txHash, wallet.sent[0]);
    assert.equal(done.source.senderAddress, wallet.address);
    assert.equal(done.source.amountReceived, '3.25');
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'Paid', undefined, { timeout: 30_000 });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('EVM: a wallet that stays on another chain, and a balance that falls short, each get their message; nothing is sent', async () => {
    // The devnet customer holds 10,000 USDC.
    const created = await payment(42161, 'USDC', '20000');
    const errors: string[] = [];
    const page = await newPage(errors);
    const base = evmChain(stack.info, 8453);
    const wallet = await installEvmTestWallet(page, { privateKey: stack.info.customer.evm.privateKey, chains: { '0x2105': base.rpcUrl, '0xa4b1': evmChain(stack.info, 42161).rpcUrl }, startChainId: '0x2105' });
    await page.goto(created.paymentLink);
    const button = await foundWallet(page, 'Payrail Test Wallet', errors);
    wallet.stayOnChain(true);
    await button.click();
    await page.waitForFunction(() => /another network/.test(document.getElementById('wallet-message')?.textContent ?? ''));
    assert.match(await walletMessage(page), /^Your wallet is on another network\. Switch it to .+ and try again\.$/);
    wallet.stayOnChain(false);
    await button.click();
    await page.waitForFunction(() => /does not hold enough/.test(document.getElementById('wallet-message')?.textContent ?? ''));
    assert.equal(wallet.chainId(), '0xa4b1');
    assert.deepEqual(wallet.sent, [], 'nothing is sent when the balance falls short');
    assert.equal(await page.locator('#wallet-message').getAttribute('role'), 'alert');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('Solana: a wallet registered through the Wallet Standard signs and sends the transfer the page built (creating the deposit token account), to payment_completed; a wallet gone mid-way gets its message', async () => {
    const solana = stackChain(stack.info, 'solana');
    const created = await payment(solana.chainId, 'USDC', '2.5', async () => (await generateKeyPairSigner()).address);
    const errors: string[] = [];
    const page = await newPage(errors);
    const wallet = await installSolanaTestWallet(page, { secretKey: stack.info.customer.solana.secretKey, rpcUrl: solana.rpcUrl, chain: 'solana:localnet' });
    await page.goto(created.paymentLink);
    const deposit = (await page.locator('#deposit-address').textContent())!.trim();
    assert.equal(deposit, created.source.receiverAddress);
    assert.match(deposit, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    assert.ok(await page.getByRole('link', { name: 'Open in a Solana wallet (Solana Pay link)' }).isVisible());
    const button = await foundWallet(page, 'Payrail Test Solana Wallet', errors);
    assert.deepEqual(await seriousAxeFindings(page), []);
    await docsScreenshot(page, 'solana');

    assert.equal(await solanaTokenBalance(stack.info, 'USDC', deposit), 0n, 'the deposit has no token account yet');
    wallet.disconnectNext();
    await button.click();
    await page.waitForFunction(() => /no longer available/.test(document.getElementById('wallet-message')?.textContent ?? ''));
    assert.deepEqual(wallet.sent, []);
    assert.equal(await button.isEnabled(), true);
    await button.dblclick();
    await page.waitForFunction(() => /^Sent from your wallet/.test(document.getElementById('wallet-message')?.textContent ?? ''), undefined, { timeout: 30_000 });
    assert.equal(wallet.sent.length, 1, 'a double click sends one transaction');
    const { payment: done } = await waitForStatus(stack.info.paymentApiUrl, created.id, 'payment_completed', 120_000);
    assert.equal(done.source.txHash, wallet.sent[0]);
    assert.equal(done.source.senderAddress, wallet.address);
    assert.equal(done.source.amountReceived, '2.5');
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'Paid', undefined, { timeout: 30_000 });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('TON: the deposit is shown, copied and returned by the API as a non-bounceable user-friendly address; the page offers the ton:// link, no wallet connection', async () => {
    const ton = stackChain(stack.info, 'ton');
    const created = await payment(ton.chainId, 'USDT', '4', () => new Address(0, randomBytes(32)).toRawString());
    const friendly = Address.parseFriendly(created.source.receiverAddress);
    assert.equal(friendly.isBounceable, false, 'the API returns the non-bounceable form');
    const errors: string[] = [];
    const page = await newPage(errors);
    await chromium.browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(created.paymentLink).origin });
    await page.goto(created.paymentLink);
    await page.getByRole('button', { name: 'Copy deposit address' }).click();
    await page.getByRole('button', { name: 'Copied deposit address' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const parsed = Address.parseFriendly(copied);
    assert.equal(parsed.isBounceable, false, 'the copied deposit is non-bounceable');
    assert.ok(parsed.address.equals(friendly.address));
    assert.equal(copied, (await page.locator('#deposit-address').textContent())!.trim());
    const link = await page.getByRole('link', { name: 'Open in a TON wallet (ton:// link)' }).getAttribute('href');
    assert.ok(link?.startsWith(`ton://transfer/${copied}?jetton=`), link ?? '');
    assert.equal(await page.locator('#connect-wallet').count(), 0, 'TON pays by link and QR: no wallet section');
    assert.deepEqual(await seriousAxeFindings(page), []);
    await docsScreenshot(page, 'ton');
    const wallet = await request(`${new URL(created.paymentLink).origin}/pay/${created.id}/wallet`, {});
    assert.equal(wallet.status, 409);
    assert.equal((wallet.body as { error: string }).error, 'wallet_not_supported');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('Stellar: the receiving account, the memo as a required field with its own copy button and warning, the muxed address as the alternative', async () => {
    const stellar = stackChain(stack.info, 'stellar');
    const created = await payment(stellar.chainId, 'USDC', '6', () => newStellarUsdcAccount(stack.info));
    assert.match(created.source.receiverAddress, /^M[A-Z2-7]{68}$/, 'the API returns the muxed deposit address');
    const errors: string[] = [];
    const page = await newPage(errors);
    await page.goto(created.paymentLink);
    assert.equal((await page.locator('#deposit-address').textContent())!.trim(), stellar.receivingAccount);
    const memo = (await page.locator('#pay-memo').textContent())!.trim();
    assert.match(memo, /^\d+$/);
    assert.ok(await page.locator('#pay-memo').isVisible());
    assert.equal(await page.getByRole('button', { name: `Copy memo ${memo}` }).getAttribute('data-copy'), memo);
    assert.match((await page.locator('.memo-warning').textContent()) ?? '', /cannot be matched/);
    await page.getByText('Your wallet takes muxed (M…) addresses?').click();
    assert.equal((await page.locator('#memo-free-address').textContent())!.trim(), created.source.receiverAddress);
    assert.ok(await page.getByRole('link', { name: 'Open in a Stellar wallet (SEP-7 link)' }).isVisible());
    assert.deepEqual(await seriousAxeFindings(page), []);
    await page.getByText('Your wallet takes muxed (M…) addresses?').click();
    await docsScreenshot(page, 'stellar');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('the mobile layout at 360 px: no sideways scrolling, the QR code and every button inside the screen, no serious axe findings', async () => {
    const res = await request(`${stack.info.legacyApiUrl}/v1/orders`, {
      headers: { token: merchant.ordersKey },
      body: { merchant_order_id: uniqueOrderId('page-360'), price_amount: 5, pay_currency: 'USDC_ARB', mobile: true, title: 'Tip' },
    });
    assert.equal(res.status, 201, res.text);
    const errors: string[] = [];
    const page = await newPage(errors);
    await installEvmTestWallet(page, { privateKey: stack.info.customer.evm.privateKey, chains: {}, startChainId: '0x1' });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto((res.body as OrderCreated).payment_url);
    await foundWallet(page, 'Payrail Test Wallet', errors);
    assert.equal(await page.locator('body').getAttribute('class'), 'mobile');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), 'nothing scrolls sideways');
    const boxes = [page.getByRole('img', { name: /QR code/ }), page.getByRole('link', { name: 'Open in an Ethereum wallet (EIP-681 link)' }), ...(await page.getByRole('button').all())];
    for (const box of boxes) {
      await box.scrollIntoViewIfNeeded();
      const b = (await box.boundingBox())!;
      assert.ok(b.x >= 0 && b.x + b.width <= 360 && b.y >= 0 && b.y + b.height <= 740, `${await box.evaluate((e) => e.outerHTML.slice(0, 80))} is inside the screen`);
    }
    assert.deepEqual(await seriousAxeFindings(page), []);
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.deepEqual(errors, []);
    await page.close();
  });
});
