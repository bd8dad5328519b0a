/**
 * Webhook test fixtures: a local HTTPS receiver with its own CA, and the webhook settings of test merchants
 * (test/support/merchant.ts).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { generate } from 'selfsigned';
import type { MerchantAppRow, WebhookDeliveryRow } from '../../db/tables';
import { issueDeveloperToken } from '../../lib/developer-tokens';
import type { Stack } from '../../tools/stack/stack';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

/**
 * How the receiver answers, by the first segment of the path: `/ok/…` 200, `/fail/…` 500 with a 300-character
 * body, `/hang/…` never, `/redirect/…` 302 to `/ok/redirected…` on the same server.
 */
export const OK_RESPONSE = '{"received":true}';
export const FAIL_RESPONSE = `{"error":"${'x'.repeat(300)}"}`;

export interface TestReceiver {
  /** `https://127.0.0.1:<port>/<behaviour>/<tag>` */
  url(behaviour: 'ok' | 'fail' | 'hang' | 'redirect', tag: string): string;
  /** Every request received so far on that path. */
  received(url: string): ReceivedRequest[];
  /** The TLS server names (SNI) clients asked for, in order. */
  serverNames: string[];
  /** PEM file of the CA that issued the receiver's certificate (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
  close(): Promise<void>;
}

/** An HTTPS receiver for 127.0.0.1 and localhost, its certificate issued by a throwaway CA. */
export async function startTestReceiver(): Promise<TestReceiver> {
  const ca = await generate([{ name: 'commonName', value: 'Payrail test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const caFile = path.join(await mkdtemp(path.join(tmpdir(), 'payrail-webhook-ca-')), 'ca.pem');
  await writeFile(caFile, ca.cert);

  const requests: ReceivedRequest[] = [];
  const serverNames: string[] = [];
  const tls = {
    key: leaf.private,
    cert: leaf.cert,
    SNICallback: (name: string, done: (err: Error | null) => void) => {
      serverNames.push(name);
      done(null); // keeps the certificate above
    },
  };
  const server: Server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '/';
      requests.push({ method: req.method ?? '', path: url, headers: req.headers, rawBody: Buffer.concat(chunks) });
      const behaviour = url.split('/')[1];
      if (behaviour === 'ok') res.writeHead(200, { 'content-type': 'application/json' }).end(OK_RESPONSE);
      else if (behaviour === 'fail') res.writeHead(500, { 'content-type': 'application/json' }).end(FAIL_RESPONSE);
      else if (behaviour === 'redirect') res.writeHead(302, { location: `${origin}/ok/redirected${url.slice('/redirect'.length)}` }).end();
      else if (behaviour !== 'hang') res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (behaviour, tag) => `${origin}/${behaviour}/${tag}`,
    received: (url) => requests.filter((r) => `${origin}${r.path}` === url),
    serverNames,
    caFile,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

export async function setWebhookUrl(knex: Knex, appId: string, webhookUrl: string | null): Promise<void> {
  await knex<MerchantAppRow>('merchant_apps').where({ app_id: appId }).update({ webhook_url: webhookUrl });
}

/** The payment's delivery rows by event type. */
export async function deliveriesOf(knex: Knex, paymentId: string): Promise<Partial<Record<WebhookDeliveryRow['event_type'], WebhookDeliveryRow>>> {
  const rows = await knex<WebhookDeliveryRow>('webhook_deliveries').where({ payment_id: paymentId });
  return Object.fromEntries(rows.map((row) => [row.event_type, row]));
}

/** A dashboard session for the developer, as `POST /auth/token` would issue it. */
export async function developerToken(stack: Stack, developerId: string): Promise<string> {
  return (await issueDeveloperToken(stack.env.PAYRAIL_JWT_SECRET!, developerId)).token;
}
