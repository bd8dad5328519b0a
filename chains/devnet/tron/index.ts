// Starts the Tron devnet (chains/devnet/tron/server.ts) as a child process and hands back what a client needs.
// The child exits when this process does, however it dies: its stdin is its lifeline.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface TronDevnetOptions {
  /** Port of the HTTP API (java-tron full/solidity node paths and TronGrid's /v1), on 127.0.0.1. */
  port: number;
  /** One block every blockTimeMs (Tron mainnet: 3000). Default 1000. */
  blockTimeMs?: number;
  /** Where the devnet's and its hardhat node's output go (`tron-devnet.log`, `tron-hardhat.log`); else discarded. */
  logDir?: string;
  /** Blocks on top of a block before /walletsolidity reports it (Tron mainnet: 19). Default 3. */
  solidityDepth?: number;
  /** TRX (sun) burned by every contract call in place of energy. Default 6,500,000 (6.5 TRX). */
  contractCallFeeSun?: bigint;
  /** Drive this hardhat node instead of starting one (its state must be fresh; the devnet deploys USDT on it). */
  hardhatRpcUrl?: string;
}

export interface TronDevnetAccount {
  /** Base58 (T…). */
  address: string;
  /** Hex without 0x, as tronweb takes it. */
  privateKey: string;
}

export interface TronDevnet {
  /** The URL tronweb takes as `fullHost` (full node, solidity node and TronGrid paths on one port). */
  fullHost: string;
  /** The hardhat chain id: Tron mainnet's 728126428 (0x2b6653dc). */
  chainId: number;
  tokens: { USDT: { address: string; decimals: number } };
  /** 1,000,000 TRX (less the two mint fees) and 1,000,000 USDT; deployed USDT and minted it. */
  treasury: TronDevnetAccount;
  /** 10,000 TRX and 10,000 USDT. */
  customer: TronDevnetAccount;
  contractCallFeeSun: bigint;
  solidityDepth: number;
  blockTimeMs: number;
  /** Stops the devnet and its hardhat node; safe to call more than once. */
  stop(): Promise<void>;
}

/** What server.ts prints, after READY_MARKER, on the line that says it serves. */
export type TronDevnetInfo = Omit<TronDevnet, 'stop' | 'contractCallFeeSun'> & { contractCallFeeSun: string };
export const READY_MARKER = 'tron devnet ready: ';

const SERVER = join(__dirname, 'server.ts');
// A cold start compiles the contracts with solc before hardhat is even asked for anything.
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 10_000;
const LOG_TAIL_CHARS = 8_000;

export async function startTronDevnet(opts: TronDevnetOptions): Promise<TronDevnet> {
  const args = [SERVER, '--port', String(opts.port), '--exit-with-parent'];
  if (opts.blockTimeMs !== undefined) args.push('--block-time-ms', String(opts.blockTimeMs));
  if (opts.solidityDepth !== undefined) args.push('--solidity-depth', String(opts.solidityDepth));
  if (opts.contractCallFeeSun !== undefined) args.push('--contract-call-fee-sun', opts.contractCallFeeSun.toString());
  if (opts.hardhatRpcUrl !== undefined) args.push('--hardhat-rpc', opts.hardhatRpcUrl);
  if (opts.logDir !== undefined) {
    mkdirSync(opts.logDir, { recursive: true });
    args.push('--log-dir', opts.logDir);
  }
  const log = opts.logDir === undefined ? undefined : createWriteStream(join(opts.logDir, 'tron-devnet.log'));
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  // EPIPE on the lifeline when the child is already gone must not crash us.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.on('exit', kill);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      kill();
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
      child.stdin.end();
      log?.end();
      process.off('exit', kill);
    })();
    return stopping;
  };

  let tail = '';
  let stdoutLine = '';
  const info = new Promise<TronDevnetInfo>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      log?.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
      stdoutLine += chunk.toString('utf8');
      for (let nl = stdoutLine.indexOf('\n'); nl >= 0; nl = stdoutLine.indexOf('\n')) {
        const line = stdoutLine.slice(0, nl);
        stdoutLine = stdoutLine.slice(nl + 1);
        if (line.startsWith(READY_MARKER)) resolve(JSON.parse(line.slice(READY_MARKER.length)) as TronDevnetInfo);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      log?.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
    });
    void exited.then(() => reject(new Error(`the Tron devnet exited during startup\n--- output (tail) ---\n${tail}`)));
    setTimeout(() => reject(new Error(`the Tron devnet did not start within ${START_TIMEOUT_MS} ms\n--- output (tail) ---\n${tail}`)), START_TIMEOUT_MS).unref();
  });
  try {
    const ready = await info;
    return { ...ready, contractCallFeeSun: BigInt(ready.contractCallFeeSun), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
