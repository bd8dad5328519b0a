import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../lib/webhooks/verify';
import type { Stack } from '../../tools/stack/stack';
import { uniqueOrderId } from '../api/helpers';
import { request } from '../support/http';
import { eventually } from '../support/poll';
import { connectServices, startExtraApi, type ExtraApi, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';

/** The worker's bound on one callback exchange (activities/orders.ts). */
const CALLBACK_BOUND_MS = 10_000;

interface DripConnection {
  openedAt: number;
  closedAt?: number;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
}

/** A merchant server that reads the callback, then answers one byte of a status line every 200 ms, forever. */
async function startDrippingServer(): Promise<{ url: string; connections: DripConnection[]; close(): Promise<void> }> {
  const connections: DripConnection[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const connection: DripConnection = { openedAt: Date.now(), headers: req.headers, rawBody: Buffer.alloc(0) };
    connections.push(connection);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      connection.rawBody = Buffer.concat(chunks);
      const line = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n';
      let sent = 0;
      const timer = setInterval(() => res.socket?.write(line[sent++ % line.length]!), 200);
      timers.add(timer);
      res.socket?.once('close', () => {
        clearInterval(timer);
        timers.delete(timer);
        connection.closedAt = Date.now();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/drip`,
    connections,
    async close() {
      for (const timer of timers) clearInterval(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * Opening 10 (issue 8): legacy callbacks were unsigned, could go to plain http in production, and a server that
 * drips bytes held the socket past the activity's timeout on every retry.
 */
describe('attack: a legacy callback receiver that drips bytes forever', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let drip: Awaited<ReturnType<typeof startDrippingServer>>;
  let merchant: TestMerchant;
  let shortOrders: ExtraApi;
  let production: ExtraApi;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    drip = await startDrippingServer();
    merchant = await newMerchant(stack, services.knex, { webhookUrl: 'https://127.0.0.1:9443/payrail' });
    // Orders that expire 2 s after creation, so their expiry callback goes out at once (on the stack's worker).
    shortOrders = await startExtraApi(stack, services, { orderTtlSeconds: 2 });
    production = await startExtraApi(stack, services, { webhookAllowPrivateNetworks: false });
  });
  after(async () => {
    await Promise.all([drip?.close(), shortOrders?.close(), production?.close()]);
    await services?.close();
  });

  it('is cut off at the bound on the whole exchange; the signed callback is logged as timed out', async () => {
    const created = await request(`${shortOrders.origin}/v1/orders`, {
      headers: { token: merchant.ordersKey },
      body: { merchant_order_id: uniqueOrderId('drip'), price_amount: 5, callback_url: drip.url, merchant_token: 'mt-drip' },
    });
    assert.equal(created.status, 201, created.text);
    const orderId = (created.body as { order: { id: string } }).order.id;
    // At rest the merchant_token is sealed: a database dump alone does not reveal it.
    const stored = await services.knex('orders').where({ id: orderId }).first<Record<string, unknown>>();
    assert.ok(!('merchant_token' in stored) && typeof stored.merchant_token_sealed === 'string');
    assert.ok(!JSON.stringify(stored).includes('mt-drip'), 'no column holds the token in the clear');

    const attempt = await eventually('the first callback attempt to be logged', 60_000, async () =>
      services.knex('order_callback_attempts').where({ order_id: orderId, attempt: 1 }).first<{ status_code: number | null; error: string | null; duration_ms: number } | undefined>(),
    500);
    assert.equal(attempt.status_code, null, 'no response ever completed');
    assert.equal(attempt.error, 'timed out');
    assert.ok(attempt.duration_ms >= CALLBACK_BOUND_MS - 100, `held no less than the bound: ${attempt.duration_ms} ms`);
    assert.ok(attempt.duration_ms < CALLBACK_BOUND_MS + 3000, `cut off at the bound, not later: ${attempt.duration_ms} ms`);

    const first = drip.connections[0];
    assert.ok(first, 'the dripping server got the callback');
    const closedAt = await eventually('the dripping socket to be closed', 10_000, () => Promise.resolve(first.closedAt), 200);
    assert.ok(closedAt - first.openedAt < CALLBACK_BOUND_MS + 3000, `the socket was closed ${closedAt - first.openedAt} ms after it opened`);

    // Signed like a webhook: X-Service-Timestamp and X-Service-Signature over `timestamp.body` with the app's secret.
    const verified = verifyWebhook({
      rawBody: first.rawBody,
      timestampHeader: first.headers['x-service-timestamp'],
      signatureHeader: first.headers['x-service-signature'],
      secret: merchant.webhookSecret!,
    });
    assert.deepEqual(verified, { ok: true });
    const body = JSON.parse(first.rawBody.toString('utf8')) as { id: string; status: string; merchant_token: string };
    assert.equal(body.id, orderId);
    assert.equal(body.merchant_token, 'mt-drip');
  });

  it('outside development a plain-http callback_url is refused at creation', async () => {
    const res = await request(`${production.origin}/v1/orders`, {
      headers: { token: merchant.ordersKey },
      body: { price_amount: 5, callback_url: 'http://shop.example/callbacks' },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal((res.body as { details: Array<{ field: string }> }).details[0]?.field, 'callback_url');
  });
});
