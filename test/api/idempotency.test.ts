import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { PaymentResource } from '../../api/serializers/payment';
import { insertPayment, findPaymentById } from '../../db/queries/payments';
import { feeFor } from '../../domain/money';
import type { Stack } from '../../tools/stack/stack';
import { paymentWorkflowId } from '../../workflows/ids';
import { MerchantAppIdKey, OrderIdKey, PaymentStatusKey, SourceChainIdKey } from '../../workflows/search-attributes';
import { getPayment, paymentBody } from '../support/api';
import { request, type HttpResult } from '../support/http';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { assertErrorEnvelope, countPayments, listWorkflows, uniqueOrderId } from './helpers';

const CONCURRENCY = 50;

/**
 * Spec 4.1 rule 1 and ARCHITECTURE §3 Idempotency: `(appId, orderId)` is unique per create form (keyed creates and
 * keyless creates are separate namespaces); a re-send of the same terms, also under concurrent requests, returns the
 * existing payment; other terms get 409 `idempotency_conflict`; there is never a row without a workflow nor a
 * workflow without a row.
 */
describe('payment service: idempotent create on (appId, orderId)', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let merchant: TestMerchant;
  let orphan: { id: string; orderId: string; insertedAt: number };

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    merchant = await newMerchant(stack, services.knex, { keylessPayments: true });
    orphan = await insertOrphanPayment();
  });
  after(async () => services?.close());

  /**
   * A payment row as the API leaves it when it dies between writing the row and starting the workflow:
   * written with the real query (row + deposit address), never started, created 60 s ago.
   */
  async function insertOrphanPayment(): Promise<{ id: string; orderId: string; insertedAt: number }> {
    const { knex, chains } = services;
    const id = randomUUID();
    const orderId = uniqueOrderId('orphan');
    const source = chains.registry.token(42161, 'USDC');
    const destination = chains.registry.token(8453, 'USDC');
    const amount = 25_000_000n;
    const fee = feeFor(amount, stack.config.feeBps);
    const expiresAt = new Date(Date.now() + stack.config.paymentTtlSeconds * 1000);
    const row = await insertPayment({
      knex,
      watchUntil: new Date(expiresAt.getTime() + stack.config.latePayinWindowSeconds * 1000),
      payment: {
        id,
        app_id: merchant.appId,
        order_id: orderId,
        keyless: false,
        type: 'exactIn',
        display: { title: 'Orphaned payment', name: 'Orphaned payment', description: null, currency: 'USD' },
        metadata: null,
        source_chain_id: 42161,
        source_token_symbol: 'USDC',
        source_token_address: source.address,
        source_decimals: source.decimals,
        source_amount_units: amount.toString(),
        fee_units: fee.toString(),
        deposit_address: chains.depositAddressFor(42161, id),
        destination_chain_id: 8453,
        destination_token_symbol: 'USDC',
        destination_token_address: destination.address,
        destination_decimals: destination.decimals,
        destination_address: merchant.payout.address,
        destination_amount_units: (amount - fee).toString(),
        underpayment_tolerance_bps: 0,
        webhook_url: null,
        expires_at: expiresAt,
      },
    });
    assert.ok(row, 'orphan row inserted');
    assert.equal(row.workflow_started_at, null);
    await knex('payments')
      .where({ id })
      .update({ created_at: knex.raw(`now() - interval '60 seconds'`), updated_at: knex.raw(`now() - interval '60 seconds'`) });
    await assert.rejects(services.client.workflow.getHandle(paymentWorkflowId(id)).describe(), WorkflowNotFoundError, 'no workflow yet');
    return { id, orderId, insertedAt: Date.now() };
  }

  /**
   * Exactly one row (in the payment's namespace) and one workflow for the order, and the workflow is the payment's,
   * running, searchable.
   */
  async function assertExactlyOne(appId: string, orderId: string, id: string, keyless = false): Promise<void> {
    assert.equal(await countPayments(services.knex, { app_id: appId, order_id: orderId, keyless }), 1, 'exactly one payments row');
    const [deposits] = await services.knex('deposit_addresses').where({ payment_id: id }).count<Array<{ count: string }>>({ count: '*' });
    assert.equal(Number(deposits?.count), 1, 'exactly one deposit address');
    const row = await eventually('workflow_started_at to be recorded', 10_000, async () => {
      const r = await findPaymentById({ knex: services.knex, id });
      return r?.workflow_started_at ? r : undefined;
    });
    assert.ok(row.workflow_started_at instanceof Date);

    const runs = await listWorkflows(services.client, `WorkflowId = "${paymentWorkflowId(id)}"`);
    assert.equal(runs.length, 1, `one run of ${paymentWorkflowId(id)}: ${runs.map((r) => r.runId).join(', ')}`);
    const description = await services.client.workflow.getHandle(paymentWorkflowId(id)).describe();
    assert.equal(description.type, 'paymentWorkflow');
    assert.equal(description.status.name, 'RUNNING');
    // Read from the run itself, not the eventually consistent visibility store: the API starts a payment's run with
    // REJECT_DUPLICATE, so a running run that is the first of its chain is the only run its workflow id ever had.
    assert.equal(description.raw.workflowExecutionInfo?.firstRunId, description.runId, `${paymentWorkflowId(id)} has had no other run`);
    // Its local waits may hold a workflow task for seconds: the run's tasks have 30 s, not the server's 10 s.
    assert.equal(Number(description.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds), 30, 'the run starts with its 30 s workflow task timeout');

    // Visibility is eventually consistent: wait until the order shows up, on this payment's one run.
    const query = `OrderId = "${orderId}" AND MerchantAppId = "${appId}"`;
    const byOrder = await eventually('the OrderId search attribute to be visible', 15_000, async () => {
      const found = (await listWorkflows(services.client, query)).filter((wf) => wf.workflowId === paymentWorkflowId(id));
      return found.length > 0 ? found : undefined;
    });
    assert.deepEqual(byOrder.map((wf) => wf.runId), [description.runId], 'exactly one run of the payment carries this (MerchantAppId, OrderId)');
    const wf = byOrder[0]!;
    assert.equal(wf.type, 'paymentWorkflow');
    assert.equal(wf.typedSearchAttributes.get(OrderIdKey), orderId);
    assert.equal(wf.typedSearchAttributes.get(MerchantAppIdKey), appId);
    assert.equal(wf.typedSearchAttributes.get(SourceChainIdKey), '42161');
    assert.equal(typeof wf.typedSearchAttributes.get(PaymentStatusKey), 'string');
  }

  function assertOneCreated(results: HttpResult[]): PaymentResource {
    const statuses = results.map((r) => r.status);
    const bad = results.filter((r) => r.status !== 200 && r.status !== 201);
    assert.deepEqual(bad.map((r) => `${r.status} ${r.text.slice(0, 200)}`), [], 'every response is 200 or 201');
    assert.equal(statuses.filter((s) => s === 201).length, 1, `exactly one 201 among ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 200).length, results.length - 1, 'all the others are 200');
    const created = results.find((r) => r.status === 201)!.body as PaymentResource;
    for (const r of results) {
      assert.match(r.contentType ?? '', /^application\/json\b/);
      // Every answer is the same payment, field for field.
      assert.deepEqual(r.body, created);
    }
    assert.equal(created.status, 'payment_unpaid');
    return created;
  }

  it(`${CONCURRENCY} concurrent POST {api} (X-API-Key) with one orderId: one 201, ${CONCURRENCY - 1} × 200, one row, one workflow`, async () => {
    const orderId = uniqueOrderId('idem-key');
    const body = paymentBody({ orderId, amount: '12.5' });
    const results = await Promise.all(
      Array.from({ length: CONCURRENCY }, () => request(api, { headers: { 'x-api-key': merchant.ordersKey }, body })),
    );
    const payment = assertOneCreated(results);
    assert.equal(payment.orderId, orderId);
    assert.equal(payment.appId, merchant.appId);
    await assertExactlyOne(merchant.appId, orderId, payment.id);
  });

  it(`${CONCURRENCY} concurrent POST {api}/payments (appId in the body) with one orderId: one 201, one row, one workflow`, async () => {
    const orderId = uniqueOrderId('idem-appid');
    const body = { ...paymentBody({ orderId, amount: '7.25' }), appId: merchant.appId };
    const results = await Promise.all(Array.from({ length: CONCURRENCY }, () => request(`${api}/payments`, { body })));
    const payment = assertOneCreated(results);
    assert.equal(payment.orderId, orderId);
    assert.equal(payment.keyless, true);
    await assertExactlyOne(merchant.appId, orderId, payment.id, true);
  });

  it('both create forms and both key scopes, concurrently, with one orderId: one keyed and one keyless payment, never mixed', async () => {
    const orderId = uniqueOrderId('idem-mixed');
    const body = paymentBody({ orderId, amount: '3' });
    const keyless = (i: number) => i % 3 === 0;
    const results = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) => {
        if (keyless(i)) return request(`${api}/payments`, { body: { ...body, appId: merchant.appId } });
        return request(api, { headers: { 'x-api-key': i % 3 === 1 ? merchant.ordersKey : merchant.adminKey }, body });
      }),
    );
    const keyed = assertOneCreated(results.filter((_, i) => !keyless(i)));
    const unkeyed = assertOneCreated(results.filter((_, i) => keyless(i)));
    assert.equal(keyed.keyless, false);
    assert.equal(unkeyed.keyless, true);
    assert.notEqual(keyed.id, unkeyed.id);
    assert.notEqual(keyed.source.receiverAddress, unkeyed.source.receiverAddress);
    await assertExactlyOne(merchant.appId, orderId, keyed.id);
    await assertExactlyOne(merchant.appId, orderId, unkeyed.id, true);
  });

  it(`${CONCURRENCY} concurrent keyed creates of one orderId with two different amounts: one 201, the same terms 200, the others 409`, async () => {
    const orderId = uniqueOrderId('idem-race');
    const bodies = [paymentBody({ orderId, amount: '11' }), paymentBody({ orderId, amount: '12' })];
    const results = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) => request(api, { headers: { 'x-api-key': merchant.ordersKey }, body: bodies[i % 2] })),
    );
    const created = results.filter((r) => r.status === 201);
    assert.equal(created.length, 1, `one 201 among ${results.map((r) => r.status).join(',')}`);
    const winner = created[0]!.body as PaymentResource;
    for (const [i, r] of results.entries()) {
      if (r === created[0]) continue;
      const sameTerms = bodies[i % 2]!.source.amount === winner.source.amount;
      if (sameTerms) {
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body, winner);
      } else {
        assert.equal(r.status, 409, r.text);
        assert.equal(assertErrorEnvelope(r).error, 'idempotency_conflict');
      }
    }
    await assertExactlyOne(merchant.appId, orderId, winner.id);
  });

  it('a re-send later returns 200 with the same payment, whatever the form, and creates nothing', async () => {
    const orderId = uniqueOrderId('idem-later');
    const body = paymentBody({ orderId, amount: '42' });
    const first = await request(api, { headers: { 'x-api-key': merchant.ordersKey }, body });
    assert.equal(first.status, 201, first.text);
    const created = first.body as PaymentResource;
    await assertExactlyOne(merchant.appId, orderId, created.id);
    const rowsBefore = await countPayments(services.knex, { app_id: merchant.appId });

    const viaKey = await request(api, { headers: { 'x-api-key': merchant.ordersKey }, body });
    const viaAdminKey = await request(api, { headers: { 'x-api-key': merchant.adminKey }, body });
    // The same amount spelt otherwise, and the token symbol in lower case, are the same terms.
    const respelt = await request(api, { headers: { 'x-api-key': merchant.ordersKey }, body: paymentBody({ orderId, amount: '42.000', tokenSymbol: 'usdc' }) });
    for (const res of [viaKey, viaAdminKey, respelt]) {
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, created);
    }
    // Other terms: 409 idempotency_conflict naming what differs, and nothing changes.
    for (const [label, changed, field] of [
      ['amount', paymentBody({ orderId, amount: '43' }), 'source.amount'],
      ['chain', paymentBody({ orderId, amount: '42', chainId: '8453' }), 'source.chainId'],
      ['token', paymentBody({ orderId, amount: '42', tokenSymbol: 'USDT' }), 'source.tokenSymbol'],
      ['display', { ...body, display: { ...body.display, name: 'Another order' } }, 'display'],
      ['metadata', { ...body, metadata: { cart: 'other' } }, 'metadata'],
    ] as const) {
      const res = await request(api, { headers: { 'x-api-key': merchant.ordersKey }, body: changed });
      assert.equal(res.status, 409, `${label}: ${res.text}`);
      const error = assertErrorEnvelope(res, label);
      assert.equal(error.error, 'idempotency_conflict', label);
      assert.match(error.message, new RegExp(field.replace('.', '\\.')), `${label}: the message names ${field}`);
    }
    assert.equal(await countPayments(services.knex, { app_id: merchant.appId }), rowsBefore, 'no new payments row');
    assert.deepEqual(await getPayment(api, created.id, merchant.ordersKey), created, 'the payment is unchanged');
    await assertExactlyOne(merchant.appId, orderId, created.id);
  });

  it('metadata is compared as JSON: the same object with its keys in another order is the same request', async () => {
    const orderId = uniqueOrderId('idem-metadata');
    const first = await request(api, { headers: { 'x-api-key': merchant.ordersKey }, body: { ...paymentBody({ orderId }), metadata: { a: 1, b: { c: [1, 2], d: null } } } });
    assert.equal(first.status, 201, first.text);
    const again = await request(api, { headers: { 'x-api-key': merchant.ordersKey }, body: { ...paymentBody({ orderId }), metadata: { b: { d: null, c: [1, 2] }, a: 1 } } });
    assert.equal(again.status, 200, again.text);
    assert.equal((again.body as PaymentResource).id, (first.body as PaymentResource).id);
    const reordered = await request(api, { headers: { 'x-api-key': merchant.ordersKey }, body: { ...paymentBody({ orderId }), metadata: { a: 1, b: { c: [2, 1], d: null } } } });
    assert.equal(reordered.status, 409, 'array order is part of the value');
  });

  it('the same orderId in two merchant apps is two payments (uniqueness is per app)', async () => {
    const other = await newMerchant(stack, services.knex);
    const orderId = uniqueOrderId('idem-two-apps');
    const body = paymentBody({ orderId });
    const [a, b] = await Promise.all([
      request(api, { headers: { 'x-api-key': merchant.ordersKey }, body }),
      request(api, { headers: { 'x-api-key': other.ordersKey }, body }),
    ]);
    assert.equal(a.status, 201, a.text);
    assert.equal(b.status, 201, b.text);
    const pa = a.body as PaymentResource;
    const pb = b.body as PaymentResource;
    assert.notEqual(pa.id, pb.id);
    assert.equal(pa.appId, merchant.appId);
    assert.equal(pb.appId, other.appId);
    assert.notEqual(pa.source.receiverAddress, pb.source.receiverAddress, 'deposit addresses are never shared');
    await assertExactlyOne(merchant.appId, orderId, pa.id);
    await assertExactlyOne(other.appId, orderId, pb.id);
  });

  it('payments without orderId are never merged', async () => {
    const body = paymentBody({ amount: '1' });
    const results = await Promise.all(Array.from({ length: 5 }, () => request(api, { headers: { 'x-api-key': merchant.ordersKey }, body })));
    assert.deepEqual(results.map((r) => r.status), [201, 201, 201, 201, 201]);
    const ids = results.map((r) => (r.body as PaymentResource).id);
    assert.equal(new Set(ids).size, 5);
    for (const r of results) assert.equal((r.body as PaymentResource).orderId, null);
  });

  it('a payment row whose workflow never started is given its workflow by the reconciler', async function () {
    this.timeout(90_000);
    // The reconciler (`payment-workflow-reconciler`) runs every 15 s and picks rows older than 10 s.
    const reconciler = await services.client.workflow.getHandle('payment-workflow-reconciler').describe();
    assert.equal(reconciler.status.name, 'RUNNING');

    const row = await eventually('the reconciler to start the orphan workflow', 45_000, async () => {
      const r = await findPaymentById({ knex: services.knex, id: orphan.id });
      return r?.workflow_started_at ? r : undefined;
    }, 500);
    assert.ok(row.workflow_started_at!.getTime() >= orphan.insertedAt - 1000, 'started after the row was written');
    const description = await services.client.workflow.getHandle(paymentWorkflowId(orphan.id)).describe();
    assert.equal(description.type, 'paymentWorkflow');
    assert.equal(description.status.name, 'RUNNING');
    assert.equal(description.taskQueue, stack.config.temporal.taskQueue);
    await assertExactlyOne(merchant.appId, orphan.orderId, orphan.id);

    // The API serves it like any other payment, and a re-send of its order finds it instead of creating one.
    const read = await request(`${api}/payments/${orphan.id}`);
    assert.equal(read.status, 200, read.text);
    assert.equal((read.body as PaymentResource).status, 'payment_unpaid');
    const resend = await request(api, {
      headers: { 'x-api-key': merchant.ordersKey },
      body: { ...paymentBody({ orderId: orphan.orderId, amount: '25' }), display: { title: 'Orphaned payment', name: 'Orphaned payment', currency: 'USD' } },
    });
    assert.equal(resend.status, 200, resend.text);
    assert.equal((resend.body as PaymentResource).id, orphan.id);
    await assertExactlyOne(merchant.appId, orphan.orderId, orphan.id);
  });
});
