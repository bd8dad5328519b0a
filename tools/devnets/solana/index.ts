import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DevnetProcess, jsonLine } from '../process';

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

const SERVER = join(__dirname, 'server.ts');
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

type Ready = Omit<SolanaDevnet, 'stop'> & { ready: true };

/** Starts the Solana devnet in a child process and resolves once its RPC answers. */
export async function startSolanaDevnet(opts: SolanaDevnetOptions): Promise<SolanaDevnet> {
  const args = ['--import', 'tsx', SERVER, '--port', String(opts.port)];
  if (opts.stateFile !== undefined) args.push('--state-file', resolve(opts.stateFile));
  if (opts.slotTimeMs !== undefined) args.push('--slot-time-ms', String(opts.slotTimeMs));
  if (opts.finalityDepth !== undefined) args.push('--finality-depth', String(opts.finalityDepth));
  if (opts.stateFile !== undefined) mkdirSync(dirname(resolve(opts.stateFile)), { recursive: true });

  const devnet = new DevnetProcess({ name: 'solana devnet', args, logFile: opts.logFile, stopTimeoutMs: STOP_TIMEOUT_MS });
  const ready = await devnet.readyLine(jsonLine((message) => (message.ready === true ? (message as Ready) : undefined)), START_TIMEOUT_MS);
  return { rpcUrl: ready.rpcUrl, wsUrl: ready.wsUrl, mints: ready.mints, treasury: ready.treasury, customer: ready.customer, stop: () => devnet.stop() };
}
