import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { JsonRpcProvider, Network } from 'ethers';
import '../../chains/evm/http';

/** One log, repeated with its own index in each `eth_getLogs` answer. */
const LOG = { address: '0x' + '11'.repeat(20), topics: ['0x' + '22'.repeat(32)], data: '0x' + '33'.repeat(32), blockNumber: '0x1', blockHash: '0x' + '44'.repeat(32), transactionHash: '0x' + '55'.repeat(32), transactionIndex: '0x0', logIndex: '0x0', removed: false };

/**
 * A JSON-RPC node that answers `eth_blockNumber`, and `eth_getLogs` with `logCount` logs; `onRequest` may drop the
 * connection; `gzip` compresses answers for clients that accept it, as public RPC providers do.
 */
async function startNode(opts: { logCount?: number; gzip?: boolean; onRequest?: (socket: Socket, nth: number) => boolean } = {}): Promise<{ url: string; server: Server; connections: Set<Socket> }> {
  const connections = new Set<Socket>();
  const requestsBySocket = new Map<Socket, number>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const nth = (requestsBySocket.get(req.socket) ?? 0) + 1;
    requestsBySocket.set(req.socket, nth);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (opts.onRequest && !opts.onRequest(req.socket, nth)) return;
      const { id, method } = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string };
      const result = method === 'eth_getLogs' ? Array.from({ length: opts.logCount ?? 0 }, (_, i) => ({ ...LOG, logIndex: `0x${i.toString(16)}` })) : '0x2a';
      const answer = JSON.stringify({ jsonrpc: '2.0', id, result });
      if (opts.gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(answer));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer);
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, connections };
}

const providerFor = (url: string) => new JsonRpcProvider(url, Network.from(1), { staticNetwork: true, batchMaxCount: 1 });

describe('EVM JSON-RPC transport (chains/evm/http.ts)', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('carries ethers calls over kept-alive connections', async () => {
    const node = await startNode();
    servers.push(node.server);
    const provider = providerFor(node.url);
    for (let i = 0; i < 5; i++) assert.equal(await provider.send('eth_blockNumber', []), '0x2a');
    assert.equal(node.connections.size, 1, 'sequential calls share one connection');
    provider.destroy();
  });

  it('reads a large answer whole (20,000 logs)', async () => {
    const node = await startNode({ logCount: 20_000 });
    servers.push(node.server);
    const provider = providerFor(node.url);
    const logs = await provider.getLogs({ fromBlock: 1, toBlock: 1 });
    assert.equal(logs.length, 20_000);
    assert.equal(logs[19_999]!.index, 19_999);
    provider.destroy();
  });

  it('reads answers a node sends gzipped (ethers asks for gzip)', async () => {
    const node = await startNode({ gzip: true, logCount: 1_000 });
    servers.push(node.server);
    const provider = providerFor(node.url);
    assert.equal(await provider.send('eth_blockNumber', []), '0x2a');
    assert.equal((await provider.getLogs({ fromBlock: 1, toBlock: 1 })).length, 1_000);
    provider.destroy();
  });

  /** A node on which the second request on any connection finds it closed, as a node that timed out an idle connection would. */
  async function closingNode() {
    let dropped = 0;
    const node = await startNode({
      onRequest: (socket, nth) => {
        if (nth < 2) return true;
        dropped++;
        socket.destroy();
        return false;
      },
    });
    servers.push(node.server);
    return { ...node, dropped: () => dropped };
  }

  it('sends a call once more on a new connection when the node closed the kept-alive one', async () => {
    const node = await closingNode();
    const provider = providerFor(node.url);
    assert.equal(await provider.send('eth_blockNumber', []), '0x2a');
    assert.equal(await provider.send('eth_blockNumber', []), '0x2a');
    assert.equal(node.dropped(), 1);
    provider.destroy();
  });

  it('sends it on a fresh connection when the node closed every kept-alive one (idle timeout)', async () => {
    const node = await closingNode();
    const provider = providerFor(node.url);
    // Three calls at once leave three kept-alive connections in the pool; each closes on its next request.
    assert.deepEqual(await Promise.all([1, 2, 3].map(() => provider.send('eth_blockNumber', []))), ['0x2a', '0x2a', '0x2a']);
    assert.equal(node.connections.size, 3);
    assert.equal(await provider.send('eth_blockNumber', []), '0x2a');
    assert.equal(node.dropped(), 1, 'the retry went out on a new connection, not on another pooled one');
    provider.destroy();
  });
});
