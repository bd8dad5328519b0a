import { setTimeout as delay } from 'node:timers/promises';
import type { PaymentResource } from '../../api/serializers/payment';
import type { PaymentStatus } from '../../workflows/types';

export interface HttpResult<T = unknown> {
  status: number;
  body: T;
}

/** A JSON request against a running API; the body is parsed whatever the status. */
export async function request<T = unknown>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
): Promise<HttpResult<T>> {
  const hasBody = init.body !== undefined || init.rawBody !== undefined;
  const res = await fetch(url, {
    method: init.method ?? (hasBody ? 'POST' : 'GET'),
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Non-JSON bodies stay text so a test can assert on them.
  }
  return { status: res.status, body: body as T };
}

export function paymentBody(overrides: { orderId?: string | null; chainId?: string; tokenSymbol?: string; amount?: string } = {}) {
  return {
    type: 'exactIn',
    ...(overrides.orderId === undefined ? {} : { orderId: overrides.orderId }),
    display: { name: 'Test order', description: 'end-to-end test', currency: 'USD' },
    source: { chainId: overrides.chainId ?? '42161', tokenSymbol: overrides.tokenSymbol ?? 'USDC', amount: overrides.amount ?? '10' },
  };
}

export async function createPayment(paymentApiUrl: string, apiKey: string, body: unknown): Promise<PaymentResource> {
  const res = await request<PaymentResource>(paymentApiUrl, { headers: { 'x-api-key': apiKey }, body });
  if (res.status !== 201) throw new Error(`create payment: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function getPayment(paymentApiUrl: string, id: string): Promise<PaymentResource> {
  const res = await request<PaymentResource>(`${paymentApiUrl}/payments/${id}`);
  if (res.status !== 200) throw new Error(`get payment ${id}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Polls `GET /payments/{id}` until the payment reaches `status`; returns the payment and every status seen on
 * the way, so tests can assert on the path as well as the end.
 */
export async function waitForStatus(
  paymentApiUrl: string,
  id: string,
  status: PaymentStatus,
  timeoutMs = 60_000,
): Promise<{ payment: PaymentResource; seen: PaymentStatus[] }> {
  const seen: PaymentStatus[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const payment = await getPayment(paymentApiUrl, id);
    if (seen[seen.length - 1] !== payment.status) seen.push(payment.status);
    if (payment.status === status) return { payment, seen };
    if (Date.now() > deadline) throw new Error(`payment ${id} did not reach ${status}; statuses seen: ${seen.join(' → ')}`);
    await delay(200);
  }
}
