import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { SinkMessage } from '../../tools/stack/mail-sink';
import { assertErrorEnvelope } from '../api/helpers';
import { request, type HttpResult } from '../support/http';
import { sinkMessages } from '../support/mail';
import { awayFromWindowEnd, eventually } from '../support/poll';

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A fresh address per call, so tests never share login codes or per-e-mail rate limits. */
export const uniqueEmail = (tag: string) => `${tag}-${randomBytes(5).toString('hex')}@merchant.test`;

/** A client IP of its own per call (sent as X-Forwarded-For to APIs that trust one proxy hop). */
export const uniqueClientIp = () => `198.18.${randomBytes(1)[0]}.${randomBytes(1)[0]! % 254 + 1}`;

/** Asks `api` for a login code for `email` (from `headers`' client) and reads it from the mail sink; `loginId` goes with it. */
export async function requestLoginCode(
  merchantApiUrl: string,
  mailSinkUrl: string,
  email: string,
  headers: Record<string, string> = {},
): Promise<{ code: string; loginId: string; mail: SinkMessage }> {
  const before = (await sinkMessages(mailSinkUrl, email)).length;
  const res = await request<{ loginId: string }>(`${merchantApiUrl}/auth/login-code`, { headers, body: { email } });
  assert.equal(res.status, 202, res.text);
  const mail = await eventually('the login code e-mail', 10_000, async () => (await sinkMessages(mailSinkUrl, email))[before]);
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  assert.ok(code, `a 6-digit code in ${JSON.stringify(mail.text)}`);
  return { code, loginId: res.body.loginId, mail };
}

export interface Session {
  email: string;
  token: string;
  developerId: string;
}

/** The whole dashboard login: code by e-mail, read from the sink, traded for a token. */
export async function login(merchantApiUrl: string, mailSinkUrl: string, email = uniqueEmail('dev')): Promise<Session> {
  const { code, loginId } = await requestLoginCode(merchantApiUrl, mailSinkUrl, email);
  const res = await request(`${merchantApiUrl}/auth/token`, { body: { email, code, loginId } });
  assert.equal(res.status, 200, res.text);
  const body = res.body as { token: string; developerId: string };
  return { email, token: body.token, developerId: body.developerId };
}

export interface RegisteredApp {
  developerId: string;
  appId: string;
  name: string;
  webhookUrl: string;
  webhookSecret: string;
  webhookSecretFingerprint: string;
  webhookSecretRotatedAt: string;
  payout: { chainId: string; tokenSymbol: string; address: string };
}

export function registerBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `Test shop ${randomBytes(3).toString('hex')}`,
    webhookUrl: 'https://127.0.0.1:9443/payrail',
    payout: { chainId: '8453', tokenSymbol: 'USDC', address: '0x000000000000000000000000000000000000dEaD' },
    ...overrides,
  };
}

export async function register(
  merchantApiUrl: string,
  token: string,
  body: Record<string, unknown> = registerBody(),
  headers: Record<string, string> = {},
): Promise<RegisteredApp> {
  const res = await request(`${merchantApiUrl}/register`, { headers: { ...bearer(token), ...headers }, body });
  assert.equal(res.status, 201, res.text);
  return res.body as RegisteredApp;
}

export async function createKey(merchantApiUrl: string, token: string, appId: string, body: Record<string, unknown> = {}): Promise<{ id: string; key: string; scope: string }> {
  const res = await request(`${merchantApiUrl}/apps/${appId}/keys`, { headers: bearer(token), body });
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; key: string; scope: string };
}

export function assertRateLimited(res: HttpResult, label: string): void {
  assert.equal(res.status, 429, `${label}: ${res.text}`);
  assert.equal(assertErrorEnvelope(res, label).error, 'rate_limited', label);
  assert.match(res.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/, `${label}: Retry-After is a positive number of seconds`);
}

/**
 * Burst tests count in windows of a day, aligned on UTC midnight; a burst straddling midnight would start
 * counting again halfway. Waits that moment out.
 */
export async function awayFromDayBoundary(): Promise<void> {
  await awayFromWindowEnd(86_400_000, 30_000);
}
