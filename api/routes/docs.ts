import { readFile } from 'node:fs/promises';
import Router from '@koa/router';
import type { ChainRegistry } from '../../chains/registry';
import type { PricingPolicy } from '../../domain/payment-plan';
import { API_REFERENCE_PATH, OPENAPI_PATH, openApiDocument } from '../openapi';
import { notFound } from '../errors';
import { toChainList } from '../serializers/chains';

/** Files of the swagger-ui-dist package the reference page loads, served from node_modules (no CDN). */
const ASSETS: Record<string, string> = { 'swagger-ui-bundle.js': 'application/javascript; charset=utf-8', 'swagger-ui.css': 'text/css; charset=utf-8' };

const referencePage = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Payrail API reference</title>
  <link rel="stylesheet" href="${API_REFERENCE_PATH}/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="${API_REFERENCE_PATH}/swagger-ui-bundle.js"></script>
  <script src="${API_REFERENCE_PATH}/init.js"></script>
</body>
</html>
`;
// A file of its own rather than an inline script, so a strict Content-Security-Policy can stay on.
const initScript = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#reference', deepLinking: true });\n`;

/** `GET /v1/openapi.json` (the OpenAPI 3.1 document) and `GET /v1/docs` (its rendered reference). */
export function docsRoutes(deps: { publicBaseUrl: string; chains: { registry: ChainRegistry }; pricing: PricingPolicy }): Router {
  const router = new Router();
  const document = JSON.stringify(openApiDocument({ serverUrl: deps.publicBaseUrl, chains: toChainList(deps.chains.registry, deps.pricing) }));
  const assets = new Map<string, Promise<Buffer>>();

  router.get(OPENAPI_PATH, (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document;
  });
  router.get(API_REFERENCE_PATH, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = referencePage;
  });
  router.get(`${API_REFERENCE_PATH}/init.js`, (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = initScript;
  });
  router.get(`${API_REFERENCE_PATH}/:file`, async (ctx) => {
    const file = ctx.params.file ?? '';
    const type = ASSETS[file];
    if (type === undefined) throw notFound('file');
    let body = assets.get(file);
    if (!body) {
      body = readFile(require.resolve(`swagger-ui-dist/${file}`));
      assets.set(file, body);
    }
    ctx.set('cache-control', 'public, max-age=3600');
    ctx.type = type;
    ctx.body = await body;
  });
  return router;
}
