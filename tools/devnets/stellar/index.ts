import { join, resolve } from 'node:path';
import { DevnetProcess, jsonLine } from '../process';
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

const SERVER = join(__dirname, 'server.ts');
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

/** Starts the Stellar devnet (Horizon's API over an in-memory ledger) as a child process. */
export async function startStellarDevnet(opts: StellarDevnetOptions): Promise<StellarDevnet> {
  const args = ['--import', 'tsx', SERVER, '--port', String(opts.port), '--ledger-time-ms', String(opts.ledgerTimeMs ?? 1000)];
  if (opts.stateFile !== undefined) args.push('--state-file', resolve(opts.stateFile));
  const devnet = new DevnetProcess({ name: 'stellar devnet', args, logFile: opts.logFile, stopTimeoutMs: STOP_TIMEOUT_MS });
  const info = await devnet.readyLine(jsonLine((line) => ('horizonUrl' in line ? (line as unknown as StellarDevnetInfo) : undefined)), START_TIMEOUT_MS);
  return { ...info, stop: () => devnet.stop() };
}
