import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export interface SolanaDevnetOptions {
  /** 0 lets the OS choose a free port; rpcUrl tells which. */
  port: number;
  /** Accounts, history, slot and blockhash state are loaded from here at start (if present) and saved here at stop. */
  stateFile?: string;
  /** Default 400, as on mainnet. */
  slotTimeMs?: number;
  /** Slots until a transaction is finalized. Default 4. */
  finalityDepth?: number;
  /** Where the devnet's own log goes; without it, only the tail is kept for error messages. */
  logFile?: string;
}
export interface SolanaDevnetToken { address: string; decimals: number; tokenProgram: string }
export interface SolanaDevnetAccount {
  address: string;
  /** 64 bytes: seed then public key, as solana-keygen writes it (kit: createKeyPairSignerFromBytes). */
  secretKey: number[];
}
export interface SolanaDevnet {
  rpcUrl: string;
  /** The websocket subscriptions (same port): kit's createSolanaRpcSubscriptions. */
  wsUrl: string;
  /** USDC: classic SPL Token. PYUSD: Token-2022 with PYUSD's mainnet extensions. */
  mints: { USDC: SolanaDevnetToken; PYUSD: SolanaDevnetToken };
  /** 10,000 SOL, 1,000,000 USDC, 1,000,000 PYUSD at genesis. */
  treasury: SolanaDevnetAccount;
  /** 100 SOL, 10,000 USDC, 10,000 PYUSD at genesis. */
  customer: SolanaDevnetAccount;
  /** Stops the process (it saves its state file first) and waits for it; safe to call more than once. */
  stop(): Promise<void>;
}

const REPO_ROOT = resolve(__dirname, '../../..');
const SERVER = join(__dirname, 'server.ts');
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
const LOG_TAIL_CHARS = 4_000;

type Ready = Omit<SolanaDevnet, 'stop'> & { ready: true };

/** Starts the Solana devnet in a child process and resolves once its RPC answers. */
export async function startSolanaDevnet(opts: SolanaDevnetOptions): Promise<SolanaDevnet> {
  const args = ['--import', 'tsx', SERVER, '--port', String(opts.port)];
  if (opts.stateFile !== undefined) args.push('--state-file', resolve(opts.stateFile));
  if (opts.slotTimeMs !== undefined) args.push('--slot-time-ms', String(opts.slotTimeMs));
  if (opts.finalityDepth !== undefined) args.push('--finality-depth', String(opts.finalityDepth));
  if (opts.stateFile !== undefined) mkdirSync(dirname(resolve(opts.stateFile)), { recursive: true });
  if (opts.logFile !== undefined) mkdirSync(dirname(resolve(opts.logFile)), { recursive: true });

  // stdin is the child's lifeline: it exits when the pipe closes, however this process dies.
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const log = opts.logFile === undefined ? undefined : createWriteStream(opts.logFile, { flags: 'a' });
  let tail = '';
  child.stderr.on('data', (chunk: Buffer) => {
    log?.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
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
      await new Promise<void>((done) => (log === undefined ? done() : log.end(done)));
    })();
    return stopping;
  };

  try {
    const ready = await new Promise<Ready>((resolveReady, reject) => {
      const fail = (why: string): void => reject(new Error(`${why}\n--- solana devnet log (tail) ---\n${tail}`));
      const timer = setTimeout(() => fail(`solana devnet did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
      void exited.then(() => fail(`solana devnet exited during startup (code ${String(child.exitCode)})`));
      createInterface({ input: child.stdout }).on('line', (line) => {
        try {
          const message = JSON.parse(line) as Partial<Ready>;
          if (message.ready !== true) return;
          clearTimeout(timer);
          resolveReady(message as Ready);
        } catch {
          tail = (tail + line + '\n').slice(-LOG_TAIL_CHARS);
        }
      });
    });
    return { rpcUrl: ready.rpcUrl, wsUrl: ready.wsUrl, mints: ready.mints, treasury: ready.treasury, customer: ready.customer, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
