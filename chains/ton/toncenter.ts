/**
 * Every request Payrail makes of toncenter, within its documented rate limit: toncenter answers 429 to a key (or,
 * without one, an address) above its plan's requests per second (1 without a key; Free 10, Plus 25, Advanced 100).
 * One pacer per adapter spaces the adapter's requests, the `TonClient`'s and its own v2 and v3 reads alike.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { TonClient } from '@ton/ton';

/**
 * Spaces calls in the order they asked, each `1000 / perSecond` ms and a quarter more after the previous one went:
 * toncenter counts the requests that reach it within a second. Each turn is measured from when the one before it was
 * actually let go, so a late timer or a stalled process never sends turns scheduled apart together; the quarter
 * absorbs a request that reaches toncenter late while the ones after it do not.
 */
export class RequestPacer {
  private readonly intervalMs: number;
  /** The turns given, in order: each settles once its caller may send. */
  private turns: Promise<void> = Promise.resolve();
  private lastGoneAt = -Infinity;

  constructor(perSecond: number) {
    this.intervalMs = (1000 / perSecond) * 1.25;
  }

  /** Resolves when the caller may send its request. */
  turn(): Promise<void> {
    this.turns = this.turns.then(async () => {
      const waitMs = this.lastGoneAt + this.intervalMs - Date.now();
      if (waitMs > 0) await delay(waitMs);
      this.lastGoneAt = Date.now();
    });
    return this.turns;
  }
}

type HttpAdapter = NonNullable<ConstructorParameters<typeof TonClient>[0]['httpAdapter']>;

/** A toncenter request's answer, parsed (toncenter answers JSON, errors included). */
async function read(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
}

/** `fetch`, after the pacer's turn; a 429 (another process shares the key) is sent again after a second, twice at most. */
export async function pacedFetch(pacer: RequestPacer, url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    await pacer.turn();
    const res = await fetch(url, init);
    if (res.status !== 429 || attempt === RATE_LIMITED_RETRIES) return res;
    await delay(1_000);
  }
}

/** Times a request toncenter refused for its rate limit is sent again. */
const RATE_LIMITED_RETRIES = 2;

/** A `TonClient` whose requests (it posts JSON-RPC through axios) take the pacer's turns. */
export function pacedTonClient(pacer: RequestPacer, options: { endpoint: string; apiKey?: string }): TonClient {
  const httpAdapter: HttpAdapter = async (config) => {
    const res = await pacedFetch(pacer, config.url!, {
      method: (config.method ?? 'get').toUpperCase(),
      headers: Object.fromEntries(Object.entries(config.headers ?? {}).map(([name, value]) => [name, String(value)])),
      body: typeof config.data === 'string' ? config.data : config.data === undefined ? undefined : JSON.stringify(config.data),
      signal: config.timeout ? AbortSignal.timeout(config.timeout) : undefined,
    });
    return { data: await read(res), status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers), config, request: null };
  };
  return new TonClient({ ...options, httpAdapter });
}
