import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OrderResource } from '../../domain/order-resource';
import type { HttpResult } from '../support/http';
import { eventually } from '../support/poll';

export interface LegacyErrorBody {
  status: number;
  error: string;
  message: string;
  details?: Array<{ field: string; message: string }>;
}

/** The legacy error shape (ARCHITECTURE §3): `{ status, error, message, details?: [{ field, message }] }`. */
export function assertLegacyError(res: HttpResult, status: number, error: string, fields?: string[], label = ''): LegacyErrorBody {
  const where = `${label} → HTTP ${res.status} ${res.text.slice(0, 400)}`;
  assert.equal(res.status, status, `status: ${where}`);
  assert.match(res.contentType ?? '', /^application\/json\b/, `content-type is JSON: ${where}`);
  const body = res.body as LegacyErrorBody;
  assert.equal(body.status, status, `body.status: ${where}`);
  assert.equal(body.error, error, `error code: ${where}`);
  assert.equal(typeof body.message, 'string', `message: ${where}`);
  assert.ok(body.message.length > 0, `message is not empty: ${where}`);
  if (fields) {
    assert.ok(Array.isArray(body.details), `details: ${where}`);
    for (const d of body.details) {
      assert.equal(typeof d.field, 'string', `details[].field: ${where}`);
      assert.equal(typeof d.message, 'string', `details[].message: ${where}`);
      assert.ok(d.message.length > 0, `details[].message is not empty: ${where}`);
    }
    assert.deepEqual(body.details.map((d) => d.field).sort(), [...fields].sort(), `fields named: ${where}`);
  }
  return body;
}

export interface OrderCreated {
  status: number;
  order: OrderResource;
  payment_url: string;
}

/** A local stand-in for the merchant's shop: success and cancel pages, and callback receivers. */
export interface ShopServer {
  url: string;
  /** Callback bodies received at `/callbacks/<name>`, in arrival order (failed answers included). */
  callbacks(name: string): Array<{ body: Record<string, unknown>; answered: number }>;
  /** The next `count` callbacks to `<name>` are answered with HTTP 500. */
  failNext(name: string, count: number): void;
  waitForCallback(name: string, predicate: (body: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startShop(): Promise<ShopServer> {
  const received = new Map<string, Array<{ body: Record<string, unknown>; answered: number }>>();
  const failures = new Map<string, number>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://shop');
    if (req.method === 'GET' && url.pathname.startsWith('/shop/')) {
      const page = url.pathname.slice('/shop/'.length);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><title>Shop: ${page}</title></head><body><main><h1>Shop ${page} page</h1></main></body></html>`);
      return;
    }
    if (req.method === 'POST' && url.pathname.startsWith('/callbacks/')) {
      const name = url.pathname.slice('/callbacks/'.length);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const left = failures.get(name) ?? 0;
        const answered = left > 0 ? 500 : 200;
        if (left > 0) failures.set(name, left - 1);
        const list = received.get(name) ?? [];
        list.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>, answered });
        received.set(name, list);
        res.writeHead(answered, { 'content-type': 'application/json' });
        res.end(answered === 200 ? '{"ok":true}' : '{"error":"try again later"}');
      });
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const callbacks = (name: string) => received.get(name) ?? [];
  return {
    url: `http://127.0.0.1:${port}`,
    callbacks,
    failNext(name, count) {
      failures.set(name, count);
    },
    waitForCallback(name, predicate, timeoutMs = 60_000) {
      return eventually(
        () => `an accepted callback at ${name}; got ${JSON.stringify(callbacks(name))}`,
        timeoutMs,
        async () => Promise.resolve(callbacks(name).find((c) => c.answered === 200 && predicate(c.body))?.body),
      );
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
