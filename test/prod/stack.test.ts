import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { signingVariablesIn } from '../../services/chains';
import type { ProdStack } from '../../tools/prod/stack';
import { resolveTemporalServer } from '../../tools/provision/temporal-server';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer } from '../support/chain';
import { eventually } from '../support/poll';
import { startTestProdStack, type TestProdStack } from '../support/prod-stack';

// On a fresh machine the first run builds the Temporal server and UI with `go install` (tens of minutes on 2 cores).
const BUILD_TIMEOUT_MS = 75 * 60_000;

/** The series /metrics must show once a payment was paid (API, Payrail's worker series, the SDK's worker series). */
const API_SERIES = ['payrail_http_request_duration_seconds_bucket', 'payrail_payments_created_total'];
const WORKER_SERIES = [
  'payrail_payments',
  'payrail_orders',
  'payrail_payin_detection_lag_seconds_bucket',
  'payrail_watcher_lag_blocks',
  'payrail_chain_transactions',
  'payrail_chain_transactions_replaced',
  'payrail_treasury_balance',
  'payrail_treasury_float',
  'payrail_treasury_float_mark',
  'payrail_webhook_deliveries',
  'payrail_order_callback_attempts',
];
const SDK_SERIES = ['temporal_worker_task_slots_available', 'temporal_activity_execution_latency_bucket', 'temporal_workflow_completed_total', 'temporal_request_latency_bucket'];

async function seriesAt(url: string): Promise<Set<string>> {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  const names = (await response.text()).split('\n').filter((line) => line !== '' && !line.startsWith('#')).map((line) => line.split(/[{ ]/)[0]!);
  return new Set(names);
}

const status = async (url: string) => (await fetch(url).catch(() => undefined))?.status;

/**
 * /readyz is a momentary probe (PostgreSQL and Temporal each answer within 2 s): on two cores busy with other
 * workers' start-up one probe can miss. A process is ready when its probe passes within a minute.
 */
async function readiness(healthUrl: string): Promise<{ status: number; body: { checks?: unknown } }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(`${healthUrl}/readyz`);
    const answer = { status: response.status, body: (await response.json()) as { checks?: unknown } };
    if (answer.status === 200 || Date.now() > deadline) return answer;
    await delay(500);
  }
}

describe('the production topology (npm run stack:prod)', function () {
  this.timeout(300_000);
  let running: TestProdStack | undefined;
  let prod: ProdStack | undefined;

  before(async function () {
    this.timeout(BUILD_TIMEOUT_MS + 600_000);
    await resolveTemporalServer({ log: (msg) => console.log(`      [temporal-server build] ${msg}`) });
    running = await startTestProdStack('prod');
    prod = running.prod;
  });

  after(async function () {
    this.timeout(120_000);
    await running?.stop();
  });

  it('runs every API and worker as its own ready process with its own log file, reaching Temporal over mTLS, the APIs without a signing key', async () => {
    const { apis, workers } = prod!;
    assert.equal(apis.length, 2);
    assert.equal(workers.length, 3);
    for (const service of [...apis, ...workers]) {
      // Asked again within 30 s: on two cores busy with the other processes' start-up one request can fail. A process
      // that never answers says why in its log's last lines.
      const live = await eventually(`${service.name} /livez`, 30_000, async () => ((await fetch(`${service.healthUrl}/livez`)).status === 200 ? true : undefined), 500).catch((err: Error) => err);
      if (live !== true) assert.fail(`${live.message}; its log ends:\n${(await readFile(service.options.logFile, 'utf8')).split('\n').slice(-30).join('\n')}`);
      const ready = await readiness(service.healthUrl);
      assert.equal(ready.status, 200, `${service.name} /readyz: ${JSON.stringify(ready.body)}`);
      assert.deepEqual(ready.body.checks, { postgres: 'ok', temporal: 'ok' });
      assert.match(await readFile(service.options.logFile, 'utf8'), /"msg":"(api listening|worker running)"/, service.name);
    }
    const pids = await Promise.all([...apis, ...workers].map((s) => readFile(s.options.logFile.replace(/\.log$/, '.pid'), 'utf8')));
    assert.equal(new Set(pids).size, 5, 'five distinct processes');
    for (const service of [...apis, ...workers]) {
      assert.equal(service.options.env.TEMPORAL_TLS_CERT, prod!.temporal.tls.certFile, `${service.name} presents Payrail's client certificate`);
    }
    for (const api of apis) assert.deepEqual(signingVariablesIn(api.options.env), [], `${api.name} holds no signing key`);
    assert.ok(workers.every((w) => w.options.env.TREASURY_PRIVATE_KEY !== undefined), 'the workers sign');
  });

  it('pays a payment created on the second API while a worker was killed -9, and /metrics shows every series', async () => {
    const { apis, workers, info } = prod!;
    const killed = workers[0]!;
    await killed.kill('SIGKILL');
    assert.equal(await status(`${killed.healthUrl}/livez`), undefined, 'a killed worker no longer answers');

    const paymentApiUrl = `${apis[1]!.healthUrl}/v1/payment-api`;
    const payment = await createPayment(paymentApiUrl, info.demoMerchant.ordersKey, paymentBody({ orderId: `prod-${randomUUID()}`, chainId: '8453' }));
    await customerTransfer(info, 8453, 'USDC', payment.source.receiverAddress, payment.source.amount);
    await waitForStatus(paymentApiUrl, payment.id, 'payment_completed', 180_000);

    await killed.start();
    const apiMetrics = apis[1]!.options.metricsUrl!;
    const apiSeries = await seriesAt(apiMetrics);
    for (const name of API_SERIES) assert.ok(apiSeries.has(name), `API /metrics lacks ${name}`);
    const created = (await (await fetch(apiMetrics)).text()).match(/^payrail_payments_created_total\{[^}]*interface="payment"[^}]*\} (\d+)/m);
    assert.equal(created?.[1], '1');
    // The public port serves the interfaces only: no series of routes, rates and balances for anyone who asks.
    for (const api of apis) {
      assert.notEqual(new URL(api.options.metricsUrl!).port, new URL(api.healthUrl).port, `${api.name}: /metrics has a port of its own`);
      const publicMetrics = await fetch(`${api.healthUrl}/metrics`);
      assert.equal(publicMetrics.status, 404, `${api.name}: no /metrics on the public port`);
      assert.doesNotMatch(await publicMetrics.text(), /payrail_/);
    }

    // The chain watcher's scan and the payment's activities ran on whichever worker polled them: look at all.
    const workerSeries = new Set<string>();
    const sdkSeries = new Set<string>();
    for (const worker of workers) {
      for (const name of await seriesAt(worker.options.metricsUrl!)) workerSeries.add(name);
      for (const name of await seriesAt(`http://${worker.options.env.TEMPORAL_METRICS_BIND_ADDRESS}/metrics`)) sdkSeries.add(name);
    }
    for (const name of WORKER_SERIES) assert.ok(workerSeries.has(name), `worker /metrics lacks ${name}`);
    for (const name of SDK_SERIES) assert.ok(sdkSeries.has(name), `SDK metrics lack ${name}`);
  });

  it('stops an API with SIGTERM (its port closes) and starts it again on the same port', async () => {
    const api = prod!.apis[0]!;
    await api.stop();
    assert.equal(await status(`${api.healthUrl}/livez`), undefined);
    await api.start();
    assert.equal((await readiness(api.healthUrl)).status, 200);
  });
});
