import { createServer } from 'node:net';

/** Ports this process handed out: a stack reserves some before it starts what binds them. */
const handedOut = new Set<number>();

/**
 * Returns a TCP port that was free on 127.0.0.1 a moment ago and that this process has not handed out before (a
 * port reserved for a worker's metrics must not be picked again for the Temporal server's internal services before
 * the worker binds it). Another process may still grab it before the caller binds it; callers that need certainty
 * must retry on EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await osFreePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error(`unexpected server address ${String(address)}`));
        return;
      }
      server.close((err) => (err ? reject(err) : resolve(address.port)));
    });
  });
}
