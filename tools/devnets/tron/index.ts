// Starts the Tron devnet (tools/devnets/tron/server.ts) as a child process and hands back what a client needs.
// The child exits when this process does, however it dies: its stdin is its lifeline.
import { join } from 'node:path';
import { DevnetProcess } from '../process';

export interface TronDevnetOptions {
  /** Port of the HTTP API (java-tron full/solidity node paths and TronGrid's /v1), on 127.0.0.1; 0 for any free one (`fullHost` names it). */
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
  /** Serve only requests carrying one of these keys in TronGrid's `TRON-PRO-API-KEY` header. Default: every request. */
  apiKeys?: string[];
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
  /** Held by the customer, configured nowhere: another TRC-20 (TrueUSD) and a TRC-10 token. */
  otherAssets: { TUSD: { address: string; decimals: number }; TRC10: { id: string; decimals: number } };
  /** 1,000,000 TRX (less the two mint fees) and 1,000,000 USDT; deployed USDT and minted it. */
  treasury: TronDevnetAccount;
  /** 10,000 TRX, 10,000 USDT, 10,000 TUSD and 1,000,000 of the TRC-10. */
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

export async function startTronDevnet(opts: TronDevnetOptions): Promise<TronDevnet> {
  const args = ['--import', 'tsx', SERVER, '--port', String(opts.port), '--exit-with-parent'];
  if (opts.blockTimeMs !== undefined) args.push('--block-time-ms', String(opts.blockTimeMs));
  if (opts.solidityDepth !== undefined) args.push('--solidity-depth', String(opts.solidityDepth));
  if (opts.contractCallFeeSun !== undefined) args.push('--contract-call-fee-sun', opts.contractCallFeeSun.toString());
  if (opts.hardhatRpcUrl !== undefined) args.push('--hardhat-rpc', opts.hardhatRpcUrl);
  if (opts.logDir !== undefined) args.push('--log-dir', opts.logDir);
  for (const key of opts.apiKeys ?? []) args.push('--api-key', key);
  const logFile = opts.logDir === undefined ? undefined : join(opts.logDir, 'tron-devnet.log');
  const devnet = new DevnetProcess({ name: 'Tron devnet', args, logFile, stopTimeoutMs: STOP_TIMEOUT_MS });
  const ready = await devnet.readyLine(
    (line) => (line.startsWith(READY_MARKER) ? (JSON.parse(line.slice(READY_MARKER.length)) as TronDevnetInfo) : undefined),
    START_TIMEOUT_MS,
  );
  return { ...ready, contractCallFeeSun: BigInt(ready.contractCallFeeSun), stop: () => devnet.stop() };
}
