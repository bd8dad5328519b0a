import type { Knex } from 'knex';
import { DomainError } from '../domain/errors';
import { callbackBody } from '../domain/order-resource';
import type { OrderStatus } from '../domain/orders';
import { findOrderById, insertCallbackAttempt } from '../db/queries/orders';
import { findMerchantApp } from '../db/queries/merchants';
import { findPaymentById } from '../db/queries/payments';
import type { SecretBox } from '../lib/secrets';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, webhookSignature } from '../lib/webhooks/verify';
import { postJson, type PostResult } from '../lib/http-client';
import { UrlRefused, vetUrl } from '../lib/url-policy';
import { withDisplayedDeposit, type ChainAdapters } from './chains';
import { orderPaymentUrl } from './orders';

export interface CallbackServiceDeps {
  knex: Knex;
  /** The chains, whose families say how a callback shows the deposit address (as the API does). */
  chains: Pick<ChainAdapters, 'registry'>;
  publicBaseUrl: string;
  /** Opens the app's sealed webhook secret, which signs callbacks; without it callbacks go unsigned. */
  secrets?: SecretBox;
  /**
   * Development and tests only: callbacks may target loopback and private addresses, and plain `http://`.
   * Otherwise a callback goes to `https://` on a public address or nowhere.
   */
  allowPrivateCallbackTargets: boolean;
  /** Bound on one callback's whole HTTP exchange. */
  callbackTimeoutMs: number;
}

export type CallbackOutcome =
  | { delivered: true; statusCode: number }
  /** `final`: the URL may never be called (policy), so trying again cannot help. */
  | { delivered: false; final: boolean; reason: string };

/**
 * The webhook signature headers (spec 6.1: HMAC-SHA256 over `timestamp.body` with the app's webhook secret), so a
 * merchant verifies callbacks exactly like webhooks; none when the app has no secret (apps made outside the
 * dashboard) or this process cannot open it.
 */
async function signature(deps: Pick<CallbackServiceDeps, 'knex' | 'secrets'>, appId: string, body: string): Promise<Record<string, string>> {
  const sealed = (await findMerchantApp({ knex: deps.knex, appId }))?.webhook_secret_ciphertext;
  if (!sealed || !deps.secrets) return {};
  const timestamp = String(Date.now());
  return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: webhookSignature(deps.secrets.open(sealed), timestamp, body) };
}

/** The order's merchant_token in the clear, to send; a worker without PAYRAIL_SECRETS_KEY can't, and says so. */
function openMerchantToken(deps: Pick<CallbackServiceDeps, 'secrets'>, sealed: string | null): string | null {
  if (sealed === null) return null;
  if (!deps.secrets) throw new Error('PAYRAIL_SECRETS_KEY is not configured on this worker: the merchant_token cannot be opened');
  return deps.secrets.open(sealed);
}

/**
 * One attempt to deliver a legacy order callback (spec 6.2) to `callback_url`, logged with its status code, time
 * and the start of the answer whatever happens. Delivered means the merchant answered 2xx.
 */
export async function deliverOrderCallback(
  deps: CallbackServiceDeps,
  input: { orderId: string; callbackId: string; status: OrderStatus; attempt: number },
): Promise<CallbackOutcome> {
  const { knex } = deps;
  const order = await findOrderById({ knex, id: input.orderId });
  if (!order) throw new DomainError('not_found', `order ${input.orderId} does not exist`);
  if (!order.callback_url) return { delivered: false, final: true, reason: `order ${order.id} has no callback_url` };
  const payment = order.payment_id ? await findPaymentById({ knex, id: order.payment_id }) : null;
  const body = JSON.stringify(
    callbackBody({
      order,
      payment: payment && withDisplayedDeposit(deps.chains.registry, payment),
      paymentUrl: orderPaymentUrl(deps.publicBaseUrl, order.id),
      callbackId: input.callbackId,
      status: input.status,
      merchantToken: openMerchantToken(deps, order.merchant_token_sealed),
    }),
  );
  const attemptedAt = new Date();
  let result: PostResult;
  let refused = false;
  try {
    const dev = deps.allowPrivateCallbackTargets;
    const target = await vetUrl(order.callback_url, { schemes: dev ? ['http:', 'https:'] : ['https:'], allowPrivateNetworks: dev, label: 'callback_url' });
    result = await postJson({
      target,
      body,
      timeoutMs: deps.callbackTimeoutMs,
      headers: { 'user-agent': 'Payrail-Callback/1', 'x-payrail-callback-id': input.callbackId, ...(await signature(deps, order.app_id, body)) },
    });
  } catch (err) {
    if (!(err instanceof UrlRefused)) throw err;
    refused = true;
    result = { statusCode: null, responsePreview: null, error: err.message };
  }
  await insertCallbackAttempt({
    knex,
    attempt: {
      order_id: order.id,
      callback_id: input.callbackId,
      order_status: input.status,
      attempt: input.attempt,
      url: order.callback_url,
      status_code: result.statusCode,
      error: result.error,
      response_preview: result.responsePreview,
      duration_ms: Date.now() - attemptedAt.getTime(),
      attempted_at: attemptedAt,
    },
  });
  if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) return { delivered: true, statusCode: result.statusCode };
  const what = result.statusCode !== null ? `answered HTTP ${result.statusCode}` : `failed: ${result.error}`;
  return { delivered: false, final: refused, reason: `callback attempt ${input.attempt} for order ${order.id} ${what}` };
}
