import assert from 'node:assert/strict';
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
    const create = doc.paths['/v1/payment-api']!.post!;
    assert.deepEqual(create.requestBody?.content['application/json']?.schema.required, ['display', 'source']);
    assert.equal(create.requestBody?.content['application/json']?.schema.additionalProperties, false);
    assert.ok(create.responses.default, 'error bodies described');
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
