import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Wallet, parseUnits } from 'ethers';
import type { Page } from 'playwright-core';
import type { PaymentResource } from '../../api/serializers/payment';
import { updateRefundCredit } from '../../db/queries/merchants';
import { listPayins } from '../../db/queries/payins';
import { formatUnits } from '../../domain/money';
import type { Stack } from '../../tools/stack/stack';
import { bearer, login } from '../merchant/helpers';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { launchChromium, type TestBrowser } from '../support/browser';
import { customerTransfer, tokenBalance } from '../support/chain';
import { request } from '../support/http';
import { assertAppReconciled } from '../support/ledger';
import { sinkMessages } from '../support/mail';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { eventually } from '../support/poll';
import { connectServices, paymentRunEnded, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

/** The dialogs and pages of the merchant's money operations, as screenshots (var/ is git-ignored; docs/screenshots keeps the good ones). */
const SCREENSHOT_DIR = path.resolve(process.env.PAYRAIL_SCREENSHOT_DIR ?? 'var/screenshots/money');
const usdc = (amount: string) => parseUnits(amount, 6);

/**
 * The merchant's money operations in headless Chromium on the real stack: a refund from the dashboard lands on
 * chain and shows in the list, "Accept as paid" completes a short payment, and the hosted page of a short payment
 * asks for the rest until it is paid.
 */
describe('dashboard refunds, accept as paid, and the hosted page of a short payment, in Chromium', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  let chromium: TestBrowser;
  let page: Page;
  let shop: TestMerchant;
  let api: string;
  const pageErrors: string[] = [];
  /** The dashboard's refund requests, with the idempotency key each carried. */
  const refundRequests: Array<{ key: string | undefined; body: unknown }> = [];

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    shop = await newMerchant(stack, services.knex, { name: 'Money Coffee' });
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    chromium = await launchChromium();
    page = await chromium.browser.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('request', (req) => {
      if (req.method() === 'POST' && /\/payments\/[^/]+\/refunds$/.test(new URL(req.url()).pathname)) refundRequests.push({ key: req.headers()['idempotency-key'], body: req.postDataJSON() });
    });
    // The shop's developer logs in with the code the mail sink caught.
    const before = (await sinkMessages(stack.info.mailSinkUrl!, shop.developerEmail)).length;
    await page.goto(`${stack.publicBaseUrl}/dashboard/`);
    await page.getByLabel('E-mail').fill(shop.developerEmail);
    await page.keyboard.press('Enter');
    const mail = await eventually('the login e-mail', 15_000, async () => (await sinkMessages(stack.info.mailSinkUrl!, shop.developerEmail))[before]);
    await page.getByLabel('Login code').fill(/\b(\d{6})\b/.exec(mail.text)![1]!);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
  });

  after(async function () {
    this.timeout(60_000);
    await chromium?.close();
    await services?.close();
  });

  afterEach(() => assert.deepEqual(pageErrors.splice(0), [], 'no script errors on the pages'));

  /** Writes the screenshot (of what is on screen with a dialog open: its backdrop covers the screen) and checks it is there. */
  async function shot(name: string, options: { dialog?: boolean } = {}): Promise<void> {
    const file = path.join(SCREENSHOT_DIR, `${name}.png`);
    await page.screenshot({ path: file, fullPage: !options.dialog });
    assert.ok((await stat(file)).size > 1000, `${file} is written`);
  }

  const pay = (amount: string) => createPayment(api, shop.ordersKey, paymentBody({ orderId: `money-${randomUUID()}`, chainId: '8453', amount }));
  const openPayment = (id: string) => page.goto(`${stack.publicBaseUrl}/dashboard/payments/${id}?app=${shop.appId}`);
  const confirmedPayins = (paymentId: string, count: number) =>
    eventually(`${count} confirmed payin(s) of ${paymentId}`, 120_000, async () => ((await listPayins({ knex: services.knex, paymentId })).filter((p) => p.status === 'confirmed').length >= count ? true : undefined));

  it('refunds part of a completed payment to an address: confirmed in a dialog, its progress polled to completed, the customer paid on chain', async () => {
    const created = await pay('12.5');
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '12.5');
    await waitForStatus(api, created.id, 'payment_completed', 120_000);
    const customer = Wallet.createRandom().address;

    await openPayment(created.id);
    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this payment' });
    const amount = dialog.getByLabel('Amount (USDC)');
    assert.equal(await amount.inputValue(), '12.5', 'the amount defaults to what is left');
    await amount.fill('5');
    await dialog.getByLabel('Reason (optional)').fill('One cup returned');
    await dialog.getByLabel(/Customer’s address/).fill(customer);
    await shot('refund-dialog', { dialog: true });
    await dialog.getByRole('button', { name: 'Review refund' }).click();

    const confirm = page.getByRole('dialog', { name: 'Confirm the refund' });
    await confirm.getByText(`Send 5 USDC on`).waitFor();
    assert.match((await confirm.textContent())!, new RegExp(customer));
    await shot('refund-confirm', { dialog: true });
    await confirm.getByRole('button', { name: 'Confirm refund' }).click();

    const progress = page.getByRole('dialog', { name: 'Refund' });
    await progress.locator('[data-refund-status="completed"]').waitFor({ timeout: 150_000 });
    const txHash = (await progress.getByTestId('refund-tx').textContent())!.trim();
    assert.match(txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(await progress.getByTestId('claim-url').count(), 0, 'a refund to an address has no claim link');
    await shot('refund-completed', { dialog: true });
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), usdc('5'), "the customer's balance rose by the refund");

    // One request, with the page's key, through the refund service the Admin key uses: the API lists the same refund.
    assert.equal(refundRequests.length, 1);
    assert.match(refundRequests[0]!.key ?? '', /^dashboard-[0-9a-f-]{36}$/);
    assert.deepEqual(refundRequests[0]!.body, { amount: '5', reason: 'One cup returned', address: customer });
    const listed = await request<{ data: Array<{ amount: string; status: string; txHash: string; reason: string }> }>(`${api}/${created.id}/refunds`, { headers: { 'x-api-key': shop.adminKey } });
    assert.deepEqual(
      listed.body.data.map((r) => [r.amount, r.status, r.txHash, r.reason]),
      [['5', 'completed', txHash, 'One cup returned']],
    );

    await progress.getByRole('button', { name: 'Close' }).click();
    const timeline = page.getByRole('list', { name: 'Status timeline' });
    await timeline.locator('li[data-event="refund_completed"]').waitFor();
    assert.match((await timeline.locator('li[data-event="refund_requested"]').textContent())!, /Refund of 5 USDC asked for/);
    await page.getByText('7.5 USDC left to refund').waitFor();

    await page.goto(`${stack.publicBaseUrl}/dashboard/payments?app=${shop.appId}`);
    const row = page.locator(`tr[data-payment-id="${created.id}"]`);
    assert.equal((await row.getByTestId('refunded').textContent())!.trim(), '5 USDC', 'the list shows the refunded amount');
    await shot('payments-refunded');
    await assertAppReconciled(services, shop.appId);
  });

  it("refuses another app's payment (404) and bad input (400 JSON), refunding nothing", async () => {
    const other = await newMerchant(stack, services.knex);
    const unpaid = await pay('3');
    const session = await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!, shop.developerEmail);
    const refund = (appId: string, paymentId: string, body: unknown, key: string | null = randomUUID()) =>
      request<{ error: string; details?: Array<{ path: string }> }>(`${stack.info.merchantApiUrl}/apps/${appId}/payments/${paymentId}/refunds`, {
        headers: { ...bearer(session.token), ...(key ? { 'idempotency-key': key } : {}) },
        body,
      });
    const accept = (appId: string, paymentId: string) => request<{ error: string }>(`${stack.info.merchantApiUrl}/apps/${appId}/payments/${paymentId}/accept`, { method: 'POST', headers: bearer(session.token) });
    const otherPayment = await createPayment(api, other.ordersKey, paymentBody({ orderId: `theirs-${randomUUID()}`, chainId: '8453', amount: '3' }));
    const address = Wallet.createRandom().address;

    const refused = [
      [await refund(shop.appId, otherPayment.id, { address }), 404, 'not_found'],
      [await refund(other.appId, otherPayment.id, { address }), 404, 'not_found'],
      [await accept(shop.appId, otherPayment.id), 404, 'not_found'],
      [await refund(shop.appId, 'not-a-uuid', { address }), 400, 'invalid_request'],
      [await refund(shop.appId, unpaid.id, { address }, null), 400, 'invalid_request'],
      [await refund(shop.appId, unpaid.id, { amount: 'lots', address }), 400, 'invalid_request'],
      [await refund(shop.appId, unpaid.id, { address, extra: 1 }), 400, 'invalid_request'],
      [await refund(shop.appId, unpaid.id, { address }), 409, 'conflict'],
      [await accept(shop.appId, unpaid.id), 409, 'conflict'],
    ] as const;
    assert.deepEqual(
      refused.map(([res]) => [res.status, res.contentType?.split(';')[0], res.body.error]),
      refused.map(([, status, error]) => [status, 'application/json', error]),
    );
    const { data } = (await request<{ data: unknown[] }>(`${api}/${unpaid.id}/refunds`, { headers: { 'x-api-key': shop.adminKey } })).body;
    assert.deepEqual(data, [], 'no refund was made');
  });

  it('accepts a short payment as paid with the button: it completes, and the merchant is paid what arrived less the fee and what its payout keeps back for earlier refunds', async () => {
    const payoutBefore = await tokenBalance(stack.info, 8453, 'USDC', shop.payout.address);
    const created = await pay('10');
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '7.5');
    await confirmedPayins(created.id, 1);

    await openPayment(created.id);
    await page.getByTestId('arrived').filter({ hasText: '7.5 USDC confirmed; 2.5 USDC left to pay' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Accept as paid' }).click();
    await page.getByText('Accept 7.5 of 10 USDC as paid?').waitFor();
    await shot('accept-as-paid');
    await page.getByRole('button', { name: 'Confirm: accept as paid' }).click();

    const { payment } = await waitForStatus(api, created.id, 'payment_completed', 150_000);
    // What arrived less the fee, less what the payout kept back for this app's earlier refunds (the refund test's).
    const { netted_units: kept } = await services.knex('payments').where({ id: created.id }).first<{ netted_units: string }>('netted_units');
    const expected = usdc('7.5') - usdc(payment.source.fee) - BigInt(kept);
    assert.equal(payment.destination.amount, formatUnits(expected, 6), 'the payout is what arrived less the fee, less what it kept back');
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', shop.payout.address)) - payoutBefore, expected);
    await page.getByRole('list', { name: 'Status timeline' }).locator('li[data-event="accepted_as_paid"]').waitFor();
    await page.locator('h1 [data-status="payment_completed"]').waitFor({ timeout: 30_000 });
    if (BigInt(kept) > 0n) await page.getByTestId('kept-for-refunds').filter({ hasText: `${formatUnits(BigInt(kept), 6)} USDC` }).waitFor();
    await assertAppReconciled(services, shop.appId);
  });

  it("shows a short payment's customer what arrived and what is left (the copy button and the QR ask for the rest); paying the rest completes it", async () => {
    const created: PaymentResource = await pay('10');
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '6');
    await confirmedPayins(created.id, 1);

    await page.goto(created.paymentLink);
    assert.equal((await page.locator('#pay-arrived').textContent())!.replace(/\s+/g, ' ').trim(), '6 USDC of 10 USDC');
    assert.equal((await page.locator('#pay-amount').textContent())!.trim(), '4 USDC');
    assert.equal(await page.getByRole('heading', { name: 'Send the rest' }).count(), 1);
    assert.equal(await page.getByRole('button', { name: 'Copy amount 4' }).getAttribute('data-copy'), '4');
    const link = (await page.getByRole('link', { name: /Open in an Ethereum wallet/ }).getAttribute('href'))!;
    assert.match(link, /uint256=4000000$/, 'the wallet link (and the QR code: the same link) carries the rest');
    assert.match((await page.getByRole('img', { name: /^QR code to pay/ }).getAttribute('aria-label'))!, new RegExp(`^QR code to pay 4 USDC on .+ to ${created.source.receiverAddress}$`));
    assert.match((await page.locator('#status').textContent())!, /6 of 10 USDC arrived: 4 USDC left to pay/);
    await shot('underpaid-page');

    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '4');
    const { payment } = await waitForStatus(api, created.id, 'payment_completed', 150_000);
    assert.equal(payment.source.amountReceived, '10');
    await page.getByRole('heading', { name: 'Payment received' }).waitFor({ timeout: 30_000 });
    await assertAppReconciled(services, shop.appId);
  });

  it('a refund past the app’s refund credit shows where the merchant funds it (address, amount, copy button); funded there, it completes', async () => {
    const created = await pay('4');
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '4');
    await waitForStatus(api, created.id, 'payment_completed', 120_000);
    // Its run ended (its sweep landed): a transfer into the deposit address is now a late payin, which funds a refund.
    await paymentRunEnded(services, created.id);
    await updateRefundCredit({ knex: services.knex, appId: shop.appId, refundCredit: '0' });
    const customer = Wallet.createRandom().address;

    await openPayment(created.id);
    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this payment' });
    await dialog.getByLabel('Amount (USDC)').fill('2');
    await dialog.getByLabel(/Customer’s address/).fill(customer);
    await dialog.getByRole('button', { name: 'Review refund' }).click();
    await page.getByRole('dialog', { name: 'Confirm the refund' }).getByRole('button', { name: 'Confirm refund' }).click();

    const progress = page.getByRole('dialog', { name: 'Refund' });
    const funding = progress.getByTestId('refund-funding');
    await funding.waitFor();
    assert.match((await funding.textContent())!, new RegExp(`send 2 USDC on .+ to ${created.source.receiverAddress}`), 'the payment’s deposit address, and the amount');
    assert.equal(await progress.getByRole('button', { name: 'Copy the funding address' }).count(), 1);
    assert.equal(await progress.locator('[data-refund-status="pending"]').count(), 1);
    await shot('refund-funding', { dialog: true });

    const fundingTx = await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '2');
    await progress.locator('[data-refund-status="completed"]').waitFor({ timeout: 150_000 });
    assert.match((await funding.textContent())!, new RegExp(`funded by ${fundingTx}`));
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), usdc('2'), "the customer's balance rose by the refund");
    await assertAppReconciled(services, shop.appId);
  });
});
