import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { FetchRequest, type FetchCancelSignal, type GetUrlResponse } from 'ethers';

/** Per URL protocol, its client and the kept-alive connections to the nodes, shared by every request of the process. */
const transports = {
  'http:': { request: http.request, agent: new http.Agent({ keepAlive: true }) },
  'https:': { request: https.request, agent: new https.Agent({ keepAlive: true }) },
};

/** A kept-alive connection the node closed as it was being reused: the request never reached the node. */
class ClosedConnection extends Error {}
const CLOSED_CODES = new Set(['ECONNRESET', 'EPIPE']);

const gunzipAsync = promisify(gunzip);

/**
 * Every ethers request of the process goes through `post` below, on Node's `http` with kept-alive connections.
 * - Not ethers' own Node client: it copies the whole body received so far for every chunk that arrives, which is
 *   quadratic in the response. One `eth_getLogs` answering a busy range (100,000 transfers, about 60 MB) took
 *   minutes of CPU and stalled the event loop. This one collects the chunks and joins them once.
 * - Not Node's `fetch` either: its WHATWG streams cost about 350 µs of CPU per small JSON-RPC call against
 *   60–130 µs here (measured on 16 concurrent calls to a local server); a worker settling a burst of payments
 *   spent a tenth of its main thread in `fetch` (docs/scaling.md).
 * Registered through ethers' own extension point (`FetchRequest.registerGetUrl`).
 *
 * A request whose kept-alive connection the node closed is sent once more on a new one, outside the pool: a node
 * that timed out idle connections closed every pooled one, and the next pooled one would be closed too. JSON-RPC
 * reads are idempotent, and so is re-sending a signed transaction (the node knows it by its hash).
 */
async function getUrl(req: FetchRequest, signal?: FetchCancelSignal): Promise<GetUrlResponse> {
  const abort = new AbortController();
  signal?.addListener(() => abort.abort());
  const timer = setTimeout(() => abort.abort(), req.timeout);
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await post(req, abort.signal, attempt === 1);
      } catch (err) {
        if (attempt >= 2 || !(err instanceof ClosedConnection)) throw err;
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

function post(req: FetchRequest, signal: AbortSignal, pooled: boolean): Promise<GetUrlResponse> {
  const url = new URL(req.url);
  const transport = transports[url.protocol as keyof typeof transports];
  if (!transport) return Promise.reject(new Error(`unsupported JSON-RPC URL protocol: ${url.protocol}`));
  const body = req.body ? Buffer.from(req.body) : undefined;
  return new Promise<GetUrlResponse>((resolve, reject) => {
    const request = transport.request(url, {
      method: req.method,
      headers: { ...req.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      agent: pooled ? transport.agent : false,
      signal,
    });
    request.once('error', (err) => reject(request.reusedSocket && !signal.aborted && CLOSED_CODES.has((err as NodeJS.ErrnoException).code ?? '') ? new ClosedConnection(err.message) : err));
    request.once('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => {
        decoded(Buffer.concat(chunks), res.headers['content-encoding']).then((received) => {
          resolve({
            statusCode: res.statusCode ?? 0,
            statusMessage: res.statusMessage ?? '',
            headers: responseHeaders(res.headers),
            body: received.length > 0 ? new Uint8Array(received.buffer, received.byteOffset, received.byteLength) : null,
          });
        }, reject);
      });
    });
    request.end(body);
  });
}

/** ethers asks for gzip (`FetchRequest.allowGzip`, on by default); Node's `http` leaves bodies as sent. */
async function decoded(body: Buffer, encoding: string | undefined): Promise<Buffer> {
  if (encoding === undefined || encoding === 'identity') return body;
  if (encoding === 'gzip') return gunzipAsync(body);
  throw new Error(`JSON-RPC node answered in an encoding not asked for: ${encoding}`);
}

/** ethers reads each header as one string; a repeated one is joined as HTTP joins it. */
function responseHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

FetchRequest.registerGetUrl(getUrl);
