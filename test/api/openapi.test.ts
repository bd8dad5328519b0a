import assert from 'node:assert/strict';
import { newMerchant } from '../support/merchant';
import { connectServices } from '../support/services';
import { getStack } from '../support/stack';

describe('OpenAPI document and reference page', function () {
  this.timeout(300_000);
  let base: string;

  before(async () => {
    base = (await getStack()).publicBaseUrl;
  });

  it('serves an OpenAPI 3.1 document of the payment, merchant and legacy interfaces, bodies from the zod schemas', async () => {
    const res = await fetch(`${base}/v1/openapi.json`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { required?: string[]; additionalProperties?: boolean } }> }; responses: Record<string, unknown> }>> };
    assert.equal(doc.openapi, '3.1.0');
    for (const path of ['/v1/payment-api', '/v1/payment-api/payments/{id}', '/v1/merchant-api/register', '/v1/orders', '/v1/orders/{id}', '/pay/{id}/state']) {
      assert.ok(doc.paths[path], `document lacks ${path}`);
    }
    // Listing by key: the payments, the events and the statement (JSON or CSV).
    for (const path of ['/v1/payment-api', '/v1/merchant-api/events', '/v1/merchant-api/events/{id}', '/v1/merchant-api/apps/{appId}/statement']) {
      assert.ok(doc.paths[path]?.get, `document lacks GET ${path}`);
    }
    const statement = doc.paths['/v1/merchant-api/apps/{appId}/statement']!.get! as unknown as { security: unknown[]; responses: { '200': { content: Record<string, unknown> } } };
    assert.deepEqual(Object.keys(statement.responses['200'].content), ['application/json', 'text/csv']);
    assert.deepEqual(statement.security, [{ apiKey: [] }, { session: [] }, { bearer: [] }]);
    const create = doc.paths['/v1/payment-api']!.post!;
    assert.deepEqual(create.requestBody?.content['application/json']?.schema.required, ['display', 'source']);
    assert.equal(create.requestBody?.content['application/json']?.schema.additionalProperties, false);
    assert.ok(create.responses.default, 'error bodies described');
    // `source` names the chains and tokens this server serves, each chain with its own tokens.
    const source = (create.requestBody?.content['application/json']?.schema as { properties: { source: { anyOf: Array<{ properties: { chainId: { const: string }; tokenSymbol: { enum: string[] } } }> } } }).properties.source;
    const served = (await (await fetch(`${base}/v1/payment-api/chains`)).json()) as { data: Array<{ chainId: string; tokens: Array<{ symbol: string }> }> };
    assert.deepEqual(
      source.anyOf.map((alternative) => [alternative.properties.chainId.const, alternative.properties.tokenSymbol.enum]),
      served.data.map((chain) => [chain.chainId, chain.tokens.map((t) => t.symbol)]),
    );
  });

  it('links what a create answers to the operations that read it, and following a link reads the payment', async () => {
    type Link = { operationId: string; parameters: Record<string, string> };
    type Op = { operationId: string; responses: Record<string, { links?: Record<string, Link> }> };
    const doc = (await (await fetch(`${base}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Op>> };
    const pathOf = new Map(Object.entries(doc.paths).flatMap(([path, ops]) => Object.values(ops).map((op) => [op.operationId, path] as const)));
    const links = Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => Object.values(op.responses).flatMap((r) => Object.values(r.links ?? {}))));
    assert.ok(links.length >= 15, `only ${links.length} links`);
    for (const link of links) assert.ok(pathOf.has(link.operationId), `link to an operation the document lacks: ${link.operationId}`);

    const stack = await getStack();
    const services = await connectServices(stack);
    const merchant = await newMerchant(stack, services.knex).finally(() => services.close());
    const created = await fetch(stack.info.paymentApiUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': merchant.ordersKey },
      body: JSON.stringify({ orderId: `openapi-link-${Date.now()}`, display: { name: 'link' }, source: { chainId: '42161', tokenSymbol: 'USDC', amount: '5' } }),
    });
    assert.equal(created.status, 201);
    const payment = (await created.json()) as Record<string, unknown>;
    const read = doc.paths['/v1/payment-api']!.post!.responses['201']!.links!['getV1PaymentApiPaymentsId']!;
    // `$response.body#/id`: a JSON pointer into the create's answer.
    const id = String(payment[read.parameters.id!.replace('$response.body#/', '')]);
    const res = await fetch(`${base}${pathOf.get(read.operationId)!.replace('{id}', id)}`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { id: string }).id, payment.id);
  });

  it('renders the reference page from swagger-ui-dist served by the API itself', async () => {
    const page = await (await fetch(`${base}/v1/docs`)).text();
    assert.match(page, /\/v1\/docs\/swagger-ui-bundle\.js/);
    assert.doesNotMatch(page, /https?:\/\//, 'nothing loaded from elsewhere');
    const bundle = await fetch(`${base}/v1/docs/swagger-ui-bundle.js`);
    assert.equal(bundle.status, 200);
    assert.ok((await bundle.arrayBuffer()).byteLength > 100_000);
  });
});
