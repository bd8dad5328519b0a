import { FetchRequest, type FetchCancelSignal, type GetUrlResponse } from 'ethers';

/** undici's errors for a connection the server closed, e.g. a kept-alive one it dropped as it was being reused. */
const CLOSED_CONNECTION_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET']);

const closedConnection = (err: unknown): boolean => {
  const code = ((err as Error).cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && CLOSED_CONNECTION_CODES.has(code);
};

/**
 * Every ethers request of the process goes through Node's fetch. ethers' own Node client copies the whole body
 * received so far for every chunk that arrives, which is quadratic in the response: one `eth_getLogs` answering a
 * busy range (100,000 transfers, about 60 MB) took minutes of CPU and stalled the event loop. fetch collects the
 * body once. Registered through ethers' own extension point (`FetchRequest.registerGetUrl`).
 *
 * A request whose connection the node closed is sent once more on a new one: JSON-RPC reads are idempotent, and
 * so is re-sending a signed transaction (the node knows it by its hash).
 */
async function getUrlWithFetch(req: FetchRequest, signal?: FetchCancelSignal): Promise<GetUrlResponse> {
  const abort = new AbortController();
  signal?.addListener(() => abort.abort());
  const timer = setTimeout(() => abort.abort(), req.timeout);
  // A copy of the (small) request body, typed as fetch takes it.
  const body = req.body ? new Uint8Array(req.body) : undefined;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(req.url, { method: req.method, headers: req.headers, body, signal: abort.signal });
        const received = new Uint8Array(await res.arrayBuffer());
        return { statusCode: res.status, statusMessage: res.statusText, headers: Object.fromEntries(res.headers), body: received.length > 0 ? received : null };
      } catch (err) {
        if (attempt >= 2 || abort.signal.aborted || !closedConnection(err)) throw err;
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

FetchRequest.registerGetUrl(getUrlWithFetch);
