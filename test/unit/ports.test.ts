import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from '../../tools/stack/ports';

const listenOn = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve()));
  });

describe('freePort: ports a stack reserves before it binds them', () => {
  it('hands out distinct ports below the ephemeral range and within a SMALLINT, each one free to listen on', async () => {
    const ephemeralStart = existsSync('/proc/sys/net/ipv4/ip_local_port_range')
      ? Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
      : 32_768;
    const ports = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    assert.equal(new Set(ports).size, ports.length);
    for (const port of ports) {
      // Outgoing connections take their local ports from the ephemeral range, so a reserved port there can be lost.
      assert.ok(port < ephemeralStart, `${port} is in the ephemeral range (from ${ephemeralStart})`);
      // Temporal's membership ports are SMALLINTs in its schema.
      assert.ok(port <= 32_767 && port >= 1024, `${port} out of range`);
      await listenOn(port);
    }
  });
});
