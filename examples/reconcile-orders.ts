/**
 * A merchant-side reconciliation job, beside examples/webhook-receiver.ts: it brings your own order table up to
 * date from Payrail, whatever webhooks your endpoint missed.
 *
 *   PAYRAIL_URL=https://payrail.example PAYRAIL_ADMIN_KEY=<Admin key> STATE_FILE=payrail-sync.json npx tsx examples/reconcile-orders.ts
 *
 * Payrail delivers each webhook event at most once and never retries (spec 6.1): when your endpoint is down, the
 * event is logged as `exhausted` and that is all. Run this every few minutes (and after an outage). It:
 *  1. pages through `GET {payment_api_url}?updatedSince=…&cursor=…`: every payment changed since the last run, in
 *     the order of its changes, and hands each to your order table. The cursor it ends on is kept, so the next run
 *     starts exactly there: no change is skipped, and none is read twice, even while payments change during a run;
 *  2. pages through `GET {merchant_api_url}/events?delivered=false`: the webhook events whose one delivery did not
 *     succeed, and runs your event logic for each once (deduplicated on `eventId`, as your receiver deduplicates on
 *     the body's `event_id`).
 *
 * Step 1 alone makes every order's status right; step 2 is for business logic you hang on events (a receipt,
 * a fulfilment). The state and the order table here are JSON files: a sketch. In production they are rows of your
 * database, written in the same transaction as the orders they describe.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** The payment as Payrail lists it (spec 2.1); the fields this job reads. */
export interface ListedPayment {
  id: string;
  orderId: string | null;
  status: string;
  updatedAt: string;
  [field: string]: unknown;
}

/** A webhook event whose delivery did not succeed: its `data` is the payment as the event carried it. */
export interface UndeliveredEvent {
  eventId: string;
  eventType: 'payment_payin_completed' | 'payment_payout_completed';
  paymentId: string;
  createdAt: string;
  data: (Record<string, unknown> & { id: string; status: string }) | null;
  delivery: { status: 'pending' | 'delivered' | 'exhausted'; statusCode: number | null; deliveredAt: string | null; url: string };
}

/** What the job remembers between runs. */
export interface SyncState {
  /** Where the last run's walk through changed payments ended (`nextCursor`). */
  paymentsCursor: string | null;
  /** Events whose logic already ran. */
  handledEvents: string[];
  /** Only events from then on are looked at; set it to when you first ran the job. */
  eventsSince: string;
}

export interface ReconcileOptions {
  /** `{payment_api_url}`, e.g. `https://payrail.example/v1/payment-api`. */
  paymentApiUrl: string;
  /** `{merchant_api_url}`, e.g. `https://payrail.example/v1/merchant-api`. */
  merchantApiUrl: string;
  /** An Admin key of your app: listing events needs one (an Orders key lists payments only). */
  adminKey: string;
  state: SyncState;
  /** Your order table: record the payment's status on its order. */
  applyPayment: (payment: ListedPayment) => void | Promise<void>;
  /** Your logic for an event that was never delivered (runs once per event). */
  onMissedEvent?: (event: UndeliveredEvent) => void | Promise<void>;
  fetch?: typeof fetch;
}

interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** Runs steps 1 and 2 once; returns how many payments and events it handled. The state is updated in place. */
export async function reconcileOrders(options: ReconcileOptions): Promise<{ payments: number; events: number }> {
  const http = options.fetch ?? fetch;
  const get = async <T>(url: string): Promise<Page<T>> => {
    const res = await http(url, { headers: { 'x-api-key': options.adminKey } });
    if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Page<T>;
  };
  const { state } = options;

  // 1. Every payment changed since the last run, oldest change first. The first run starts at the beginning.
  let payments = 0;
  for (let hasMore = true; hasMore; ) {
    const query = new URLSearchParams({ updatedSince: '1970-01-01', limit: '100' });
    if (state.paymentsCursor) query.set('cursor', state.paymentsCursor);
    const page = await get<ListedPayment>(`${options.paymentApiUrl}?${query.toString()}`);
    for (const payment of page.data) await options.applyPayment(payment);
    payments += page.data.length;
    state.paymentsCursor = page.nextCursor;
    hasMore = page.hasMore;
  }

  // 2. Events not delivered, newest first; the logic of each runs once.
  let events = 0;
  const handled = new Set(state.handledEvents);
  let cursor: string | null = null;
  for (let hasMore = true; hasMore; ) {
    const query = new URLSearchParams({ delivered: 'false', since: state.eventsSince, limit: '100' });
    if (cursor) query.set('cursor', cursor);
    const page: Page<UndeliveredEvent> = await get<UndeliveredEvent>(`${options.merchantApiUrl}/events?${query.toString()}`);
    for (const event of page.data) {
      if (handled.has(event.eventId)) continue;
      await options.onMissedEvent?.(event);
      handled.add(event.eventId);
      events += 1;
    }
    cursor = page.nextCursor;
    hasMore = page.hasMore;
  }
  state.handledEvents = [...handled];
  return { payments, events };
}

if (require.main === module) {
  const { PAYRAIL_URL: base, PAYRAIL_ADMIN_KEY: adminKey } = process.env;
  if (!base || !adminKey) throw new Error('set PAYRAIL_URL (e.g. https://payrail.example) and PAYRAIL_ADMIN_KEY');
  const stateFile = process.env.STATE_FILE ?? 'payrail-sync.json';
  const ordersFile = process.env.ORDERS_FILE ?? 'orders.json';
  const readJson = <T>(file: string, fallback: T): T => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as T;
    } catch {
      return fallback;
    }
  };
  const state = readJson<SyncState>(stateFile, { paymentsCursor: null, handledEvents: [], eventsSince: new Date().toISOString() });
  const orders = readJson<Record<string, { paymentId: string; status: string; updatedAt: string }>>(ordersFile, {});
  reconcileOrders({
    paymentApiUrl: `${base}/v1/payment-api`,
    merchantApiUrl: `${base}/v1/merchant-api`,
    adminKey,
    state,
    applyPayment: (p) => {
      if (p.orderId) orders[p.orderId] = { paymentId: p.id, status: p.status, updatedAt: p.updatedAt };
    },
    onMissedEvent: (e) => console.log(`missed ${e.eventType} of payment ${e.paymentId} (delivery ${e.delivery.status})`),
  })
    .then(({ payments, events }) => {
      writeFileSync(ordersFile, JSON.stringify(orders, null, 2));
      writeFileSync(stateFile, JSON.stringify(state, null, 2));
      console.log(`${payments} payment changes applied, ${events} missed events handled`);
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
