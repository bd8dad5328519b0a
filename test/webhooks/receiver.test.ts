/** Spec 6.1's receiver test, against the example receiver (examples/webhook-receiver.ts) and the shipped helper. */
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookReceiver, type PayrailWebhookEvent } from '../../examples/webhook-receiver';
import { request } from '../support/http';
import { eventually } from '../support/poll';

const SECRET = 'c0ffee'.repeat(10) + 'c0ff';

describe('example webhook receiver (spec 6.1 receiver test)', () => {
  let server: Server;
  let url: string;
  const handled: PayrailWebhookEvent[] = [];

  before(async () => {
    server = createServer(webhookReceiver({ secret: SECRET, onEvent: (event) => void handled.push(event) }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/payrail`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    handled.length = 0;
  });

  const eventBody = (eventId = randomUUID()) =>
    JSON.stringify({ event_id: eventId, type: 'payment_payin_completed', timestamp: new Date().toISOString(), data: { id: randomUUID(), status: 'payment_payin_completed' } });

  /** Signed here with node:crypto, exactly as spec 6.1 describes, independently of Payrail's code. */
  const signature = (timestamp: string, body: string, secret = SECRET) =>
    `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;

  async function post(body: string, headers: Record<string, string>) {
    const res = await request<Record<string, unknown>>(url, { rawBody: body, headers });
    return { status: res.status, body: res.body };
  }
  const signedPost = (body: string, timestamp = String(Date.now()), secret = SECRET) =>
    post(body, { 'x-service-timestamp': timestamp, 'x-service-signature': signature(timestamp, body, secret) });

  /**
   * The events the business logic ran for, once it has caught up: it runs after the 200 was sent, in the order the
   * events came, so once it has run for a later event (sent here, and left out of the answer) it has run for every
   * request before it.
   */
  async function handledSoFar(): Promise<PayrailWebhookEvent[]> {
    const later = eventBody();
    assert.equal((await signedPost(later)).status, 200);
    const laterId = (JSON.parse(later) as PayrailWebhookEvent).event_id;
    await eventually('the business logic of a later event', 5_000, () => Promise.resolve(handled.some((e) => e.event_id === laterId) ? true : undefined), 5);
    return handled.filter((e) => e.event_id !== laterId);
  }

  it('answers 200 to a correctly signed body and runs the business logic', async () => {
    const body = eventBody();
    const res = await signedPost(body);
    assert.equal(res.status, 200);
    assert.deepEqual(await handledSoFar(), [JSON.parse(body)]);
  });

  it('answers 401 invalid_signature to a wrong signature, and does nothing', async () => {
    const body = eventBody();
    const timestamp = String(Date.now());
    assert.deepEqual(await post(body, { 'x-service-timestamp': timestamp, 'x-service-signature': signature(timestamp, `${body} `) }), {
      status: 401,
      body: { error: 'invalid_signature' },
    });
    assert.deepEqual(await signedPost(body, timestamp, 'f'.repeat(64)), { status: 401, body: { error: 'invalid_signature' } });
    assert.deepEqual(await post(body, { 'x-service-timestamp': timestamp }), { status: 401, body: { error: 'invalid_signature' } });
    assert.deepEqual(await handledSoFar(), []);
  });

  it('answers 401 timestamp_expired to a timestamp older than the 5-minute window, even if correctly signed', async () => {
    const body = eventBody();
    assert.deepEqual(await signedPost(body, String(Date.now() - 5 * 60_000 - 1_000)), { status: 401, body: { error: 'timestamp_expired' } });
    assert.equal((await signedPost(body, String(Date.now() - 4 * 60_000))).status, 200, 'inside the window it is accepted');
  });

  it('answers 200 to the same body twice and runs the business logic once', async () => {
    const body = eventBody();
    const timestamp = String(Date.now());
    const first = await signedPost(body, timestamp);
    const second = await signedPost(body, timestamp);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, { received: true, duplicate: true });
    assert.equal((await handledSoFar()).length, 1);
  });

  it('refuses other methods and bodies that are too large', async () => {
    assert.equal((await request(url)).status, 405);
    const huge = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    assert.equal((await signedPost(huge)).status, 413);
  });
});
