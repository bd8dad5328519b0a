import { useCallback, useEffect, useRef } from 'preact/hooks';

/**
 * What the API answers, typed by the zod schemas the API types its answers by and documents them with
 * (api/schemas, /v1/openapi.json). Type-only: the bundle carries no zod and none of the API.
 */
export type {
  AcceptedPayment,
  CallbackAttemptList,
  DashboardConfig,
  DeliveryPage,
  ListedPayment,
  OrderPage,
  PaymentChanges,
  PaymentDetail,
  PaymentPage,
} from '../../../api/schemas/dashboard';
export type {
  ApiKeyList,
  ApiKeyResource,
  AppList,
  AppResource,
  CreatedApiKey,
  DashboardSession,
  LoginCodeSent,
  MerchantStats,
  RegisteredApp,
  WebhookSecretRotation,
  WebhookTestResult,
} from '../../../api/schemas/merchant';
export type { PaymentData } from '../../../api/schemas/payment-data';

/** The merchant API as the dashboard calls it: same origin, the session cookie, JSON both ways. */
export const API = '/v1/merchant-api';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
  /** The message for one field (e.g. `webhookUrl`), to show next to it. */
  fieldMessage(field: string): string | undefined {
    return this.details.find((d) => d.path === field || d.path.endsWith(`.${field}`))?.message;
  }
}

let onUnauthenticated: () => void = () => undefined;
export const setUnauthenticatedHandler = (handler: () => void) => {
  onUnauthenticated = handler;
};

/** What an aborted request's promise does: it never settles, as whoever asked has moved on to a newer request. */
const abandoned = new Promise<never>(() => undefined);

/**
 * One call of the merchant API. With a `signal`, aborting it cancels the request, and the promise then never
 * settles, also when the answer had arrived already: an answer nobody waits for any more is never delivered.
 */
export async function api<T>(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<T> {
  const { signal } = init;
  let res: Response;
  let body: { error?: string; message?: string; details?: Array<{ path: string; message: string }> };
  try {
    res = await fetch(`${API}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      credentials: 'same-origin',
      headers: { ...init.headers, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal,
    });
    body = res.status === 204 ? {} : ((await res.json().catch(() => ({}))) as typeof body);
  } catch (err) {
    if (signal?.aborted) return abandoned;
    throw err;
  }
  if (signal?.aborted) return abandoned;
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/auth/')) onUnauthenticated();
    throw new ApiFailure(res.status, body.error ?? 'error', body.message ?? `HTTP ${res.status}`, body.details);
  }
  return (res.status === 204 ? undefined : body) as T;
}

/**
 * The signal for a list's newest request. Each call aborts the request the previous signal went to: a newer
 * filter, page or app replaces an older one, whose answer then never reaches the page. Leaving the page aborts
 * the last.
 */
export function useNewestRequest(): () => AbortSignal {
  const current = useRef<AbortController | null>(null);
  useEffect(() => () => current.current?.abort(), []);
  return useCallback(() => {
    current.current?.abort();
    current.current = new AbortController();
    return current.current.signal;
  }, []);
}

/**
 * Asks `read` every `ms` after its last answer (never two at once), the first time at once or after `ms`, until
 * `deps` change or the page goes; the request in flight is aborted then. A failed round is retried the next time.
 */
export function usePolling(read: ((signal: AbortSignal) => Promise<unknown>) | null, ms: number, deps: unknown[], options: { now: boolean }): void {
  useEffect(() => {
    if (!read) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const round = () =>
      void read(controller.signal)
        .catch(() => undefined)
        .then(() => {
          if (!controller.signal.aborted) timer = setTimeout(round, ms);
        });
    if (options.now) round();
    else timer = setTimeout(round, ms);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, deps);
}
