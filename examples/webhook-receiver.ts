/**
 * A minimal Payrail webhook receiver, as a starting point for yours.
 *
 *   PAYRAIL_WEBHOOK_SECRET=<64 hex> TLS_CERT_FILE=cert.pem TLS_KEY_FILE=key.pem PORT=8443 npx tsx examples/webhook-receiver.ts
 *
 * Without TLS_CERT_FILE/TLS_KEY_FILE it listens on plain HTTP, for use behind a TLS-terminating proxy (Payrail
 * only delivers to https:// URLs). For every request it:
 *  1. reads the raw body (never re-serialised: the signature covers these exact bytes);
 *  2. verifies `X-Service-Timestamp` / `X-Service-Signature` with lib/webhooks/verify.ts, answering
 *     401 `{ "error": "invalid_signature" | "timestamp_expired" }` on failure;
 *  3. deduplicates on `event_id` (Payrail sends each event at most once, but a proxy or a replayed request may
 *     repeat one), answers 200 at once, and runs the business logic afterwards, once per event.
 *
 * The deduplication here is an in-memory Set: a sketch. It forgets on restart and is not shared between
 * processes. In production, record `event_id` durably before answering 2xx (e.g. an INSERT into a table with
 * a unique key, skipping the event on conflict) and process the event from there.
 *
 * Payrail makes one attempt per event and never retries. If your endpoint was down, reconcile by key:
 * examples/reconcile-orders.ts pages through the payments changed since its last run and the events that were
 * not delivered.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhook } from '../lib/webhooks/verify';

export interface PayrailWebhookEvent {
  event_id: string;
  type: 'payment_payin_completed' | 'payment_payout_completed';
  timestamp: string;
  /** The payment as `GET /payments/{id}` returns it, without metadata, webhookUrl, webhookSecretSource, paymentLink, merchant. */
  data: Record<string, unknown> & { id: string; status: string };
}

export interface WebhookReceiverOptions {
  secret: string;
  /** Your business logic; runs once per `event_id`, after the 200 was sent. */
  onEvent: (event: PayrailWebhookEvent) => void | Promise<void>;
  /** Where seen `event_id`s are kept (default: an in-memory Set, see above). */
  seen?: { has(eventId: string): boolean; add(eventId: string): unknown };
  /** Payrail's events are a few KiB; anything much larger is not one. */
  maxBodyBytes?: number;
  onError?: (err: unknown) => void;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Reads the whole body as bytes, or null when it exceeds `limit`. */
async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function isEvent(value: unknown): value is PayrailWebhookEvent {
  const event = value as Partial<PayrailWebhookEvent> | null;
  return typeof event?.event_id === 'string' && typeof event.type === 'string' && typeof event.data === 'object' && event.data !== null;
}

/** The request handler; mount it on any Node HTTP(S) server. */
export function webhookReceiver(options: WebhookReceiverOptions): RequestListener {
  const seen = options.seen ?? new Set<string>();
  const onError = options.onError ?? ((err: unknown) => console.error('webhook handler failed', err));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return reply(res, 405, { error: 'method_not_allowed' });
    const rawBody = await readRawBody(req, options.maxBodyBytes ?? 1024 * 1024);
    if (!rawBody) return reply(res, 413, { error: 'payload_too_large' });

    const verified = verifyWebhook({
      rawBody,
      timestampHeader: req.headers[TIMESTAMP_HEADER],
      signatureHeader: req.headers[SIGNATURE_HEADER],
      secret: options.secret,
    });
    if (!verified.ok) return reply(res, 401, { error: verified.error });

    // Only a verified body is parsed.
    let event: unknown;
    try {
      event = JSON.parse(rawBody.toString('utf8'));
    } catch {
      return reply(res, 400, { error: 'invalid_body' });
    }
    if (!isEvent(event)) return reply(res, 400, { error: 'invalid_body' });

    if (seen.has(event.event_id)) return reply(res, 200, { received: true, duplicate: true });
    seen.add(event.event_id);
    // Answer first, work afterwards: a slow handler must not make the delivery time out.
    reply(res, 200, { received: true });
    setImmediate(() => {
      Promise.resolve()
        .then(() => options.onEvent(event))
        .catch(onError);
    });
  }

  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      onError(err);
      if (!res.headersSent) reply(res, 500, { error: 'internal_error' });
    });
  };
}

if (require.main === module) {
  const secret = process.env.PAYRAIL_WEBHOOK_SECRET;
  if (!secret) throw new Error('set PAYRAIL_WEBHOOK_SECRET to the webhookSecret of your app');
  const handler = webhookReceiver({
    secret,
    onEvent: (event) => console.log(`${event.type} for payment ${event.data.id} (${event.data.status}), event ${event.event_id}`),
  });
  const { TLS_CERT_FILE: cert, TLS_KEY_FILE: key } = process.env;
  const server = cert && key ? createHttpsServer({ cert: readFileSync(cert), key: readFileSync(key) }, handler) : createHttpServer(handler);
  const port = Number(process.env.PORT ?? 8443);
  server.listen(port, () => console.log(`listening on ${cert && key ? 'https' : 'http'}://0.0.0.0:${port}`));
}
