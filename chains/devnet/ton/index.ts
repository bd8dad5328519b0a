// Starts the TON devnet (./server.ts) as a child process and hands back what clients need to use it.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export interface TonDevnetOptions {
  /** 0 lets the OS pick a free port; the chosen one is in `port` and `endpoint`. */
  port: number;
  /** Where the chain is saved on stop and restored from on start; without it every start is a fresh genesis. */
  stateFile?: string;
  /** Masterchain block interval; the sandbox clock follows the blocks. Default 1000. */
  blockTimeMs?: number;
  /** Where the devnet's log goes; without it, it is discarded. */
  logFile?: string;
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
const REPO_ROOT = resolve(__dirname, '../../..');
const START_TIMEOUT_MS = 60_000;
/** Saving a large state takes a moment; after this the process is killed. */
const STOP_TIMEOUT_MS = 30_000;
const LOG_TAIL_CHARS = 4_000;

export async function startTonDevnet(opts: TonDevnetOptions): Promise<TonDevnet> {
  const args = ['--import', 'tsx', SERVER, '--port', String(opts.port), '--block-time-ms', String(opts.blockTimeMs ?? 1000), '--exit-with-stdin'];
  if (opts.stateFile !== undefined) args.push('--state-file', opts.stateFile);
  // stdin is the child's lifeline: it exits when the pipe closes, so it never outlives this process.
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const log = opts.logFile === undefined ? undefined : createWriteStream(opts.logFile, { flags: 'a' });
  let tail = '';
  const record = (text: string): void => {
    log?.write(text);
    tail = (tail + text).slice(-LOG_TAIL_CHARS);
  };
  child.stderr.on('data', (chunk: Buffer) => record(chunk.toString('utf8')));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));

  const info = await new Promise<TonDevnetInfo>((ready, fail) => {
    const failure = (message: string): Error => new Error(`${message}\n--- TON devnet output (tail) ---\n${tail}`);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(failure(`TON devnet did not start within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    createInterface({ input: child.stdout }).on('line', (line) => {
      record(`${line}\n`);
      try {
        const parsed = JSON.parse(line) as { tonDevnet?: TonDevnetInfo };
        if (parsed.tonDevnet) {
          clearTimeout(timer);
          ready(parsed.tonDevnet);
        }
      } catch {
        // Not the ready line.
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(failure(`TON devnet exited during startup (code ${String(code)}, signal ${String(signal)})`));
    });
  });

  let stopping: Promise<void> | undefined;
  return {
    ...info,
    stop: () => {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(killer);
        await new Promise<void>((done) => (log ? log.end(done) : done()));
      })();
      return stopping;
    },
  };
}
