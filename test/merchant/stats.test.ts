import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import type { PaymentResource } from '../../api/serializers/payment';
import { formatUnits, parseUnits } from '../../domain/money';
import type { Stack } from '../../tools/stack/stack';
import { assertErrorEnvelope, uniqueOrderId } from '../api/helpers';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer } from '../support/chain';
import { request } from '../support/http';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { createKey, login, register, registerBody } from './helpers';

interface Stats {
  period: string;
  volumeUsdc: string;
  paymentCount: number;
  avgOrderUsdc: string;
  netToWalletUsdc: string;
  chart: Array<{ date: string; volumeUsdc: string; paymentCount: number }>;
}

const usdc = (amount: string) => parseUnits(amount, 6);
const dayOf = (iso: string) => iso.slice(0, 10);

describe('merchant service: GET /me/stats', function () {
  this.timeout(180_000);
  let stack: Stack;
  let api: string;
  let appId: string;
  let adminKey: string;
  let ordersKey: string;
  let settled: PaymentResource[];
  let services: StackServices;
  /** Another app, whose payment counts in its own stats only. */
  let other: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    other = await newMerchant(stack, services.knex);
    api = stack.info.merchantApiUrl;
    const session = await login(api, stack.info.mailSinkUrl!);
    const app = await register(api, session.token, registerBody({ payout: { chainId: '8453', tokenSymbol: 'USDC', address: Wallet.createRandom().address } }));
    appId = app.appId;
    adminKey = (await createKey(api, session.token, appId, { scope: 'Admin' })).key;
    ordersKey = (await createKey(api, session.token, appId)).key;
  });
  after(async () => services?.close());

  const stats = (period: string, key = adminKey) => request(`${api}/me/stats?period=${period}`, { headers: { 'x-api-key': key } });

  it('is zero-filled for an app without settled payments', async () => {
    const res = await stats('7d');
    assert.equal(res.status, 200, res.text);
    const body = res.body as Stats;
    assert.deepEqual({ ...body, chart: undefined }, { period: '7d', volumeUsdc: '0', paymentCount: 0, avgOrderUsdc: '0', netToWalletUsdc: '0', chart: undefined });
    assert.equal(body.chart.length, 7);
    assert.ok(body.chart.every((d) => d.volumeUsdc === '0' && d.paymentCount === 0));
  });

  it('counts the payments paid out on the devnet, per UTC day, in USDC', async () => {
    const paymentApi = stack.info.paymentApiUrl;
    const amounts = ['10', '2.5', '1.333333'];
    const paid = await Promise.all(amounts.map((amount) => createPayment(paymentApi, ordersKey, paymentBody({ orderId: uniqueOrderId('stats'), chainId: '8453', amount }))));
    // Neither an unpaid payment nor another app's payment counts.
    await createPayment(paymentApi, ordersKey, paymentBody({ orderId: uniqueOrderId('unpaid'), chainId: '8453', amount: '99' }));
    await createPayment(paymentApi, other.ordersKey, paymentBody({ orderId: uniqueOrderId('other'), chainId: '8453', amount: '50' }));
    for (const [i, p] of paid.entries()) await customerTransfer(stack.info, 8453, 'USDC', p.source.receiverAddress, amounts[i]!);
    settled = await Promise.all(paid.map(async (p) => (await waitForStatus(paymentApi, p.id, 'payment_completed', 120_000)).payment));

    const volume = settled.reduce((sum, p) => sum + usdc(p.source.amount), 0n);
    const net = settled.reduce((sum, p) => sum + usdc(p.destination.amount), 0n);
    assert.equal(formatUnits(volume, 6), '13.833333');
    assert.equal(net, volume - settled.reduce((sum, p) => sum + usdc(p.source.fee), 0n), 'net = volume − fees');

    for (const [period, days] of [['today', 1], ['7d', 7], ['30d', 30]] as const) {
      const asked = dayOf(new Date().toISOString());
      const res = await stats(period);
      const answered = dayOf(new Date().toISOString());
      assert.equal(res.status, 200, res.text);
      const body = res.body as Stats;
      assert.deepEqual(Object.keys(body).sort(), ['avgOrderUsdc', 'chart', 'netToWalletUsdc', 'paymentCount', 'period', 'volumeUsdc']);
      assert.equal(body.period, period);

      // Consecutive UTC days, oldest first, ending on the day the server answered (either side of a midnight it crossed).
      assert.equal(body.chart.length, days, `${period}: one chart entry per day`);
      const today = body.chart.at(-1)!.date;
      assert.ok(today === asked || today === answered, `${period}: the chart ends ${today}, not on ${asked} or ${answered}`);
      body.chart.forEach((d, i) => assert.equal(d.date, new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10)));

      // Expected figures per chart day, from each payment's payout confirmation (robust across midnight).
      const inRange = settled.filter((p) => body.chart.some((d) => d.date === dayOf(p.destination.confirmedAt!)));
      const sum = (ps: PaymentResource[], pick: (p: PaymentResource) => string) => ps.reduce((s, p) => s + usdc(pick(p)), 0n);
      const expectedVolume = sum(inRange, (p) => p.source.amount);
      assert.equal(body.volumeUsdc, formatUnits(expectedVolume, 6), `${period}: volume`);
      assert.equal(body.paymentCount, inRange.length, `${period}: count`);
      assert.equal(body.netToWalletUsdc, formatUnits(sum(inRange, (p) => p.destination.amount), 6), `${period}: net`);
      assert.equal(body.avgOrderUsdc, inRange.length ? formatUnits(expectedVolume / BigInt(inRange.length), 6) : '0', `${period}: average`);
      for (const day of body.chart) {
        const ofDay = inRange.filter((p) => dayOf(p.destination.confirmedAt!) === day.date);
        assert.deepEqual(day, { date: day.date, volumeUsdc: formatUnits(sum(ofDay, (p) => p.source.amount), 6), paymentCount: ofDay.length }, `${period}: ${day.date}`);
      }
    }
    const month = (await stats('30d')).body as Stats;
    assert.equal(month.paymentCount, 3);
    assert.equal(month.volumeUsdc, '13.833333');
    assert.equal(month.avgOrderUsdc, '4.611111', 'the average is rounded down to USDC base units');
  });

  it('wants an Admin key: an Orders key gets 403 scope_insufficient', async () => {
    const res = await stats('7d', ordersKey);
    assert.equal(res.status, 403, res.text);
    const error = assertErrorEnvelope(res);
    assert.equal(error.error, 'scope_insufficient');
    assert.match(error.message, /admin-scope key is required/);

    const missing = await request(`${api}/me/stats?period=7d`);
    assert.equal(missing.status, 401);
    assert.equal(assertErrorEnvelope(missing).error, 'missing_api_key');
    const unknown = await stats('7d', 'pr_live_not-a-real-key');
    assert.equal(unknown.status, 401);
    assert.equal(assertErrorEnvelope(unknown).error, 'invalid_api_key');
  });

  it('answers a bad period with 400 naming it', async () => {
    for (const query of ['period=week', 'period=7D', 'period=', 'period=1d', '', 'period=7d&period=30d', 'days=7']) {
      const res = await request(`${api}/me/stats?${query}`, { headers: { 'x-api-key': adminKey } });
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      const error = assertErrorEnvelope(res, query);
      assert.equal(error.error, 'invalid_request');
      assert.ok(error.details?.some((d) => d.path === 'period'), `${query}: ${res.text}`);
    }
  });
});
