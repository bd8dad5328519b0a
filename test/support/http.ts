/** The one HTTP helper of the test suite: a request to a running server, with everything a test may assert on. */

export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  contentType: string | null;
  /** The raw body. */
  text: string;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  body: T;
}

export async function request<T = unknown>(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    /** Sent as JSON. */
    body?: unknown;
    /** Sent as it is (malformed JSON, other encodings). */
    rawBody?: string | Uint8Array<ArrayBuffer>;
    /** The content type of a body; null sends none. Default `application/json`. */
    contentType?: string | null;
  } = {},
): Promise<HttpResult<T>> {
  const hasBody = init.body !== undefined || init.rawBody !== undefined;
  const headers: Record<string, string> = {};
  if (hasBody && init.contentType !== null) headers['content-type'] = init.contentType ?? 'application/json';
  Object.assign(headers, init.headers);
  const res = await fetch(url, {
    method: init.method ?? (hasBody ? 'POST' : 'GET'),
    headers,
    body: init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Non-JSON bodies stay text so a test can assert on them.
  }
  return { status: res.status, headers: res.headers, contentType: res.headers.get('content-type'), text, body: body as T };
}
