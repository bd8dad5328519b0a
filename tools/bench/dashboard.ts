import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { createKnex } from '../../db/connection';
import type { Stack } from '../stack/stack';
import type { Figure } from './report';

export const DASHBOARD_TARGETS = {
  /** From navigation to the first row of the payments list, the app's 10,000 payments in the database. */
  firstRender10kMs: 1500,
  /** The database's time for one page deep into 100,000 payments (EXPLAIN ANALYZE): keyset, so as fast as page 1. */
  deepPageQuery100kMs: 5,
  /** 100 payments listed by key (`GET {payment_api_url}?limit=100`) from an app with 100,000 payments, p99 over HTTP. */
  keyList100kP99Ms: 100,
  /** A month's statement (JSON) of an app whose 10,000 payments of the month each have a payin, a fee and a payout entry. */
  monthStatement10kMs: 2000,
};

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.ceil((p / 100) * values.length) - 1]!;

/** Ledger entries (payin, fee, payout) for the app's newest `count` payments, each at its payment's creation. */
async function fillLedger(knex: ReturnType<typeof createKnex>, appId: string, count: number): Promise<void> {
  await knex.raw(
    `insert into ledger_entries (ref, chain_id, token_address, kind, debit_account, credit_account, amount_units, payment_id, created_at)
     select k.kind || ':bench:' || p.id, p.source_chain_id, lower(p.source_token_address), k.kind, k.debit, k.credit, p.source_amount_units, p.id, p.created_at
     from (select * from payments where app_id = ? order by created_at desc limit ?) p,
          (values ('payin', 'deposit', 'external'), ('fee', 'fees', 'treasury'), ('payout', 'merchant', 'treasury')) k(kind, debit, credit)`,
    [appId, count],
  );
  await knex.raw('analyze ledger_entries');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Copies of the app's one payment, `count` of them, one second apart going back from now (one INSERT … SELECT,
 * so the benchmark measures reading, not writing). Marked as started, so the reconciler leaves them alone.
 */
async function fillPayments(knex: ReturnType<typeof createKnex>, appId: string, count: number): Promise<void> {
  await knex.raw(
    `insert into payments (id, app_id, order_id, type, status, display, metadata, source_chain_id, source_token_symbol, source_token_address,
       source_decimals, source_amount_units, fee_units, deposit_address, destination_chain_id, destination_token_symbol,
       destination_token_address, destination_decimals, destination_address, destination_amount_units, expires_at, created_at, updated_at,
       workflow_started_at)
     select gen_random_uuid(), t.app_id, 'bench-' || gen_random_uuid(), t.type,
            (array['payment_unpaid','payment_completed','payment_expired'])[1 + g % 3], t.display, t.metadata, t.source_chain_id,
            t.source_token_symbol, t.source_token_address, t.source_decimals, t.source_amount_units, t.fee_units, t.deposit_address,
            t.destination_chain_id, t.destination_token_symbol, t.destination_token_address, t.destination_decimals,
            t.destination_address, t.destination_amount_units, t.expires_at,
            now() - make_interval(secs => g), now() - make_interval(secs => g), now()
     from (select * from payments where app_id = ? limit 1) t, generate_series(1, ?) g`,
    [appId, count],
  );
  await knex.raw('analyze payments');
}

/** Logs the demo developer in by the mailed code; returns the session cookie's value. */
async function demoSession(info: Stack['info']): Promise<string> {
  const email = info.demoMerchant.developerEmail;
  const inbox = async () => (await (await fetch(`${info.mailSinkUrl}/messages?to=${encodeURIComponent(email)}`)).json()) as Array<{ text: string }>;
  const before = (await inbox()).length;
  const asked = await fetch(`${info.merchantApiUrl}/auth/login-code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
  const { loginId } = (await asked.json()) as { loginId: string };
  let code: string | undefined;
  for (let i = 0; i < 100 && !code; i++) {
    const mails = await inbox();
    code = mails.length > before ? /\b(\d{6})\b/.exec(mails[mails.length - 1]!.text)?.[1] : undefined;
    if (!code) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const login = await fetch(`${info.merchantApiUrl}/auth/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, code, loginId }) });
  const session = /payrail_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
  if (!session) throw new Error(`login: HTTP ${login.status} ${await login.text()}`);
  return session;
}

