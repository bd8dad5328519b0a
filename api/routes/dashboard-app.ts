import { readFile } from 'node:fs/promises';
import path from 'node:path';
import Router from '@koa/router';
import { DASHBOARD_BUILD_DIR } from '../../lib/web-build';
import { ApiError, notFound } from '../errors';
import { PAGE_SECURITY_HEADERS } from '../pages/render';

export const DASHBOARD_PATH = '/dashboard';

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png' };
/** Vite's hashed file names: `index-5fLMlMJB.js`. Anything else under assets/ is not ours. */
const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css|svg|png)$/;

/**
 * The merchant dashboard (a single-page app built from web/dashboard): hashed assets cached for a year, every
 * other path under /dashboard answered with the app's page (its router shows the right view), under the same
 * strict CSP as the hosted payment page: scripts and styles from this origin only, nothing inline.
 */
export function dashboardAppRoutes(buildDir = DASHBOARD_BUILD_DIR): Router {
  const router = new Router();
  const files = new Map<string, Buffer>();
  const load = async (file: string): Promise<Buffer | undefined> => {
    const cached = files.get(file);
    if (cached) return cached;
    const body = await readFile(path.join(buildDir, file)).catch(() => undefined);
    // The page itself is re-read per request: a rebuild while the API runs shows at once.
    if (body && file !== 'index.html') files.set(file, body);
    return body;
  };

  router.get(`${DASHBOARD_PATH}/assets/:file`, async (ctx) => {
    const file = ctx.params.file ?? '';
    const body = ASSET_NAME.test(file) ? await load(path.join('assets', file)) : undefined;
    if (!body) throw notFound('asset');
    ctx.set({ 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' });
    ctx.type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    ctx.body = body;
  });

  router.get(`${DASHBOARD_PATH}{/*rest}`, async (ctx) => {
    const page = await load('index.html');
    if (!page) throw new ApiError(503, 'dashboard_not_built', 'the dashboard is not built: run npm run build:web (npm install and npm start build it)');
    ctx.set(PAGE_SECURITY_HEADERS);
    ctx.set('cache-control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  return router;
}
