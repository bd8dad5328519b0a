import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message the sink received, as its HTTP API returns it. */
export interface SinkMessage {
  id: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  receivedAt: string;
}

export interface MailSink {
  /** What the API's `SMTP_URL` points at. */
  smtpUrl: string;
  /** `GET <url>/messages?to=<address>` lists what arrived for that address, oldest first. */
  url: string;
  stop(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * The dev stack's local mail server: accepts any mail on 127.0.0.1 without auth or TLS, keeps the last
 * `maxMessages` in memory and serves them as JSON, so developers and tests can read login codes. Port 0 lets
 * the system pick a free port (tests).
 */
export async function startMailSink(options: { smtpPort: number; httpPort: number; maxMessages?: number }): Promise<MailSink> {
  const host = '127.0.0.1';
  const maxMessages = options.maxMessages ?? 500;
  const messages: SinkMessage[] = [];

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    size: MAX_MESSAGE_BYTES,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(new Error('message too large'));
        const { subject, text } = parseMessage(Buffer.concat(chunks));
        const { mailFrom, rcptTo } = session.envelope;
        messages.push({
          id: randomUUID(),
          from: mailFrom ? mailFrom.address : '',
          to: rcptTo.map((r) => r.address),
          subject,
          text,
          receivedAt: new Date().toISOString(),
        });
        messages.splice(0, Math.max(0, messages.length - maxMessages));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(options.smtpPort, host, () => resolve());
  });

  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${host}`);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' || url.pathname !== '/messages') return send(404, { error: 'not_found', message: 'GET /messages?to=<address>' });
    const to = url.searchParams.get('to')?.toLowerCase();
    send(200, to ? messages.filter((m) => m.to.some((r) => r.toLowerCase() === to)) : messages);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.httpPort, host, () => resolve());
    });
  } catch (err) {
    smtp.close();
    throw err;
  }

  const portOf = (server: { address(): AddressInfo | string | null }) => (server.address() as AddressInfo).port;
  return {
    smtpUrl: `smtp://${host}:${portOf(smtp.server)}`,
    url: `http://${host}:${portOf(http)}`,
    async stop() {
      const httpClosed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await Promise.all([httpClosed, new Promise<void>((resolve) => smtp.close(() => resolve()))]);
    },
  };
}

/**
 * Reads the subject and the text of a single-part RFC 822 message, decoding RFC 2047 encoded words and a
 * quoted-printable or base64 body. Payrail only sends UTF-8 text/plain; other messages keep their raw body.
 */
export function parseMessage(raw: Buffer): { subject: string; text: string } {
  // latin1 maps each byte to one char, so byte-level decoding (quoted-printable) stays exact.
  const source = raw.toString('latin1');
  const split = /\r?\n\r?\n/.exec(source);
  const head = split ? source.slice(0, split.index) : source;
  const body = split ? source.slice(split.index + split[0].length) : '';
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    if (colon > 0 && !headers.has(name)) headers.set(name, Buffer.from(line.slice(colon + 1).trim(), 'latin1').toString('utf8'));
  }
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  const bytes =
    encoding === 'quoted-printable' ? decodeQuotedPrintable(body) : encoding === 'base64' ? Buffer.from(body, 'base64') : Buffer.from(body, 'latin1');
  return {
    subject: decodeEncodedWords(headers.get('subject') ?? ''),
    text: bytes.toString('utf8').replace(/\r\n/g, '\n'),
  };
}

function decodeQuotedPrintable(body: string): Buffer {
  const unwrapped = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < unwrapped.length; i++) {
    const hex = unwrapped.slice(i + 1, i + 3);
    if (unwrapped[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(unwrapped.charCodeAt(i));
    }
  }
  return Buffer.from(bytes);
}

/** `=?UTF-8?Q?…?=` / `=?UTF-8?B?…?=` words; whitespace between two adjacent encoded words is dropped (RFC 2047). */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/(\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_, charset: string, kind: string, data: string) => {
      const bytes = kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : decodeQuotedPrintable(data.replace(/_/g, ' '));
      try {
        return new TextDecoder(charset).decode(bytes);
      } catch {
        return bytes.toString('utf8');
      }
    });
}
