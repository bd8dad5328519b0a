import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as it reaches a front: its path and its body. */
export interface FrontRequest {
  path: string;
  body: string;
}

/** An answer a front gives itself instead of relaying the request. */
export interface FrontAnswer {
  status: number;
  body: string;
}

/**
 * A node's RPC endpoint behind a front that relays every request to it, after `intercept` saw it: `intercept`
 * answers a request itself (a node that is away), or does something first (the chain moving between two calls of
 * a client) and lets it through by returning undefined.
 */
export class RpcFront {
  private server?: Server;

  constructor(
    private readonly target: string,
    private readonly intercept: (request: FrontRequest) => FrontAnswer | undefined | Promise<FrontAnswer | undefined>,
  ) {}

  /** Listens on a free port; the URL to use instead of the target's. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      void this.relay(req).then(
        ({ status, body }) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(body);
        },
        (err: unknown) => {
          res.writeHead(502);
          res.end(String(err));
        },
      );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const target = new URL(this.target);
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${target.pathname === '/' ? '' : target.pathname}`;
  }

  private async relay(req: IncomingMessage): Promise<FrontAnswer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://front');
    const own = await this.intercept({ path: url.pathname, body });
    if (own) return own;
    const target = new URL(this.target);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)).map(([name, value]) => [name, String(value)]));
    const res = await fetch(`${target.origin}${url.pathname}${url.search}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : body });
    return { status: res.status, body: await res.text() };
  }

  stop(): void {
    this.server?.closeAllConnections();
    this.server?.close();
  }
}
