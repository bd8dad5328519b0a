import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { InterfaceAbi } from 'ethers';

export interface CompiledContract {
  abi: InterfaceAbi;
  /** 0x-prefixed creation bytecode. */
  bytecode: string;
}
export type CompiledContracts = Record<string, CompiledContract>;

const REPO_ROOT = resolve(__dirname, '../../..');
const CONTRACTS_DIR = join(__dirname, 'contracts');
const CACHE_DIR = join(REPO_ROOT, 'var', 'cache');

const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  // Paris (no PUSH0) runs on hardhat's default hardfork and on any L2, whatever its upgrade schedule.
  evmVersion: 'paris',
  // Without the metadata hash, comment-only edits leave bytecode, and so CREATE2 deposit addresses, unchanged.
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: InterfaceAbi; evm: { bytecode: { object: string } } }>>;
}

/** Compiles every contract in tools/devnets/evm/contracts, reusing var/cache when sources, settings and solc are unchanged. */
export function compileContracts(): CompiledContracts {
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith('.sol')).sort()) {
    sources[file] = { content: readFileSync(join(CONTRACTS_DIR, file), 'utf8') };
  }
  // The package version pins the bundled soljson, and reading it avoids loading the compiler on a cache hit.
  const solcVersion = (JSON.parse(readFileSync(require.resolve('solc/package.json'), 'utf8')) as { version: string }).version;
  const hash = createHash('sha256').update(JSON.stringify({ solcVersion, SETTINGS, sources })).digest('hex').slice(0, 16);
  const cacheFile = join(CACHE_DIR, `contracts-${hash}.json`);
  try {
    return JSON.parse(readFileSync(cacheFile, 'utf8')) as CompiledContracts;
  } catch {
    // Cache miss: compile below.
  }

  // Loaded lazily: soljson is large and only needed on a cache miss.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as { compile(input: string): string };
  const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS }))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`Solidity compilation failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }

  const compiled: CompiledContracts = {};
  for (const contracts of Object.values(output.contracts ?? {})) {
    for (const [name, { abi, evm }] of Object.entries(contracts)) {
      // Interfaces and abstract contracts have no bytecode and nothing to deploy.
      if (evm.bytecode.object === '') continue;
      if (compiled[name]) throw new Error(`two contracts are named ${name}`);
      compiled[name] = { abi, bytecode: `0x${evm.bytecode.object}` };
    }
  }

  mkdirSync(CACHE_DIR, { recursive: true });
  // Write then rename so concurrent starts never read a half-written cache file.
  const tmpFile = `${cacheFile}.${process.pid}.tmp`;
  writeFileSync(tmpFile, JSON.stringify(compiled));
  renameSync(tmpFile, cacheFile);
  return compiled;
}
