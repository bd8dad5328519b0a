import type { PaymentStatus } from '../../../domain/payment';

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

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(`${API}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    credentials: 'same-origin',
    headers: init.body === undefined ? {} : { 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (res.status === 204) return undefined as T;
  const body = (await res.json().catch(() => ({}))) as { error?: string; message?: string; details?: Array<{ path: string; message: string }> };
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/auth/')) onUnauthenticated();
    throw new ApiFailure(res.status, body.error ?? 'error', body.message ?? `HTTP ${res.status}`, body.details);
  }
  return body as T;
}

export interface App {
  appId: string;
  name: string;
  developerId: string;
  payout: { chainId: string; tokenSymbol: string; address: string };
  /** Whether payments may be created without an API key (appId in the body), as the hosted page does. */
  keylessPayments: boolean;
  webhookUrl: string | null;
  webhookSecretFingerprint: string | null;
  webhookSecretRotatedAt: string | null;
  createdAt: string;
}

export interface ApiKey {
  id: string;
  name: string | null;
  scope: 'Orders' | 'Admin';
  hint: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface Payment {
  id: string;
  orderId: string | null;
  status: PaymentStatus;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  display: { name: string | null; currency: string | null };
  source: {
    chainId: string;
    tokenSymbol: string;
    amount: string;
    fee: string;
    receiverAddress: string;
    senderAddress: string | null;
    txHash: string | null;
    amountReceived: string | null;
    confirmedAt: string | null;
  };
  destination: { chainId: string; tokenSymbol: string; amount: string; receiverAddress: string; txHash: string | null; confirmedAt: string | null };
}

export interface Delivery {
  deliveryId: string;
  /** Null for a test event. */
  paymentId: string | null;
  eventType: string;
  statusCode: number | null;
  responsePreview: string | null;
  deliveredAt: string | null;
  status: string;
  createdAt?: string;
}

export interface PaymentDetail {
  payment: Payment;
  paymentLink: string;
  timeline: Array<{ status: PaymentStatus; at: string }>;
  links: { payinTx: string | null; payoutTx: string | null; workflow: string | null };
  deliveries: Delivery[];
  /** Transfers of tokens nobody configured into the deposit address: recorded, never counted or refunded. */
  quarantined: Array<{ chainId: string; tokenAddress: string; amountUnits: string; txHash: string; logIndex: number; txLink: string | null; recordedAt: string }>;
}

export interface Stats {
  period: string;
  volumeUsdc: string;
  paymentCount: number;
  avgOrderUsdc: string;
  netToWalletUsdc: string;
  chart: Array<{ date: string; volumeUsdc: string; paymentCount: number }>;
}

export interface DashboardConfig {
  chains: Array<{ chainId: string; name: string; explorerUrl: string | null; tokens: string[] }>;
  temporalUiUrl: string | null;
  devMailSinkUrl: string | null;
  /** Every payment status in lifecycle order, as the API names them (the status filter's choices). */
  paymentStatuses: PaymentStatus[];
}

export interface Session {
  developerId: string;
  email: string;
}
