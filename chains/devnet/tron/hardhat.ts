// The hardhat node behind the Tron front: a JSON-RPC client that keeps revert data, and a child-process starter
// for chains/devnet/hardhat.config.js (devnet.ts keeps its own node class private).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '../../..');
const HARDHAT_CLI = join(REPO_ROOT, 'node_modules', 'hardhat', 'internal', 'cli', 'cli.js');
const HARDHAT_CONFIG = join(REPO_ROOT, 'chains', 'devnet', 'hardhat.config.js');
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;
const LOG_TAIL_CHARS = 4_000;

export class RpcError extends Error {
  /** Revert data (0x…) when the node reports a reverted call. */
  readonly data: string | undefined;
  constructor(method: string, message: string, data: string | undefined) {
    super(`${method} failed: ${message}`);
    this.data = data;
  }
}

interface RpcErrorBody { message: string; data?: string | { data?: string } }

export class EvmRpc {
  constructor(readonly url: string) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: RpcErrorBody };
    if (body.error) {
      const { data } = body.error;
      throw new RpcError(method, body.error.message, typeof data === 'string' ? data : data?.data);
    }
    return body.result as T;
  }
}

export interface HardhatChild {
  rpcUrl: string;
  /** Resolves when the node has exited, for whatever reason. */
  exited: Promise<void>;
  /** Synchronous, for process 'exit' handlers. */
  kill(): void;
  stop(): Promise<void>;
}

/** Starts `hardhat node` on 127.0.0.1:port with the repo's devnet config; it exits when this process dies. */
export async function startHardhat(opts: { port: number; chainId: number; logDir?: string }): Promise<HardhatChild> {
  const rpcUrl = `http://127.0.0.1:${opts.port}`;
  const log: WriteStream | undefined = opts.logDir === undefined ? undefined : createWriteStream(join(opts.logDir, 'tron-hardhat.log'));
  const child: ChildProcess = spawn(
    process.execPath,
    [HARDHAT_CLI, 'node', '--config', HARDHAT_CONFIG, '--hostname', '127.0.0.1', '--port', String(opts.port)],
    {
      cwd: REPO_ROOT,
      // stdin is the child's lifeline: hardhat.config.js exits when it closes.
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DEVNET_CHAIN_ID: String(opts.chainId),
        // The front mines every block itself (see chain.ts), so the config's interval is switched off over RPC.
        DEVNET_BLOCK_TIME_MS: '0',
        DEVNET_LOGGING: String(log !== undefined),
        DEVNET_EXIT_WITH_PARENT: 'true',
        HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
        CI: 'true',
        NO_COLOR: '1',
      },
    },
  );
  let tail = '';
  let listening = false;
  const onOutput = (chunk: Buffer): void => {
    log?.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
    listening ||= tail.includes('Started HTTP and WebSocket JSON-RPC server');
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const kill = (): void => {
    if (running()) child.kill('SIGTERM');
  };
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      kill();
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
      log?.end();
    })();
    return stopping;
  };

  const failure = (message: string): Error => new Error(`${message}\n--- hardhat node output (tail) ---\n${tail}`);
  const rpc = new EvmRpc(rpcUrl);
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    for (;;) {
      if (!running()) throw failure(`hardhat node for chain ${opts.chainId} exited during startup`);
      if (Date.now() > deadline) throw failure(`hardhat node on port ${opts.port} did not start within ${START_TIMEOUT_MS} ms`);
      if (listening) {
        const id = await rpc.call<string>('eth_chainId').catch(() => undefined);
        // Another node could hold the port: only ours answers with our chain id once it has printed its banner.
        if (id !== undefined && Number(id) !== opts.chainId) throw failure(`port ${opts.port} answers with chain id ${Number(id)}`);
        if (id !== undefined) return { rpcUrl, exited, kill, stop };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
}
