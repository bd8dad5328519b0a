import { join, resolve } from 'node:path';
import { Contract, ContractFactory, FetchRequest, HDNodeWallet, JsonRpcProvider, keccak256, Wallet } from 'ethers';
import '../../../chains/evm/http';
import { compileContracts, type CompiledContracts } from './compile';
import { DevnetProcess } from '../process';

/** `port` 0: any free port, which the node binds and reports. */
export interface DevnetChainSpec { chainId: number; name: string; port: number }
export interface DevnetOptions {
  chains: DevnetChainSpec[];
  /** Interval mining period; transactions are also mined as soon as they arrive. Default 1000. */
  blockTimeMs?: number;
  /** Where each node's output goes (`hardhat-<chainId>.log`); without it, output is discarded. */
  logDir?: string;
}
export interface DevnetToken { address: string; decimals: number }
export interface DevnetChain {
  chainId: number; name: string; rpcUrl: string;
  tokens: { USDC: DevnetToken; USDT: DevnetToken; CUSD: DevnetToken };
  depositFactory: string; forwarderInitCodeHash: string;
  /** TON_USD prices the TON devnet's coin (TON has no on-chain feeds of its own; docs/chains.md). */
  priceFeeds: { ETH_USD: string; TON_USD: string };
  /** A batch sender (several token transfers in one transaction), for tests of multisend payins. */
  multiSend: string;
}
export interface DevnetAccount { address: string; privateKey: string }
export interface Devnet {
  chains: DevnetChain[];
  /** Hardhat account #0: owns the factories and the tokens, holds liquidity. */
  treasury: DevnetAccount;
  /** Hardhat account #1: gas plus 10,000 USDC, 10,000 USDT and 10,000 CUSD on every chain. */
  customer: DevnetAccount;
  /** Hardhat account #2: the demo merchant's payout wallet. */
  merchantPayout: DevnetAccount;
  /** Kills every node and waits for it to exit; safe to call more than once. */
  stop(): Promise<void>;
}

const REPO_ROOT = resolve(__dirname, '../../..');
const HARDHAT_CLI = join(REPO_ROOT, 'node_modules', 'hardhat', 'internal', 'cli', 'cli.js');
const HARDHAT_MNEMONIC = 'test test test test test test test test test test test junk';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;
/** What `hardhat node` prints once it listens, with the address and port it bound. */
const LISTENING_BANNER = /Started HTTP and WebSocket JSON-RPC server at (http:\/\/[^/\s]+)\//;
const USD_DECIMALS = 6;
const CUSD_DECIMALS = 18;

function hardhatAccount(index: number): DevnetAccount {
  const wallet = HDNodeWallet.fromPhrase(HARDHAT_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
  return { address: wallet.address, privateKey: wallet.privateKey };
}

/** A devnet node's JSON-RPC error, with the revert data (0x…) when it reports a reverted call. */
export class RpcError extends Error {
  readonly data: string | undefined;
  constructor(method: string, message: string, data: string | undefined) {
    super(`${method} failed: ${message}`);
    this.data = data;
  }
}

interface RpcErrorBody { message: string; data?: string | { data?: string } }

/**
 * One JSON-RPC call to a devnet node. It goes over Node's `http` with kept-alive connections, as the worker's calls
 * do (`chains/evm/http.ts`): the Tron devnet's front calls its node several times for each Tron request and block,
 * and through `fetch` the two took twice the CPU.
 */
export async function devnetRpc<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const request = new FetchRequest(rpcUrl);
  request.body = { jsonrpc: '2.0', id: 1, method, params };
  const body = (await request.send()).bodyJson as { result?: T; error?: RpcErrorBody };
  if (body.error) {
    const { data } = body.error;
    throw new RpcError(method, body.error.message, typeof data === 'string' ? data : data?.data);
  }
  return body.result as T;
}

/** `hardhat node` on 127.0.0.1 with the repository's devnet config (hardhat.config.js exits when its stdin closes). */
export class HardhatNode {
  private url: string | undefined;
  private readonly process: DevnetProcess;

  constructor(
    readonly spec: DevnetChainSpec,
    opts: { blockTimeMs: number; logFile?: string },
  ) {
    this.process = new DevnetProcess({
      name: `hardhat node for chain ${spec.chainId}`,
      args: [HARDHAT_CLI, 'node', '--config', join(__dirname, 'hardhat.config.js'), '--hostname', '127.0.0.1', '--port', String(spec.port)],
      env: {
        ...process.env,
        DEVNET_CHAIN_ID: String(spec.chainId),
        DEVNET_BLOCK_TIME_MS: String(opts.blockTimeMs),
        DEVNET_LOGGING: String(opts.logFile !== undefined),
        DEVNET_EXIT_WITH_PARENT: 'true',
        // Never prompt, never send telemetry or error reports, never show banners.
        HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
        CI: 'true',
        NO_COLOR: '1',
      },
      logFile: opts.logFile,
      stopTimeoutMs: STOP_TIMEOUT_MS,
    });
  }

  /** A node that is ready (or, when it fails to start, none left running). */
  static async start(spec: DevnetChainSpec, opts: { blockTimeMs: number; logFile?: string }): Promise<HardhatNode> {
    const node = new HardhatNode(spec, opts);
    await node.ready();
    return node;
  }

  /** Where the node serves JSON-RPC, once it is ready. */
  get rpcUrl(): string {
    if (this.url === undefined) throw new Error(`hardhat node for chain ${this.spec.chainId} is not listening yet`);
    return this.url;
  }

