import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort, startOnPort } from '../../tools/stack/ports';

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

describe('startOnPort: processes that cannot bind port 0 and report it', () => {
  it('starts again on another free port when the probed one was taken before the process bound it', async () => {
    const tried: number[] = [];
    const started = await startOnPort(0, (port) => {
      tried.push(port);
      // A port taken between the probe and the bind: the process says so in its log, which the start error carries.
      if (tried.length < 3) return Promise.reject(new Error(`exited during start-up:\nlisten tcp 127.0.0.1:${port}: bind: address already in use`));
      return Promise.resolve(port);
    });
    assert.equal(tried.length, 3);
    assert.equal(new Set(tried).size, 3, 'each attempt on a port of its own');
    assert.equal(started, tried[2]);
  });

  it('gives up on any other failure at once, and never moves a port it was given', async () => {
    let calls = 0;
    await assert.rejects(startOnPort(0, () => (calls++, Promise.reject(new Error('initdb failed')))), /initdb failed/);
    assert.equal(calls, 1);
    await assert.rejects(startOnPort(5432, (port) => Promise.reject(new Error(`could not bind to ${port}: Address already in use`))), /5432/);
  });
});
