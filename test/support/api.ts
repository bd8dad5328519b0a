import type { PaymentResource } from '../../api/serializers/payment';
import type { PaymentStatus } from '../../domain/payment';
import { request } from './http';
import { eventually } from './poll';

export function paymentBody(overrides: { orderId?: string | null; chainId?: string; tokenSymbol?: string; amount?: string } = {}) {
  return {
    type: 'exactIn',
    ...(overrides.orderId === undefined ? {} : { orderId: overrides.orderId }),
    display: { name: 'Test order', description: 'end-to-end test', currency: 'USD' },
    source: { chainId: overrides.chainId ?? '42161', tokenSymbol: overrides.tokenSymbol ?? 'USDC', amount: overrides.amount ?? '10' },
  };
}

/**
 * Creates a payment as a merchant's client does: a 503 (no deposit address ready yet on a chain whose pool the worker
 * is still filling) is tried again each second, for up to a minute.
 */
export async function createPayment(paymentApiUrl: string, apiKey: string, body: unknown): Promise<PaymentResource> {
  for (const until = Date.now() + 60_000; ; ) {
    const res = await request<PaymentResource>(paymentApiUrl, { headers: { 'x-api-key': apiKey }, body });
    if (res.status === 201) return res.body;
    if (res.status !== 503 || Date.now() > until) throw new Error(`create payment: HTTP ${res.status} ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** `GET /payments/{id}`; with the owning app's key the merchant's fields are filled in, without it they are null. */
export async function getPayment(paymentApiUrl: string, id: string, apiKey?: string): Promise<PaymentResource> {
  const res = await request<PaymentResource>(`${paymentApiUrl}/payments/${id}`, { headers: apiKey ? { 'x-api-key': apiKey } : {} });
  if (res.status !== 200) throw new Error(`get payment ${id}: HTTP ${res.status} ${res.text}`);
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
  const payment = await eventually(() => `payment ${id} to reach ${status} (statuses seen: ${seen.join(' → ') || 'none'})`, timeoutMs, async () => {
    const current = await getPayment(paymentApiUrl, id);
    if (seen[seen.length - 1] !== current.status) seen.push(current.status);
    return current.status === status ? current : undefined;
  });
  return { payment, seen };
}
