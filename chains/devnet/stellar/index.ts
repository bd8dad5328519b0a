import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { StellarDevnetInfo } from './network';

export type { StellarDevnetInfo, StellarKeys } from './network';

export interface StellarDevnetOptions {
  /** 0 lets the OS choose; the chosen port is in horizonUrl. */
  port: number;
  /** Accounts, trustlines and history persist here across restarts; without it, every start is a fresh network. */
  stateFile?: string;
  /** Ledger close interval; a submitted transaction is answered once the next ledger applies it. Default 1000. */
  ledgerTimeMs?: number;
  /** Where the devnet's log lines go (appended); without it, they are discarded. */
  logFile?: string;
}

export interface StellarDevnet extends StellarDevnetInfo {
  /** Stops the process (it saves its state first) and waits for it to exit; safe to call more than once. */
  stop(): Promise<void>;
}

const REPO_ROOT = resolve(__dirname, '../../..');
const SERVER = join(__dirname, 'server.ts');
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;
const LOG_TAIL_CHARS = 4_000;

/** Starts the Stellar devnet (Horizon's API over an in-memory ledger) as a child process. */
export async function startStellarDevnet(opts: StellarDevnetOptions): Promise<StellarDevnet> {
  const args = [SERVER, '--port', String(opts.port), '--ledger-time-ms', String(opts.ledgerTimeMs ?? 1000)];
  if (opts.stateFile !== undefined) args.push('--state-file', resolve(opts.stateFile));
  // stdin is the child's lifeline: it exits when the pipe closes, however this process dies.
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  if (opts.logFile !== undefined) mkdirSync(dirname(opts.logFile), { recursive: true });
  const log = opts.logFile === undefined ? undefined : createWriteStream(opts.logFile, { flags: 'a' });
  let tail = '';
  child.stderr.on('data', (chunk: Buffer) => {
    log?.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
  });
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
      process.off('exit', kill);
      await new Promise<void>((r) => (log ? log.end(() => r()) : r()));
    })();
    return stopping;
  };

  const lines = createInterface({ input: child.stdout });
  try {
    const info = await new Promise<StellarDevnetInfo>((resolveReady, reject) => {
      const fail = (message: string) => {
        clearTimeout(timer);
        reject(new Error(`${message}\n--- stellar devnet output (tail) ---\n${tail}`));
      };
      const timer = setTimeout(() => fail(`stellar devnet did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      void exited.then(() => fail(`stellar devnet exited during startup (code ${child.exitCode}, signal ${child.signalCode})`));
      lines.once('line', (line) => {
        clearTimeout(timer);
        try {
          resolveReady(JSON.parse(line) as StellarDevnetInfo);
        } catch {
          fail(`stellar devnet printed an unexpected first line: ${line}`);
        }
      });
    });
    return { ...info, stop };
  } catch (err) {
    await stop();
    throw err;
  } finally {
    lines.close();
  }
}
