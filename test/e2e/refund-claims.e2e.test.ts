import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Wallet, parseUnits } from 'ethers';
import type { Page } from 'playwright-core';
import type { RefundResource } from '../../api/serializers/refund';
import { findChainTx } from '../../db/queries/chain-txs';
import { findRefund } from '../../db/queries/refunds';
import { intentKeys } from '../../domain/chain-txs';
import type { RefundStatus } from '../../domain/refunds';
import type { Stack } from '../../tools/stack/stack';
import type { refundWorkflow } from '../../workflows';
import { refundWorkflowId } from '../../workflows/ids';
import { getPayment, waitForStatus } from '../support/api';
import { launchChromium, type TestBrowser } from '../support/browser';
import { customerTransfer, tokenBalance } from '../support/chain';
import { request } from '../support/http';
import { assertAppReconciled } from '../support/ledger';
import { sinkMessages } from '../support/mail';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import type { OrderCreated } from '../legacy/helpers';

const units = (amount: string) => parseUnits(amount, 6);
const SCREENSHOT_DIR = path.resolve(__dirname, '../../var/screenshots');

type Answer = RefundResource & { error?: string; message?: string; details?: Array<{ path: string; message: string }> };

describe('refund claim links end to end on the devnet (real API, Temporal, PostgreSQL, hardhat, Chromium)', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let shop: TestMerchant;
  let otherShop: TestMerchant;
  let chromium: TestBrowser;
  /** The devnet customer: the sender of every payin these tests make. */
  let sender: string;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    shop = await newMerchant(stack, services.knex);
    otherShop = await newMerchant(stack, services.knex);
    chromium = await launchChromium();
    sender = new Wallet(stack.info.customer.evm.privateKey).address;
  });
  after(async function () {
    this.timeout(60_000);
    await chromium?.close();
    await services?.close();
  });

  /** A legacy order of `price` (USDC on Base) for `email`, paid by the devnet customer: its completed payment's id. */
  async function paidOrder(price: number, email: string): Promise<{ paymentId: string; amount: string }> {
    const res = await request<OrderCreated>(`${stack.info.legacyApiUrl}/v1/orders`, {
      headers: { token: shop.ordersKey },
      body: { merchant_order_id: `claim-${randomUUID()}`, price_amount: price, pay_currency: 'USDC_BASE', title: 'Refundable order', email },
    });
    assert.equal(res.status, 201, res.text);
    const { order } = res.body;
    await customerTransfer(stack.info, 8453, 'USDC', order.pay_address!, order.pay_amount!);
    await waitForStatus(api, order.payment_id!, 'payment_completed', 90_000);
    return { paymentId: order.payment_id!, amount: order.pay_amount! };
  }

  const refund = (paymentId: string, body: unknown, options: { key?: string; idempotencyKey?: string } = {}) =>
    request<Answer>(`${api}/${paymentId}/refunds`, { headers: { 'x-api-key': options.key ?? shop.adminKey, 'idempotency-key': options.idempotencyKey ?? randomUUID() }, body });
  const claim = (url: string, body: unknown) => request<Answer & { address: string | null; status: RefundStatus }>(url, { body });
  const sendToSender = (paymentId: string, refundId: string, key = shop.adminKey) =>
    request<Answer>(`${api}/${paymentId}/refunds/${refundId}/send-to-sender`, { headers: { 'x-api-key': key }, method: 'POST' });

  /** A refund of the whole payment awaiting its customer's address: its resource (with its claim link). */
  async function awaitingRefund(paymentId: string): Promise<RefundResource & { claimUrl: string }> {
    const created = await refund(paymentId, {});
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.status, 'awaiting_address');
    assert.equal(created.body.address, null);
    assert.ok(created.body.claimUrl, 'a claim link');
    return created.body as RefundResource & { claimUrl: string };
  }

  async function refundResult(refundId: string): Promise<RefundStatus> {
    return services.client.workflow.getHandle<typeof refundWorkflow>(refundWorkflowId(refundId)).result();
  }

  async function screenshot(page: Page, name: string): Promise<string> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const file = path.join(SCREENSHOT_DIR, `refund-claim-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  }

  it('the customer opens the mailed claim link in Chromium, enters an address, and the refund lands there; the books balance', async () => {
    const email = `claim-${randomUUID().slice(0, 8)}@example.com`;
    const { paymentId, amount } = await paidOrder(9, email);
    const created = await awaitingRefund(paymentId);
    assert.equal(created.amount, amount);
    const token = created.claimUrl.split('/').pop()!;
    assert.equal(created.claimUrl, `${stack.publicBaseUrl}/pay/${paymentId}/refunds/${created.id}/claim/${token}`);
    assert.ok(token.length >= 43, 'a 256-bit token');

    // Only the token's hash is stored, and nothing is signed before the address comes.
    const row = await findRefund({ knex: services.knex, id: created.id });
    assert.equal(row?.claim_token_hash, createHash('sha256').update(token).digest('hex'));
    assert.ok(!JSON.stringify(row).includes(token), 'the token itself is not stored');
    assert.equal(await findChainTx({ knex: services.knex, intentKey: intentKeys.merchantRefund(created.id) }), undefined);
    // The same key and body: the same refund, with its link.
    const listed = await request<{ data: RefundResource[] }>(`${api}/${paymentId}/refunds`, { headers: { 'x-api-key': shop.adminKey } });
    assert.equal(listed.body.data[0]?.claimUrl, created.claimUrl);

    // The customer gets the link by mail.
    const mail = await eventually('the claim mail', 20_000, async () => (await sinkMessages(stack.info.mailSinkUrl!, email)).find((m) => m.text.includes(created.claimUrl)));
    assert.match(mail.subject, /Your refund from/);
    assert.match(mail.text, new RegExp(`${amount.replace('.', '\\.')} USDC`));

    const customer = Wallet.createRandom().address;
    const page = await chromium.browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(created.claimUrl);
    assert.equal(await page.locator('h1').textContent(), 'Your refund');
    assert.equal((await page.locator('#refund-amount').textContent())?.trim(), `${amount} USDC`);
    assert.equal(await page.locator('#refund-token').textContent(), 'USDC');
    assert.match((await page.locator('#refund-network').textContent()) ?? '', /chain 8453/);

    // A Tron address on an EVM chain: refused, with the reason, and nothing changes.
    await page.fill('#refund-address', 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE');
    await page.click('#claim-submit');
    await page.locator('#claim-error').waitFor({ state: 'visible' });
    assert.match((await page.locator('#claim-error').textContent()) ?? '', /address must be an address of chain 8453/);
    assert.equal((await findRefund({ knex: services.knex, id: created.id }))?.status, 'awaiting_address');
    await screenshot(page, 'refused');

    await page.fill('#refund-address', customer.toLowerCase());
    await page.click('#claim-submit');
    await page.locator('#outcome').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#refund-address-given').textContent(), customer, 'stored in its checksummed form');
    await screenshot(page, 'claimed');
    assert.deepEqual(errors, [], 'no script errors on the page');

    assert.equal(await refundResult(created.id), 'completed');
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), units(amount), 'the customer received the refund');
    await waitForStatus(api, paymentId, 'payment_refunded', 10_000);
    await page.reload();
    assert.equal(await page.locator('#status').textContent(), 'Refunded');
    assert.equal(await page.locator('#claim-form').count(), 0, 'a claimed link shows no form');
    await screenshot(page, 'refunded');
    await page.close();
    await assertAppReconciled(services, shop.appId);
  });

  it('a claim link is claimed once, opens no other refund or payment, and a forged signal or update cannot move its address', async () => {
    const { paymentId: firstPayment } = await paidOrder(4, `claim-${randomUUID().slice(0, 8)}@example.com`);
    const { paymentId: otherPayment } = await paidOrder(3, `claim-${randomUUID().slice(0, 8)}@example.com`);
    const first = await awaitingRefund(firstPayment);
    const other = await awaitingRefund(otherPayment);
    const token = first.claimUrl.split('/').pop()!;
    const otherToken = other.claimUrl.split('/').pop()!;

    // The token on another refund's URL, on another payment's URL, or a made-up token: 404, page and endpoint.
    const address = Wallet.createRandom().address;
    for (const url of [
      `${stack.publicBaseUrl}/pay/${otherPayment}/refunds/${other.id}/claim/${token}`,
      `${stack.publicBaseUrl}/pay/${otherPayment}/refunds/${first.id}/claim/${token}`,
      `${stack.publicBaseUrl}/pay/${firstPayment}/refunds/${other.id}/claim/${otherToken}`,
      `${stack.publicBaseUrl}/pay/${firstPayment}/refunds/${first.id}/claim/${otherToken}`,
      `${stack.publicBaseUrl}/pay/${firstPayment}/refunds/${first.id}/claim/not-a-token`,
      `${stack.publicBaseUrl}/pay/${firstPayment}/refunds/not-a-uuid/claim/${token}`,
    ]) {
      const posted = await claim(url, { address });
      assert.deepEqual([posted.status, posted.body.error], [404, 'not_found'], `${url}: ${posted.text}`);
      const page = await request(url);
      assert.equal(page.status, 404, url);
    }
    const bad = await claim(first.claimUrl, { address: 'not an address' });
    assert.deepEqual([bad.status, bad.body.details?.[0]?.path], [400, 'address'], bad.text);
    const empty = await claim(first.claimUrl, {});
    assert.deepEqual([empty.status, empty.body.details?.[0]?.path], [400, 'address'], empty.text);
    const extra = await claim(first.claimUrl, { address, amount: '100' });
    assert.equal(extra.status, 400, extra.text);
    for (const id of [first.id, other.id]) assert.equal((await findRefund({ knex: services.knex, id }))?.status, 'awaiting_address', 'no refused claim changed a refund');

    // Two claims at once, to two addresses: one wins, one is a 409, one transaction.
    const [customer, attacker] = [Wallet.createRandom().address, Wallet.createRandom().address];
    const answers = await Promise.all([claim(first.claimUrl, { address: customer }), claim(first.claimUrl, { address: attacker })]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], answers.map((a) => a.text).join(' / '));
    const winner = answers.find((a) => a.status === 200)!.body.address!;
    const loser = winner === customer ? attacker : customer;
    assert.equal(answers.find((a) => a.status === 409)!.body.error, 'conflict');

    // The run takes no message that names an address: a forged signal is never handled, a forged update is refused.
    const handle = services.client.workflow.getHandle(refundWorkflowId(first.id));
    await handle.signal('setRefundAddress', { address: loser });
    await assert.rejects(handle.executeUpdate('setRefundAddress', { args: [{ address: loser }] }));

    assert.equal(await refundResult(first.id), 'completed');
    const stored = await findRefund({ knex: services.knex, id: first.id });
    assert.equal(stored?.address, winner, 'the address the claim gave, unchanged');
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', winner), units(first.amount));
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', loser), 0n, 'nothing reached the other address');
    const tx = await findChainTx({ knex: services.knex, intentKey: intentKeys.merchantRefund(first.id) });
    assert.deepEqual([tx?.status, tx?.replaced_tx_hashes], ['confirmed', []], 'one transaction');
    // Claimed: the link answers 409 from now on, and no longer appears in the refund.
    const again = await claim(first.claimUrl, { address: loser });
    assert.deepEqual([again.status, again.body.error], [409, 'conflict'], again.text);
    const listed = await request<{ data: RefundResource[] }>(`${api}/${firstPayment}/refunds`, { headers: { 'x-api-key': shop.adminKey } });
    assert.deepEqual(listed.body.data.map((r) => [r.status, r.address, r.claimUrl]), [['completed', winner, null]]);
    await assertAppReconciled(services, shop.appId);

    // The other refund's link still works for its own customer.
    assert.equal((await findRefund({ knex: services.knex, id: other.id }))?.status, 'awaiting_address');
  });

  it('an Orders key or another app’s key can neither refund nor send to the sender', async () => {
    const { paymentId } = await paidOrder(2, `claim-${randomUUID().slice(0, 8)}@example.com`);
    const ordersKey = await refund(paymentId, {}, { key: shop.ordersKey });
    assert.deepEqual([ordersKey.status, ordersKey.body.error], [403, 'scope_insufficient'], ordersKey.text);
    const otherApp = await refund(paymentId, {}, { key: otherShop.adminKey });
    assert.deepEqual([otherApp.status, otherApp.body.error], [404, 'not_found'], otherApp.text);
    const made = await awaitingRefund(paymentId);
    await services.knex('refunds').where({ id: made.id }).update({ created_at: services.knex.raw(`now() - interval '31 days'`) });
    const byOrdersKey = await sendToSender(paymentId, made.id, shop.ordersKey);
    assert.deepEqual([byOrdersKey.status, byOrdersKey.body.error], [403, 'scope_insufficient'], byOrdersKey.text);
    const byOtherApp = await sendToSender(paymentId, made.id, otherShop.adminKey);
    assert.deepEqual([byOtherApp.status, byOtherApp.body.error], [404, 'not_found'], byOtherApp.text);
    const listed = await request<{ data: RefundResource[] }>(`${api}/${paymentId}/refunds`, { headers: { 'x-api-key': shop.adminKey } });
    assert.deepEqual(listed.body.data.map((r) => [r.id, r.status]), [[made.id, 'awaiting_address']], 'only the Admin key’s refund, still awaiting');
  });

  it('after the claim window the merchant sends an unclaimed refund to the payment’s sender (409 before), and it lands there', async () => {
    const { paymentId, amount } = await paidOrder(6, `claim-${randomUUID().slice(0, 8)}@example.com`);
    const made = await awaitingRefund(paymentId);
    const early = await sendToSender(paymentId, made.id);
    assert.deepEqual([early.status, early.body.error], [409, 'conflict'], early.text);
    assert.match(early.body.message ?? '', /may claim refund .* until/);
    assert.equal((await findRefund({ knex: services.knex, id: made.id }))?.status, 'awaiting_address');

    // The window (REFUND_CLAIM_WINDOW_DAYS, 30 by default) has passed.
    await services.knex('refunds').where({ id: made.id }).update({ created_at: services.knex.raw(`now() - interval '30 days 1 minute'`) });
    const before = await tokenBalance(stack.info, 8453, 'USDC', sender);
    const sent = await sendToSender(paymentId, made.id);
    assert.equal(sent.status, 200, sent.text);
    assert.deepEqual([sent.body.status, sent.body.address, sent.body.claimUrl], ['pending', sender, null]);
    const twice = await sendToSender(paymentId, made.id);
    assert.deepEqual([twice.status, twice.body.error], [409, 'conflict'], twice.text);
    const late = await claim(made.claimUrl, { address: Wallet.createRandom().address });
    assert.deepEqual([late.status, late.body.error], [409, 'conflict'], 'the customer can no longer claim it');

    assert.equal(await refundResult(made.id), 'completed');
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', sender)) - before, units(amount), 'the sender got the refund back');
    assert.equal((await getPayment(api, paymentId)).status, 'payment_refunded');
    await assertAppReconciled(services, shop.appId);
  });
});
