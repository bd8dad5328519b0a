// The Tron devnet process: `node --import tsx tools/devnets/tron/server.ts --port 8090 [options]`.
// Starts (or is given) a hardhat node, deploys USDT, serves the Tron HTTP API and prints one ready line
// (index.ts's READY_MARKER + JSON) on stdout. Options:
//   --port N                 HTTP port, 0 for any free one (reported in the ready line)   --host H   default 127.0.0.1
//   --block-time-ms N        default 1000                --solidity-depth N        default 3
//   --contract-call-fee-sun N  default 6500000          --hardhat-rpc URL         use this node, start none
//   --log-dir DIR            hardhat output to DIR/tron-hardhat.log
//   --exit-with-parent       exit when stdin closes (index.ts passes it)
//   --api-key KEY            serve only requests carrying TRON-PRO-API-KEY: KEY (repeatable), as TronGrid
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compileContracts } from '../evm/compile';
import { HardhatNode } from '../evm/devnet';
import { createTronApi, type KnownContract } from './api';
import { TronChain } from './chain';
import { toBase58, type TronHex } from './codec';
import { EvmRpc } from './hardhat';
import { READY_MARKER, type TronDevnetInfo } from './index';
import { setupDevnet, TRON_CHAIN_ID, USDT_DECIMALS } from './setup';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    'block-time-ms': { type: 'string', default: '1000' },
    'solidity-depth': { type: 'string', default: '3' },
    'contract-call-fee-sun': { type: 'string', default: '6500000' },
    'hardhat-rpc': { type: 'string' },
    'log-dir': { type: 'string' },
    'exit-with-parent': { type: 'boolean', default: false },
    'api-key': { type: 'string', multiple: true },
  },
});

function integerOption(name: keyof typeof values, min: number): number {
  const value = Number(values[name]);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`--${name} must be an integer >= ${min}`);
  return value;
}

let hardhat: HardhatNode | undefined;
let chain: TronChain | undefined;
let server: Server | undefined;
let shuttingDown = false;

async function shutdown(code: number): Promise<never> {
  if (!shuttingDown) {
    shuttingDown = true;
    await chain?.stop();
    server?.closeAllConnections();
    server?.close();
    await hardhat?.stop();
  }
  process.exit(code);
}

async function main(): Promise<void> {
  const port = integerOption('port', 0);
  const blockTimeMs = integerOption('block-time-ms', 10);
  const solidityDepth = integerOption('solidity-depth', 0);
  const contractCallFeeSun = BigInt(integerOption('contract-call-fee-sun', 0));
  // solc blocks the event loop for seconds on a cache miss: compile before any connection to hardhat is open.
  const stablecoin = compileContracts().TestStablecoin;
  if (!stablecoin) throw new Error('TestStablecoin was not compiled');
  const logDir = values['log-dir'];

  let rpcUrl = values['hardhat-rpc'];
  if (rpcUrl === undefined) {
    // The front mines every block itself (see chain.ts): the node's interval mining is off.
    const child = await HardhatNode.start(
      { chainId: TRON_CHAIN_ID, name: 'Tron', port: 0 },
      { blockTimeMs: 0, logFile: logDir === undefined ? undefined : join(logDir, 'tron-hardhat.log') },
    );
    hardhat = child;
    void child.exited.then(() => {
      if (shuttingDown) return;
      process.stderr.write('tron devnet: the hardhat node exited; stopping\n');
      void shutdown(1);
    });
    rpcUrl = child.rpcUrl;
  }
  const rpc = new EvmRpc(rpcUrl);
  const chainId = Number(await rpc.call<string>('eth_chainId'));
  if (chainId !== TRON_CHAIN_ID) throw new Error(`${rpcUrl} serves chain ${chainId}, not ${TRON_CHAIN_ID}`);

  chain = new TronChain(rpc, { blockTimeMs, solidityDepth, contractCallFeeSun });
  await chain.init();
  const contracts = new Map<TronHex, KnownContract>();
  const state = await setupDevnet(chain, stablecoin, contracts);

  const apiKeys = values['api-key'] ? new Set(values['api-key']) : undefined;
  const http = createServer(createTronApi({ chain, contracts, apiKeys }));
  server = http;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, values.host, resolve);
  });
  chain.start();

  const info: TronDevnetInfo = {
    fullHost: `http://${values.host}:${(http.address() as AddressInfo).port}`,
    chainId,
    tokens: { USDT: { address: toBase58(state.usdt), decimals: USDT_DECIMALS } },
    otherAssets: state.otherAssets,
    treasury: state.treasury,
    customer: state.customer,
    contractCallFeeSun: contractCallFeeSun.toString(),
    solidityDepth,
    blockTimeMs,
  };
  process.stdout.write(`${READY_MARKER}${JSON.stringify(info)}\n`);
}

if (values['exit-with-parent']) {
  // The parent holds the only write end of our stdin: EOF means it stopped us or died.
  process.stdin.on('end', () => void shutdown(0));
  process.stdin.on('error', () => void shutdown(0));
  process.stdin.resume();
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(0));

main().catch((err: unknown) => {
  process.stderr.write(`tron devnet failed to start: ${(err as Error).stack ?? String(err)}\n`);
  void shutdown(1);
});
