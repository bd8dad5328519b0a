import { FetchRequest, type FetchCancelSignal, type GetUrlResponse } from 'ethers';

/**
 * Every ethers request of the process goes through Node's fetch. ethers' own Node client copies the whole body
 * received so far for every chunk that arrives, which is quadratic in the response: one `eth_getLogs` answering a
 * busy range (100,000 transfers, about 60 MB) took minutes of CPU and stalled the event loop. fetch collects the
 * body once. Registered through ethers' own extension point (`FetchRequest.registerGetUrl`).
 */
async function getUrlWithFetch(req: FetchRequest, signal?: FetchCancelSignal): Promise<GetUrlResponse> {
  const abort = new AbortController();
  signal?.addListener(() => abort.abort());
  const timer = setTimeout(() => abort.abort(), req.timeout);
  try {
    // A copy of the (small) request body, typed as fetch takes it.
    const body = req.body ? new Uint8Array(req.body) : undefined;
    const res = await fetch(req.url, { method: req.method, headers: req.headers, body, signal: abort.signal });
    const received = new Uint8Array(await res.arrayBuffer());
    return { statusCode: res.status, statusMessage: res.statusText, headers: Object.fromEntries(res.headers), body: received.length > 0 ? received : null };
  } finally {
    clearTimeout(timer);
  }
}

FetchRequest.registerGetUrl(getUrlWithFetch);