  /** Resolves when the node has exited, for whatever reason. */
  get exited(): Promise<void> {
    return this.process.exited;
  }

  /** Resolves once this node (not some stale one on the same port) serves the expected chain id; else stops it. */
  async ready(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    const { chainId } = this.spec;
    this.url = await this.process.readyLine((line) => LISTENING_BANNER.exec(line)?.[1], START_TIMEOUT_MS);
    const port = new URL(this.url).port;
    try {
      for (;;) {
        if (!this.process.running) throw this.process.failure(`hardhat node for chain ${chainId} exited during startup`);
        if (Date.now() > deadline) throw this.process.failure(`hardhat node for chain ${chainId} on port ${port} did not start within ${START_TIMEOUT_MS} ms`);
        const id = await devnetRpc(this.rpcUrl, 'eth_chainId', []).catch(() => undefined);
        if (id !== undefined && Number(id) !== chainId) throw this.process.failure(`port ${port} answers with chain id ${Number(id)}, not ${chainId}`);
        if (id !== undefined) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  stop(): Promise<void> {
    return this.process.stop();
  }
}

async function deployChain(node: HardhatNode, compiled: CompiledContracts, treasury: DevnetAccount, customer: DevnetAccount): Promise<DevnetChain> {
  // ethers caches identical reads for 250 ms by default, which would hand back stale nonces here.
  const provider = new JsonRpcProvider(node.rpcUrl, node.spec.chainId, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1 });
  try {
    const signer = new Wallet(treasury.privateKey, provider);
    // Explicit nonces, each transaction mined before the next, so every fresh start yields the same addresses.
    let nonce = await provider.getTransactionCount(treasury.address, 'pending');
    const artifact = (name: string) => {
      const c = compiled[name];
      if (!c) throw new Error(`contract ${name} was not compiled`);
      return c;
    };
    const deploy = async (name: string, ...args: unknown[]): Promise<string> => {
      const { abi, bytecode } = artifact(name);
      const contract = await new ContractFactory(abi, bytecode, signer).deploy(...args, { nonce: nonce++ });
      await contract.deploymentTransaction()?.wait();
      return contract.getAddress();
    };
    const call = async (name: string, address: string, method: string, ...args: unknown[]): Promise<void> => {
      const fn = new Contract(address, artifact(name).abi, signer).getFunction(method);
      await (await fn.send(...args, { nonce: nonce++ })).wait();
    };

    const depositFactory = await deploy('DepositFactory', treasury.address);
    const usdc = await deploy('TestStablecoin', 'USD Coin', 'USDC', USD_DECIMALS);
    const usdt = await deploy('TestStablecoin', 'Tether USD', 'USDT', USD_DECIMALS);
    const ethUsd = await deploy('MockPriceFeed', 8, 3000n * 10n ** 8n, 'ETH / USD');
    for (const token of [usdc, usdt]) {
      await call('TestStablecoin', token, 'mint', treasury.address, 1_000_000n * 10n ** BigInt(USD_DECIMALS));
      await call('TestStablecoin', token, 'mint', customer.address, 10_000n * 10n ** BigInt(USD_DECIMALS));
    }
    // Celo Dollar (18 decimals, as on Celo) for the legacy CUSD entry; deployed last so the addresses above never move.
    const cusd = await deploy('TestStablecoin', 'Celo Dollar', 'CUSD', CUSD_DECIMALS);
    await call('TestStablecoin', cusd, 'mint', treasury.address, 1_000_000n * 10n ** BigInt(CUSD_DECIMALS));
    await call('TestStablecoin', cusd, 'mint', customer.address, 10_000n * 10n ** BigInt(CUSD_DECIMALS));
    // Deployed after everything above, so none of those addresses moves.
    const multiSend = await deploy('MultiSend');
    const tonUsd = await deploy('MockPriceFeed', 8, 5n * 10n ** 8n, 'TON / USD');
    return {
      chainId: node.spec.chainId,
      name: node.spec.name,
      rpcUrl: node.rpcUrl,
      tokens: {
        USDC: { address: usdc, decimals: USD_DECIMALS },
        USDT: { address: usdt, decimals: USD_DECIMALS },
        CUSD: { address: cusd, decimals: CUSD_DECIMALS },
      },
      depositFactory,
      forwarderInitCodeHash: keccak256(artifact('DepositForwarder').bytecode),
      priceFeeds: { ETH_USD: ethUsd, TON_USD: tonUsd },
      multiSend,
    };
  } finally {
    provider.destroy();
  }
}

/** Starts one hardhat node per chain and deploys the Payrail contracts and test liquidity on each. */
export async function startDevnet(opts: DevnetOptions): Promise<Devnet> {
  const compiled = compileContracts();
  const nodes = opts.chains.map(
    (spec) => new HardhatNode(spec, { blockTimeMs: opts.blockTimeMs ?? 1000, logFile: opts.logDir === undefined ? undefined : join(opts.logDir, `hardhat-${spec.chainId}.log`) }),
  );
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= Promise.all(nodes.map((n) => n.stop())).then(() => undefined);
    return stopping;
  };

  const [treasury, customer, merchantPayout] = [0, 1, 2].map(hardhatAccount) as [DevnetAccount, DevnetAccount, DevnetAccount];
  try {
    await Promise.all(nodes.map((n) => n.ready()));
    const chains = await Promise.all(nodes.map((n) => deployChain(n, compiled, treasury, customer)));
    return { chains, treasury, customer, merchantPayout, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
