/**
 * examples/reconcile-orders.ts against the real stack: the merchant's receiver is down for half the payments, and
 * the example brings every order right from the listing by key; then the app's statement (CSV) is read as a table
 * whose totals are the ledger's, as `npm run reconcile -- --app` proves them.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { statementSchema } from '../../api/schemas/listing';
import type { PaymentResource } from '../../api/serializers/payment';
import type { WebhookDeliveryRow } from '../../db/tables';
import { parseUnits } from '../../domain/money';
import { reconcileLedger } from '../../services/ledger';
import { STATEMENT_CSV_COLUMNS, type Statement } from '../../services/statements';
import { reconcileOrders, type SyncState, type UndeliveredEvent } from '../../examples/reconcile-orders';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer } from '../support/chain';
import { request } from '../support/http';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { eventually } from '../support/poll';
import { connectServices, paymentRunEnded, startExtraApi, type ExtraApi, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { exited, spawnWorker } from '../support/worker';
import { setWebhookUrl, startTestReceiver, type TestReceiver } from './support';

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && (c === ',' || c === '\n')) {
      row.push(field);
      field = '';
      if (c === '\n') {
        rows.push(row);
        row = [];
      }
    } else if (quoted || c !== '\r') {
      field += c;
    }
  }
  return rows;
}

describe('reconciling by key: the example job and the statement', function () {
  this.timeout(300_000);
  let stack: Stack;
  let services: StackServices;
  let receiver: TestReceiver;
  let worker: ChildProcess;
  let api: ExtraApi;
  let merchant: TestMerchant;
  const payments: PaymentResource[] = [];
  /** The merchant's order table, as its webhook receiver keeps it. */
  const orders = new Map<string, { paymentId: string; status: string }>();

  before(async function () {
    // Four payments paid and paid out on the shared stack: minutes on a loaded machine.
    this.timeout(900_000);
    stack = await getStack();
    services = await connectServices(stack);
    receiver = await startTestReceiver();
    // A worker of this file's own task queue, trusting the receiver's CA; the API starts payments on that queue.
    const taskQueue = `reconcile-${randomUUID()}`;
    worker = spawnWorker(stack, taskQueue, { NODE_EXTRA_CA_CERTS: receiver.caFile, WEBHOOK_TIMEOUT_MS: '1500', LOG_LEVEL: 'error' });
    api = await startExtraApi(stack, services, { taskQueue });
    const up = receiver.url('ok', `up-${randomUUID()}`);
    merchant = await newMerchant(stack, services.knex, { webhookUrl: up });
    // Half the payments are made while the receiver answers, half while it is down (answers 500).
    for (let i = 0; i < 4; i++) {
      if (i === 2) await setWebhookUrl(services.knex, merchant.appId, receiver.url('fail', `down-${randomUUID()}`));
      const payment = await createPayment(api.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `order-${i}-${randomUUID()}`, chainId: '8453', amount: '5' }));
      payments.push(payment);
      orders.set(payment.orderId!, { paymentId: payment.id, status: payment.status });
    }
    for (const payment of payments) await customerTransfer(stack.info, 8453, 'USDC', payment.source.receiverAddress, '5');
    await Promise.all(payments.map((payment) => waitForStatus(api.paymentApiUrl, payment.id, 'payment_completed', 600_000)));
    await Promise.all(payments.map((payment) => paymentRunEnded(services, payment.id)));
    await eventually('every delivery finished', 60_000, async () => {
      const rows = await services.knex<WebhookDeliveryRow>('webhook_deliveries').where({ app_id: merchant.appId });
      return rows.length === 8 && rows.every((r) => r.status !== 'pending') ? rows : undefined;
    });
    // What the receiver got: the events of the first two payments.
    for (const r of receiver.received(merchant.webhookUrl!)) {
      const event = JSON.parse(r.rawBody.toString('utf8')) as { type: string; data: { orderId: string; id: string } };
      const status = event.type === 'payment_payout_completed' ? 'payment_completed' : 'payment_payin_completed';
      if (orders.get(event.data.orderId)!.status !== 'payment_completed') orders.set(event.data.orderId, { paymentId: event.data.id, status });
    }
  });
  after(async () => {
    worker?.kill('SIGKILL');
    if (worker) await exited(worker);
    await api?.close();
    await receiver?.close();
    await services?.close();
  });

  it('brings every order right after the receiver was down for half the payments', async () => {
    const stale = [...orders.values()].filter((o) => o.status !== 'payment_completed').map((o) => o.paymentId);
    assert.deepEqual(stale.sort(), [payments[2]!.id, payments[3]!.id].sort(), 'the receiver missed the last two payments');

    const state: SyncState = { paymentsCursor: null, handledEvents: [], eventsSince: '2000-01-01' };
    const missed: UndeliveredEvent[] = [];
    const run = () =>
      reconcileOrders({
        paymentApiUrl: api.paymentApiUrl,
        merchantApiUrl: api.merchantApiUrl,
        adminKey: merchant.adminKey,
        state,
        applyPayment: (p) => {
          if (p.orderId && orders.has(p.orderId)) orders.set(p.orderId, { paymentId: p.id, status: p.status });
        },
        onMissedEvent: (e) => void missed.push(e),
      });
    const first = await run();
    assert.ok(first.payments >= 4);
    for (const [orderId, order] of orders) assert.equal(order.status, 'payment_completed', `order ${orderId}`);
    // The missed events are those of the payments made while the receiver was down, each handled once.
    assert.deepEqual(missed.map((e) => e.paymentId).sort(), [payments[2]!.id, payments[2]!.id, payments[3]!.id, payments[3]!.id].sort());
    assert.ok(missed.every((e) => e.delivery.status === 'exhausted' && e.delivery.statusCode === 500));

    // A second run finds nothing new: no change is read twice, no event handled twice.
    assert.deepEqual(await run(), { payments: 0, events: 0 });
  });

  it("states the app's ledger movements as a CSV table whose totals are the ledger's", async () => {
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 86_400_000).toISOString();
    const url = `${api.merchantApiUrl}/apps/${merchant.appId}/statement?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    const csv = await request<string>(`${url}&format=csv`, { headers: { 'x-api-key': merchant.adminKey } });
    assert.equal(csv.status, 200, csv.text);
    assert.match(csv.contentType ?? '', /^text\/csv/);
    const [header, ...rows] = parseCsv(csv.text);
    assert.deepEqual(header, [...STATEMENT_CSV_COLUMNS]);
    assert.ok(rows.every((r) => r.length === STATEMENT_CSV_COLUMNS.length), 'every row has every column');
    const col = (row: string[], name: (typeof STATEMENT_CSV_COLUMNS)[number]) => row[STATEMENT_CSV_COLUMNS.indexOf(name)]!;

    const json = await request<Statement>(url, { headers: { 'x-api-key': merchant.adminKey } });
    assert.equal(json.status, 200, json.text);
    statementSchema.parse(json.body);
    const movements = rows.filter((r) => col(r, 'section') === 'movement');
    assert.equal(movements.length, json.body.movements.length);
    const paymentIds = new Set(payments.map((p) => p.id));
    assert.ok(movements.every((m) => paymentIds.has(col(m, 'payment_id'))));
    for (const kind of ['payin', 'fee', 'payout']) {
      assert.equal(movements.filter((m) => col(m, 'kind') === kind).length, 4, `one ${kind} per payment`);
    }
    for (const m of movements.filter((r) => ['payin', 'payout'].includes(col(r, 'kind')))) assert.match(col(m, 'tx_hash'), /^0x[0-9a-f]{64}$/i, col(m, 'ref'));

    // The movements add up to the figures, and the deposit addresses hold what `npm run reconcile -- --app` proves.
    const reconciled = await reconcileLedger({ knex: services.knex, chains: services.chains }, { appId: merchant.appId });
    assert.equal(reconciled.failures, 0, JSON.stringify(reconciled.accounts.filter((a) => a.difference !== 0n), (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
    const deposits = reconciled.accounts.filter((a) => a.kind === 'deposit');
    assert.ok(deposits.length > 0 && deposits.every((a) => !a.inFlight), 'every deposit of the app compared with the chain');
    assert.ok(json.body.books.length > 0);
    for (const book of json.body.books) {
      const figure = (section: 'opening' | 'closing', kind: string) => {
        const row = rows.find((r) => col(r, 'section') === section && col(r, 'chain_id') === book.chainId && col(r, 'token_address') === book.tokenAddress && col(r, 'kind') === kind)!;
        return parseUnits(col(row, 'amount'), book.decimals);
      };
      const moved = (kind: string) =>
        movements
          .filter((m) => col(m, 'chain_id') === book.chainId && col(m, 'token_address') === book.tokenAddress && col(m, 'kind') === kind)
          .reduce((sum, m) => sum + BigInt(col(m, 'amount_units')), 0n);
      const onChain = deposits
        .filter((a) => String(a.chainId) === book.chainId && a.tokenAddress.toLowerCase() === book.tokenAddress.toLowerCase())
        .reduce((sum, a) => sum + a.onChain, 0n);
      assert.equal(figure('closing', 'at_deposits'), onChain, `the deposits of chain ${book.chainId} ${book.tokenAddress}`);
      for (const [figureName, kind] of [['payins', 'payin'], ['payouts', 'payout'], ['fees', 'fee'], ['refunds', 'refund'], ['held', 'held']] as const) {
        assert.equal(figure('closing', figureName) - figure('opening', figureName), moved(kind), `${figureName} of chain ${book.chainId}`);
      }
    }

    // A period before the payments has their movements in neither the period nor the opening.
    const earlier = await request<Statement>(`${api.merchantApiUrl}/apps/${merchant.appId}/statement?from=2020-01-01&to=2020-02-01`, { headers: { 'x-api-key': merchant.adminKey } });
    assert.deepEqual(earlier.body.movements, []);
    assert.deepEqual(earlier.body.books, []);
    const bad = await request<{ error: string }>(`${api.merchantApiUrl}/apps/${merchant.appId}/statement?from=2026-02-01&to=2026-01-01`, { headers: { 'x-api-key': merchant.adminKey } });
    assert.equal(bad.status, 400, bad.text);
  });
});
