import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { Wallet } from 'ethers';
import { chromium, type BrowserContext, type Page, type Request, type Route } from 'playwright-core';
import { z } from 'zod';
import type { PaymentResource } from '../../api/serializers/payment';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { uniqueOrderId } from '../api/helpers';
import { bearer, login, uniqueEmail } from '../merchant/helpers';
import { createPayment, paymentBody } from '../support/api';
import { customerTransfer, deployFakeStablecoin } from '../support/chain';
import { request } from '../support/http';
import { sinkMessages } from '../support/mail';
import { eventually } from '../support/poll';
import { getStack } from '../support/stack';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Every page the flow reaches is kept here as a screenshot (test artifacts; var/ is git-ignored). */
const SCREENSHOT_DIR = path.resolve(process.env.PAYRAIL_SCREENSHOT_DIR ?? 'var/screenshots/dashboard');

/**
 * The merchant dashboard in headless Chromium on the real stack: a new merchant logs in with the mailed code,
 * registers an app, makes keys, takes a payment that is paid on the devnet and watched live to completion, and
 * manages keys and webhook settings; a second developer sees none of it.
 */
describe('merchant dashboard in Chromium', function () {
  this.timeout(180_000);
  let stack: Stack;
  let browser: BrowserContext;
  let profileDir: string;
  let page: Page;
  let base: string;
  const email = uniqueEmail('dash');
  const pageErrors: string[] = [];
  /** Every JSON answer of the merchant API the pages read, checked against /v1/openapi.json once the pages are walked. */
  const answers: Array<{ method: string; path: string; status: number; body: Promise<unknown> }> = [];
  let appId: string;
  let ordersKey: string;
  let payment: PaymentResource;
  let keylessPayment: PaymentResource;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    base = stack.publicBaseUrl;
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    profileDir = await mkdtemp(path.join(tmpdir(), 'payrail-dashboard-'));
    browser = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      viewport: { width: 1100, height: 800 },
    });
    page = await browser.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('response', (res) => {
      const url = new URL(res.url());
      if (!url.pathname.startsWith('/v1/merchant-api/') || !res.headers()['content-type']?.startsWith('application/json')) return;
      // Read at once, while the browser still holds the body; undefined when it is gone.
      answers.push({ method: res.request().method().toLowerCase(), path: url.pathname, status: res.status(), body: res.json().catch(() => undefined) });
    });
  });

  after(async function () {
    this.timeout(60_000);
    await browser?.close();
    if (profileDir) await rm(profileDir, { recursive: true, force: true });
  });

  afterEach(() => assert.deepEqual(pageErrors.splice(0), [], 'no script errors on the pages'));

  const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  const nav = (name: string) => page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name });

  /**
   * Applies an older filter, then a newer one while the older filter's list request is held unanswered; once the
   * newer filter's rows show, the held request is let go, so its answer would arrive late if the page still wanted
   * it. The page must have aborted it instead: the browser reports it failed with net::ERR_ABORTED.
   */
  async function applyFiltersQuickly(filters: { olderRequest: (url: URL) => boolean; applyOlder: () => Promise<unknown>; applyNewer: () => Promise<unknown>; newerShown: () => Promise<unknown> }): Promise<void> {
    const older = (r: Request) => filters.olderRequest(new URL(r.url()));
    const held: Route[] = [];
    const outcomes: string[] = [];
    const failed = (r: Request) => void (older(r) && outcomes.push(r.failure()?.errorText ?? 'failed'));
    const finished = (r: Request) => void (older(r) && outcomes.push('answered'));
    page.on('requestfailed', failed);
    page.on('requestfinished', finished);
    await page.route(filters.olderRequest, (route) => void held.push(route));
    try {
      const asked = page.waitForRequest(older);
      await filters.applyOlder();
      await asked;
      await filters.applyNewer();
      await filters.newerShown();
    } finally {
      await page.unroute(filters.olderRequest);
      for (const route of held) await route.continue().catch(() => undefined);
    }
    try {
      await eventually("the older filter's request settles", 10_000, () => Promise.resolve(outcomes[0]));
      assert.deepEqual(outcomes, ['net::ERR_ABORTED'], "the older filter's request is aborted, never answered");
    } finally {
      page.off('requestfailed', failed);
      page.off('requestfinished', finished);
    }
  }

  async function loginInBrowser(address: string): Promise<void> {
    const before = (await sinkMessages(stack.info.mailSinkUrl!, address)).length;
    await page.goto(`${base}/dashboard/`);
    await page.getByRole('heading', { name: 'Log in to Payrail' }).waitFor();
    // Keyboard only: the field, the address, Enter.
    await page.getByLabel('E-mail').focus();
    await page.keyboard.type(address);
    await page.keyboard.press('Enter');
    const mail = await eventually('the login e-mail', 15_000, async () => (await sinkMessages(stack.info.mailSinkUrl!, address))[before]);
    const code = /\b(\d{6})\b/.exec(mail.text)![1]!;
    await page.getByLabel('Login code').fill(code);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
  }

  it('serves the app under a strict CSP, hashed assets cached for good, any /dashboard path answered by the app', async () => {
    const res = await fetch(`${base}/dashboard/payments/whatever`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.doesNotMatch(res.headers.get('content-security-policy') ?? '', /unsafe-inline/);
    const html = await res.text();
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const asset = await fetch(`${base}${script}`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    assert.equal((await fetch(`${base}/dashboard/assets/nope.js`)).status, 404);
  });

  it('logs in with the code from the mail sink, the login page naming the sink in dev', async () => {
    await page.goto(`${base}/dashboard/`);
    await page.getByText('Development stack: e-mails are caught by the mail sink').waitFor();
    await shot('login');
    await loginInBrowser(email);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const cookies = await browser.cookies(base);
    const session = cookies.find((c) => c.name === 'payrail_session');
    assert.ok(session?.httpOnly, 'HttpOnly session cookie');
    assert.equal(session?.sameSite, 'Strict');
    assert.equal(await page.evaluate(() => document.cookie), '', 'scripts cannot read the session');
    assert.equal(await page.evaluate(() => localStorage.length), 0, 'nothing in localStorage');
  });

  it('registers an app (payout chain, token, validated wallet) and shows its ids and secret fingerprint', async () => {
    await nav('Apps & keys').click();
    await page.getByRole('heading', { name: 'Register an app' }).waitFor();
    await page.getByLabel('App name').fill('Dashboard Coffee');
    await page.getByLabel('Payout chain').selectOption('8453');
    await page.getByLabel('Payout token').selectOption('USDC');
    await page.getByLabel('Payout wallet address').fill(Wallet.createRandom().address);
    // A receiver that is never there: deliveries are attempted, fail, and are logged.
    await page.getByRole('textbox', { name: 'Webhook URL' }).fill('https://127.0.0.1:9/payrail');
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.getByText('Webhook secret — copy it now').waitFor();
    appId = (await page.getByTestId('app-id').textContent())!;
    assert.match(appId, /^merchant_dashboard-coffee/);
    const secret = (await page.getByTestId('shown-once').textContent())!;
    assert.equal(await page.getByTestId('fingerprint').textContent(), `sha256:${createHash('sha256').update(secret).digest('hex')}`);
  });

  it('creates an Orders and an Admin key, each shown once, then only by its prefix', async () => {
    await page.getByLabel('Key name').fill('shop');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('New Orders key — copy it now').waitFor();
    const keysSection = page.getByRole('region', { name: 'API keys' });
    ordersKey = (await keysSection.getByTestId('shown-once').textContent())!;
    assert.match(ordersKey, /^pr_/);
    await page.getByLabel('Key name').fill('reports');
    await page.getByLabel('Scope').selectOption('Admin');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('New Admin key — copy it now').waitFor();
    const keys = page.getByRole('table', { name: 'API keys' });
    await keys.getByRole('row').nth(2).waitFor();
    const listed = await keys.textContent();
    assert.ok(!listed!.includes(ordersKey), 'the list never shows a full key');
    assert.ok(!(await page.content()).includes(ordersKey), 'the Orders key is gone from the page once the next is shown');
    assert.match(listed!, /shop.*Orders.*pr_/s);
    assert.match(listed!, /reports.*Admin/s);
    await shot('apps');
  });

  it('switches keyless creates on and off after a confirmation that says what it does; the API follows', async () => {
    const section = page.getByRole('region', { name: 'Payments without an API key' });
    const state = section.getByTestId('keyless-state');
    const keylessCreate = () => request(`${stack.info.paymentApiUrl}/payments`, { body: { ...paymentBody({ orderId: uniqueOrderId('keyless'), chainId: '8453' }), appId } });
    await state.filter({ hasText: 'Keyless payments are off' }).waitFor();
    assert.equal((await keylessCreate()).status, 403, 'off for a new app');

    await section.getByRole('button', { name: 'Turn on keyless payments' }).click();
    const confirm = section.getByRole('group', { name: 'Confirm: turn on keyless payments' });
    assert.match((await confirm.textContent())!, /Anyone who knows this app id can then create payments for it without an API key/);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await state.getAttribute('data-keyless'), 'false', 'cancel changes nothing');
    await section.getByRole('button', { name: 'Turn on keyless payments' }).click();
    await confirm.getByRole('button', { name: 'Confirm: turn on keyless payments' }).click();
    await state.filter({ hasText: 'Keyless payments are on' }).waitFor();
    const created = await keylessCreate();
    assert.equal(created.status, 201, created.text);
    keylessPayment = created.body as PaymentResource;
    assert.equal(keylessPayment.keyless, true);
    await shot('apps-keyless-on');

    await section.getByRole('button', { name: 'Turn off keyless payments' }).click();
    const confirmOff = section.getByRole('group', { name: 'Confirm: turn off keyless payments' });
    assert.match((await confirmOff.textContent())!, /refused \(403 keyless_payments_disabled\)/);
    await confirmOff.getByRole('button', { name: 'Confirm: turn off keyless payments' }).click();
    await state.filter({ hasText: 'Keyless payments are off' }).waitFor();
    assert.equal((await keylessCreate()).status, 403, 'refused again');
  });

  it('shows why switching keyless creates failed', async () => {
    const section = page.getByRole('region', { name: 'Payments without an API key' });
    // An API failure (a 503 stands in for an outage): the page says so and keeps showing the state it had.
    await page.route(`**/v1/merchant-api/apps/${appId}`, (route) =>
      route.request().method() === 'PATCH' ? route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'unavailable', message: 'the merchant API is unavailable' }) }) : route.fallback(),
    );
    try {
      await section.getByRole('button', { name: 'Turn on keyless payments' }).click();
      await section.getByRole('button', { name: 'Confirm: turn on keyless payments' }).click();
      await section.getByRole('alert').filter({ hasText: 'the merchant API is unavailable' }).waitFor();
      assert.equal(await section.getByTestId('keyless-state').getAttribute('data-keyless'), 'false');
      await section.getByRole('button', { name: 'Cancel' }).click();
    } finally {
      await page.unroute(`**/v1/merchant-api/apps/${appId}`);
    }
  });

  it('shows a payment created through the API reach payment_completed live, without reloading', async () => {
    payment = await createPayment(stack.info.paymentApiUrl, ordersKey, paymentBody({ orderId: uniqueOrderId('dash'), chainId: '8453', amount: '3' }));
    await nav('Payments').click();
    const row = page.locator(`tr[data-payment-id="${payment.id}"]`);
    await row.waitFor();
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    await customerTransfer(stack.info, 8453, 'USDC', payment.source.receiverAddress, '3');
    await row.locator('[data-status="payment_completed"]').waitFor({ timeout: 120_000 });
    assert.equal(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'the page was never reloaded');
    await shot('payments');
  });

  it("opens the payment's page: timeline, transaction hashes, webhook deliveries, workflow link, quarantined transfers", async () => {
    // A token nobody configured, sent to the deposit address: listed apart, never counted.
    const fake = await deployFakeStablecoin(stack.info, 8453);
    const fakeTx = await fake.send(payment.source.receiverAddress, '2');
    await page.locator(`tr[data-payment-id="${payment.id}"]`).getByRole('link').click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const statuses = await page.getByRole('list', { name: 'Status timeline' }).locator('li').evaluateAll((items) => items.map((i) => i.getAttribute('data-status')));
    assert.equal(statuses[0], 'payment_unpaid');
    assert.equal(statuses[statuses.length - 1], 'payment_completed');
    assert.ok(statuses.includes('payment_payin_completed'), statuses.join(' → '));
    const read = (await request<PaymentResource>(`${stack.info.paymentApiUrl}/payments/${payment.id}`)).body;
    assert.equal(await page.getByTestId('payin-tx').textContent(), read.source.txHash);
    assert.equal(await page.getByTestId('payout-tx').textContent(), read.destination.txHash);
    const deliveries = page.getByRole('table', { name: 'Webhook deliveries of this payment' });
    await eventually('both webhook deliveries on the page', 30_000, async () => ((await deliveries.locator('tbody tr').count()) === 2 ? true : undefined));
    assert.match((await deliveries.textContent())!, /payment_payin_completed.*exhausted/s);
    if (stack.info.temporalUiUrl) {
      assert.equal(
        await page.getByRole('link', { name: 'Open in Temporal UI' }).getAttribute('href'),
        `${stack.info.temporalUiUrl}/namespaces/${stack.config.temporal.namespace}/workflows/payment-${payment.id}`,
      );
    }
    const quarantined = page.getByRole('table', { name: 'Quarantined transfers' });
    await quarantined.getByText(fakeTx).waitFor({ timeout: 60_000 });
    assert.match((await quarantined.textContent())!, new RegExp(`${fake.address.toLowerCase()}.*2000000`, 's'));
    await shot('payment');
  });

  it('lists the deliveries with filters, and draws the payment in the overview chart', async () => {
    await nav('Deliveries').click();
    const table = page.getByRole('table', { name: 'Webhook deliveries' });
    await table.waitFor();
    await page.getByLabel('Event').selectOption('payment_payout_completed');
    await eventually('the filtered deliveries', 10_000, async () => ((await table.locator('tbody tr').count()) === 1 ? true : undefined));
    await shot('deliveries');

    await nav('Overview').click();
    await page.getByTestId('count-today').filter({ hasText: '1' }).waitFor();
    const chart = page.getByRole('img', { name: 'Daily volume and payment count' });
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(await chart.locator(`rect[data-date="${today}"]`).getAttribute('data-count'), '1');
    assert.ok(Number(await chart.locator(`rect[data-date="${today}"]`).getAttribute('height')) > 0, 'a bar is drawn for today');
    await shot('overview');

    await nav('Legacy orders').click();
    await page.getByText('No legacy orders.').waitFor();
    await shot('orders');
  });

  it("aborts an older filter's request when a newer filter is applied, and lists the newer filter's rows only", async () => {
    const listOf = (rows: string, param: string, value: string) => (url: URL) => url.pathname.endsWith(`/apps/${appId}/${rows}`) && url.searchParams.get(param) === value;

    await nav('Payments').click();
    const payments = page.getByRole('table', { name: 'Payments' });
    await payments.locator(`tr[data-payment-id="${keylessPayment.id}"]`).waitFor();
    const filters = page.getByRole('search', { name: 'Filter payments' });
    const applyStatus = (status: string) => async () => {
      await filters.getByLabel('Status').selectOption(status);
      await filters.getByRole('button', { name: 'Apply filters' }).click();
    };
    await applyFiltersQuickly({
      olderRequest: listOf('payments', 'status', 'payment_unpaid'),
      applyOlder: applyStatus('payment_unpaid'),
      applyNewer: applyStatus('payment_completed'),
      newerShown: () => payments.locator(`tr[data-payment-id="${payment.id}"]`).waitFor(),
    });
    // A round of the live statuses' poll after the older request was let go: the list is still the newer filter's.
    await page.waitForResponse((r) => new URL(r.url()).pathname.endsWith(`/apps/${appId}/payments/changes`));
    const listed = await payments.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-payment-id')));
    assert.deepEqual(listed, [payment.id], 'the completed payment only, not the unpaid one of the older filter');
    await shot('payments-newer-filter');

    await nav('Deliveries').click();
    const deliveries = page.getByRole('table', { name: 'Webhook deliveries' });
    await deliveries.waitFor();
    const event = page.getByRole('form', { name: 'Filter deliveries' }).getByLabel('Event');
    const shownEvents = () => deliveries.locator('tbody tr td:first-child').allTextContents();
    await applyFiltersQuickly({
      olderRequest: listOf('deliveries', 'eventType', 'payment_payin_completed'),
      applyOlder: () => event.selectOption('payment_payin_completed'),
      applyNewer: () => event.selectOption('payment_payout_completed'),
      newerShown: () => eventually("the newer filter's deliveries", 10_000, async () => ((await shownEvents()).join() === 'payment_payout_completed' ? true : undefined)),
    });
    assert.deepEqual(await shownEvents(), ['payment_payout_completed']);
  });

  it("exports the app's statement as CSV with the session: the paid payment's payin, fee and payout", async () => {
    await nav('Payments').click();
    const exporter = page.getByRole('form', { name: 'Export a statement' });
    const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
    await exporter.getByLabel('Statement from').fill(day(-1));
    await exporter.getByLabel('Statement before').fill(day(1));
    const [download] = await Promise.all([page.waitForEvent('download'), exporter.getByRole('link', { name: 'Export' }).click()]);
    assert.equal(download.suggestedFilename(), `${appId}-statement-${day(-1)}-${day(1)}.csv`);
    const csv = await readFile(await download.path(), 'utf8');
    const lines = csv.trim().split('\r\n');
    assert.equal(lines[0], 'section,at,kind,payment_id,order_id,chain_id,token_symbol,token_address,amount,amount_units,debit,credit,tx_hash,ref');
    const kinds = lines.filter((l) => l.startsWith('movement,') && l.includes(payment.id)).map((l) => l.split(',')[2]);
    for (const kind of ['payin', 'fee', 'payout']) assert.ok(kinds.includes(kind), `the statement lists the payment's ${kind}`);
    assert.ok(lines.some((l) => l.startsWith('closing,')), 'closing figures');
  });

  it('revokes the Orders key after a confirmation; the API refuses it at once', async () => {
    await nav('Apps & keys').click();
    await page.getByRole('button', { name: 'Revoke shop' }).click();
    await page.getByRole('button', { name: 'Confirm revoke' }).click();
    await page.getByRole('table', { name: 'API keys' }).getByText(/revoked/).waitFor();
    const res = await request(stack.info.paymentApiUrl, { headers: { 'x-api-key': ordersKey }, body: paymentBody({ orderId: uniqueOrderId('revoked'), chainId: '8453' }) });
    assert.equal(res.status, 401, res.text);
  });

  it('refuses an http:// webhook URL next to the field, rotates the secret to a new fingerprint, sends a logged test event', async () => {
    const field = page.getByRole('textbox', { name: 'Webhook URL' }).first();
    await field.fill('http://example.com/hooks');
    await page.getByRole('button', { name: 'Save webhook URL' }).click();
    await page.locator('#webhook-url-error').filter({ hasText: /https/ }).waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');

    const before = await page.getByTestId('fingerprint').textContent();
    await page.getByRole('button', { name: 'Rotate webhook secret' }).click();
    await page.getByText('New webhook secret — copy it now').waitFor();
    const secret = (await page.getByRole('region', { name: 'Webhook' }).getByTestId('shown-once').textContent())!;
    const expected = `sha256:${createHash('sha256').update(secret).digest('hex')}`;
    await page.getByTestId('fingerprint').filter({ hasText: expected }).waitFor();
    assert.notEqual(before, expected);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByTestId('test-result').filter({ hasText: 'Test event failed' }).waitFor();
    await nav('Deliveries').click();
    await page.getByLabel('Event').selectOption('webhook_test');
    await page.getByRole('table', { name: 'Webhook deliveries' }).getByText('test event').waitFor();
    await nav('Apps & keys').click();
  });

  it('works at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    await nav('Payments').click();
    await page.locator(`tr[data-payment-id="${payment.id}"]`).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no sideways scrolling of the page (${overflow}px)`);
    await shot('payments-phone');
    await page.setViewportSize({ width: 1100, height: 800 });
  });

  it('reads answers that /v1/openapi.json describes, each matching the schema of its operation', async () => {
    type Operation = { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> };
    const doc = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const operations = Object.entries(doc.paths).flatMap(([template, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ name: `${method} ${template}`, method, op, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`), params: template.split('{').length })),
    );
    const checked = new Set<string>();
    const mismatches: string[] = [];
    for (const answer of answers.filter((a) => a.status >= 200 && a.status < 300)) {
      // A literal path (`payments/changes`) before a parameter's (`payments/{paymentId}`).
      const [operation] = operations.filter((o) => o.method === answer.method && o.pattern.test(answer.path)).sort((a, b) => a.params - b.params);
      assert.ok(operation, `${answer.method} ${answer.path} is in the document`);
      const schema = operation.op.responses[String(answer.status)]?.content?.['application/json']?.schema;
      assert.ok(schema?.properties, `${operation.name} describes its ${answer.status} answer`);
      const body = await answer.body;
      if (body === undefined) continue;
      const result = z.fromJSONSchema(schema).safeParse(body);
      if (!result.success) mismatches.push(`${operation.name}: ${z.prettifyError(result.error)}`);
      checked.add(operation.name);
    }
    assert.deepEqual(mismatches, []);
    const read = [
      'get /dashboard/config',
      'post /auth/session',
      'get /apps',
      'post /register',
      'patch /apps/{appId}',
      'get /apps/{appId}/keys',
      'post /apps/{appId}/keys',
      'delete /apps/{appId}/keys/{keyId}',
      'post /apps/{appId}/webhook/rotate',
      'post /apps/{appId}/webhook/test',
      'get /apps/{appId}/stats',
      'get /apps/{appId}/payments',
      'get /apps/{appId}/payments/changes',
      'get /apps/{appId}/payments/{paymentId}',
      'get /apps/{appId}/deliveries',
      'get /apps/{appId}/orders',
    ];
    for (const name of read) assert.ok(checked.has(name.replace(' /', ' /v1/merchant-api/')), `the pages read ${name}`);
  });

  it('registers an app paid out on another family: the wallet field names the chain\'s address form and takes a base58 address', async () => {
    const solana = stackChain(stack.info, 'solana');
    await nav('Apps & keys').click();
    const form = page.getByRole('region', { name: 'Register an app' });
    await form.getByLabel('App name').fill('Dashboard Tea');
    await form.getByLabel('Payout chain').selectOption(String(solana.chainId));
    await form.getByLabel('Payout token').selectOption('USDC');
    const wallet = form.getByLabel('Payout wallet address');
    assert.match((await wallet.getAttribute('placeholder')) ?? '', /base58/i);
    await wallet.fill((await generateKeyPairSigner()).address);
    await form.getByRole('textbox', { name: 'Webhook URL' }).fill('https://127.0.0.1:9/payrail');
    await form.getByRole('button', { name: 'Register app' }).click();
    // The panel of an app registered before shows until this one's replaces it.
    await page.getByTestId('app-id').filter({ hasText: /^merchant_dashboard-tea/ }).waitFor();
    assert.match((await page.getByTestId('app-id').textContent())!, /^merchant_dashboard-tea/);
  });

  it('logs out: the session ends server-side and the pages are closed', async () => {
    const cookie = (await browser.cookies(base)).find((c) => c.name === 'payrail_session')!;
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in to Payrail' }).waitFor();
    await page.goto(`${base}/dashboard/payments`);
    await page.getByRole('heading', { name: 'Log in to Payrail' }).waitFor();
    const res = await request(`${stack.info.merchantApiUrl}/apps`, { headers: { cookie: `payrail_session=${cookie.value}` } });
    assert.equal(res.status, 401, 'the old cookie no longer opens anything');
  });

  it("never shows a second developer the first one's apps, payments or deliveries", async () => {
    const other = uniqueEmail('other');
    await loginInBrowser(other);
    await page.getByText('Register an app first').waitFor();
    assert.equal(await page.getByLabel('App').count(), 0, 'no app to choose');
    await page.goto(`${base}/dashboard/payments/${payment.id}?app=${appId}`);
    await page.getByText('Register an app first').waitFor();
    assert.ok(!(await page.content()).includes(payment.source.receiverAddress));

    const session = await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!, uniqueEmail('other-api'));
    for (const p of [`/apps/${appId}/payments`, `/apps/${appId}/payments/${payment.id}`, `/apps/${appId}/deliveries`]) {
      assert.equal((await request(`${stack.info.merchantApiUrl}${p}`, { headers: bearer(session.token) })).status, 404, p);
    }
  });
});
