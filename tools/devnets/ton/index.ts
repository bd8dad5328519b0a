// Starts the TON devnet (./server.ts) as a child process and hands back what clients need to use it.
import { join } from 'node:path';
import { DevnetProcess, jsonLine } from '../process';

export interface TonDevnetOptions {
  /** 0 lets the OS pick a free port; the chosen one is in `port` and `endpoint`. */
  port: number;
  /** Where the chain is saved on stop and restored from on start; without it every start is a fresh genesis. */
  stateFile?: string;
  /** Masterchain block interval; the sandbox clock follows the blocks. Default 1000. */
  blockTimeMs?: number;
  /** Where the devnet's log goes; without it, it is discarded. */
  logFile?: string;
  /** Hold requests to toncenter's limits: these keys at their requests a second, keyless ones at 1. Default: no limits. */
  apiKeys?: Record<string, number>;
}

export interface TonDevnetWallet {
  /** User-friendly (bounceable) form. Both are deployed wallet v5r1 (W5) contracts on workchain 0. */
  address: string;
  /** 24 words; fixed, so the address is the same on every start. */
  mnemonic: string[];
}

/** What the devnet process announces on stdout once it serves. */
export interface TonDevnetInfo {
  port: number;
  /** toncenter v2 JSON-RPC URL, what `new TonClient({ endpoint })` takes; REST routes live beside it. */
  endpoint: string;
  /** toncenter v3 base URL; only `GET /accountStates` is served. */
  apiV3: string;
  jettons: { USDT: { master: string; decimals: number } };
  /** Genesis: 1,000,000 TON and 1,000,000 USDT; admin of the USDT minter. */
  treasury: TonDevnetWallet;
  /** Genesis: 10,000 TON and 10,000 USDT. */
  customer: TonDevnetWallet;
}

export interface TonDevnet extends TonDevnetInfo {
  /** Saves the state (with `stateFile`) and waits for the process to exit; safe to call more than once. */
  stop(): Promise<void>;
}

const SERVER = join(__dirname, 'server.ts');
const START_TIMEOUT_MS = 60_000;
/** Saving a large state takes a moment; after this the process is killed. */
const STOP_TIMEOUT_MS = 30_000;

export async function startTonDevnet(opts: TonDevnetOptions): Promise<TonDevnet> {
  const args = ['--import', 'tsx', SERVER, '--port', String(opts.port), '--block-time-ms', String(opts.blockTimeMs ?? 1000), '--exit-with-stdin'];
  if (opts.stateFile !== undefined) args.push('--state-file', opts.stateFile);
  for (const [key, perSecond] of Object.entries(opts.apiKeys ?? {})) args.push('--api-key', `${key}:${perSecond}`);
  const devnet = new DevnetProcess({ name: 'TON devnet', args, logFile: opts.logFile, stopTimeoutMs: STOP_TIMEOUT_MS });
  const info = await devnet.readyLine(jsonLine((line) => line.tonDevnet as TonDevnetInfo | undefined), START_TIMEOUT_MS);
  return { ...info, stop: () => devnet.stop() };
}