/**
 * `npm run bench` section "dashboard": the payments list in Chromium at 10,000 payments, and the API at 100,000: the
 * dashboard's pages, the merchant's listing by key, and a month's statement of 10,000 payments.
 */
export async function benchDashboard(stack: Stack): Promise<Figure[]> {
  const { info } = stack;
  const knex = createKnex(stack.env.DATABASE_URL!, { max: 2 });
  const profile = await mkdtemp(path.join(tmpdir(), 'payrail-bench-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    viewport: { width: 1100, height: 800 },
  });
  const results: Figure[] = [];
  try {
    // The demo developer logs in as a merchant would (the code from the mail sink, a session cookie), registers an
    // app of its own for the benchmark, and takes one payment through the API: the template of the 10,000.
    const session = await demoSession(info);
    const asDashboard = { 'content-type': 'application/json', cookie: `payrail_session=${session}`, origin: new URL(info.dashboardUrl).origin };
    const registered = await fetch(`${info.merchantApiUrl}/register`, {
      method: 'POST',
      headers: asDashboard,
      body: JSON.stringify({ name: `Bench ${Date.now()}`, webhookUrl: 'https://127.0.0.1:9/bench', payout: { ...info.demoMerchant.payout, chainId: String(info.demoMerchant.payout.chainId) } }),
    });
    if (registered.status !== 201) throw new Error(`register: HTTP ${registered.status} ${await registered.text()}`);
    const { appId } = (await registered.json()) as { appId: string };
    const keyRes = await fetch(`${info.merchantApiUrl}/apps/${appId}/keys`, { method: 'POST', headers: asDashboard, body: '{}' });
    if (keyRes.status !== 201) throw new Error(`key: HTTP ${keyRes.status} ${await keyRes.text()}`);
    const { key } = (await keyRes.json()) as { key: string };
    const created = await fetch(info.paymentApiUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ type: 'exactIn', orderId: 'bench-template', display: { name: 'bench' }, source: { chainId: '42161', tokenSymbol: 'USDC', amount: '1.25' } }),
    });
    if (created.status !== 201) throw new Error(`create: HTTP ${created.status} ${await created.text()}`);
    await fillPayments(knex, appId, 10_000 - 1);
    await browser.addCookies([{ name: 'payrail_session', value: session, url: info.legacyApiUrl }]);

    const page = await browser.newPage();
    const renders: number[] = [];
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      await page.goto(`${info.dashboardUrl}/payments?app=${appId}`);
      await page.locator('tr[data-payment-id]').first().waitFor();
      // The first load also compiles the bundle; the median of the rest is what a returning merchant sees.
      if (i > 0) renders.push(performance.now() - t0);
    }
    const rows = await page.locator('tr[data-payment-id]').count();
    console.log(`dashboard: payments list first render with 10,000 payments: median ${median(renders).toFixed(0)} ms (${rows} rows on the first page)`);
    results.push({
      name: 'dashboard: payments list first render, 10,000 payments',
      value: median(renders),
      unit: 'ms',
      against: { name: 'bound', value: DASHBOARD_TARGETS.firstRender10kMs, unit: 'ms' },
      target: { kind: 'absolute', atMost: DASHBOARD_TARGETS.firstRender10kMs },
    });

    await fillPayments(knex, appId, 90_000);
    const headers = { cookie: `payrail_session=${session}` };
    const deep = (await knex('payments').select('id').where({ app_id: appId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).offset(90_000).first()) as { id: string };
    const overHttp = async (query: string) => {
      const timings: number[] = [];
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        await (await fetch(`${info.merchantApiUrl}/apps/${appId}/payments?${query}`, { headers })).json();
        timings.push(performance.now() - t0);
      }
      return median(timings);
    };
    const firstPageMs = await overHttp('limit=25');
    const deepPageMs = await overHttp(`limit=25&cursor=${deep.id}`);
    const { rows: plan } = await knex.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(
      `explain analyze select * from payments where app_id = ? and (created_at, id) < (select created_at, id from payments where id = ? and app_id = ?)
       order by created_at desc, id desc limit 25`,
      [appId, deep.id, appId],
    );
    const planText = plan.map((r) => r['QUERY PLAN']).join('\n');
    const executionMs = Number(/Execution Time: ([0-9.]+) ms/.exec(planText)?.[1]);
    console.log(`dashboard: 100,000 payments, over HTTP (median of 10): first page ${firstPageMs.toFixed(1)} ms, page after the 90,000th ${deepPageMs.toFixed(1)} ms; its plan:\n${planText}`);
    if (!planText.includes('payments_app_created_idx')) throw new Error('the payments list does not use payments_app_created_idx');
    results.push({
      name: 'dashboard: a page deep in 100,000 payments (database)',
      value: executionMs,
      unit: 'ms',
      against: { name: 'bound', value: DASHBOARD_TARGETS.deepPageQuery100kMs, unit: 'ms' },
      target: { kind: 'absolute', atMost: DASHBOARD_TARGETS.deepPageQuery100kMs },
    });

    // Listing by key: what a merchant's server reads, 100 payments a page, from the same 100,000.
    const keyed: number[] = [];
    for (let i = 0; i < 100; i++) {
      const t0 = performance.now();
      const listed = await fetch(`${info.paymentApiUrl}?limit=100`, { headers: { 'x-api-key': key } });
      if (listed.status !== 200) throw new Error(`list by key: HTTP ${listed.status} ${await listed.text()}`);
      await listed.json();
      keyed.push(performance.now() - t0);
    }
    console.log(`listing by key: 100 of 100,000 payments, over HTTP: median ${median(keyed).toFixed(1)} ms, p99 ${percentile(keyed, 99).toFixed(1)} ms`);
    results.push({
      name: 'listing by key: 100 payments of 100,000, p99',
      value: percentile(keyed, 99),
      unit: 'ms',
      against: { name: 'bound', value: DASHBOARD_TARGETS.keyList100kP99Ms, unit: 'ms' },
      target: { kind: 'absolute', atMost: DASHBOARD_TARGETS.keyList100kP99Ms },
    });

    await fillLedger(knex, appId, 10_000);
    const adminRes = await fetch(`${info.merchantApiUrl}/apps/${appId}/keys`, { method: 'POST', headers: asDashboard, body: JSON.stringify({ scope: 'Admin' }) });
    if (adminRes.status !== 201) throw new Error(`admin key: HTTP ${adminRes.status} ${await adminRes.text()}`);
    const { key: adminKey } = (await adminRes.json()) as { key: string };
    const month = new URLSearchParams({ from: new Date(Date.now() - 30 * 86_400_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() });
    const statements: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const res = await fetch(`${info.merchantApiUrl}/apps/${appId}/statement?${month.toString()}`, { headers: { 'x-api-key': adminKey } });
      if (res.status !== 200) throw new Error(`statement: HTTP ${res.status} ${await res.text()}`);
      const { movements } = (await res.json()) as { movements: unknown[] };
      statements.push(performance.now() - t0);
      if (movements.length < 30_000) throw new Error(`the statement lists ${movements.length} movements, not the 30,000 of its 10,000 payments`);
    }
    console.log(`statement: a month of 10,000 payments (30,000 ledger entries) as JSON: slowest of 3 ${Math.max(...statements).toFixed(0)} ms`);
    results.push({
      name: "statement: a month's 10,000 payments",
      value: Math.max(...statements),
      unit: 'ms',
      against: { name: 'bound', value: DASHBOARD_TARGETS.monthStatement10kMs, unit: 'ms' },
      target: { kind: 'absolute', atMost: DASHBOARD_TARGETS.monthStatement10kMs },
    });
  } finally {
    await browser.close();
    await rm(profile, { recursive: true, force: true });
    await knex.destroy();
  }
  return results;
}
