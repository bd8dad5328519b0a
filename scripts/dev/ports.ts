import { createServer } from 'node:net';

/**
 * Returns a TCP port that was free on 127.0.0.1 a moment ago. Another process may grab it before the
 * caller binds it; callers that need certainty must retry on EADDRINUSE.
 */
export async function freePort(): Promise<number> {
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
