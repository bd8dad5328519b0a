import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CompiledContract } from '../evm/compile';

const REPO_ROOT = resolve(__dirname, '../../..');
const NODE_MODULES = join(REPO_ROOT, 'node_modules');
const CONTRACTS_DIR = join(__dirname, 'contracts');
const CACHE_DIR = join(REPO_ROOT, 'var', 'cache');

/** LayerZero's own protocol contracts, compiled from the npm package beside ours. */
const NPM_SOURCES = [
  '@layerzerolabs/lz-evm-protocol-v2/contracts/EndpointV2.sol',
  '@layerzerolabs/lz-evm-protocol-v2/contracts/messagelib/SimpleMessageLib.sol',
];
/** Packages whose Solidity we import; their versions key the cache. */
const SOLIDITY_PACKAGES = [
  '@layerzerolabs/lz-evm-protocol-v2', '@layerzerolabs/oapp-evm', '@layerzerolabs/oft-evm', '@openzeppelin/contracts',
  '@openzeppelin/contracts-v4', 'solc',
];
export const BRIDGE_CONTRACTS = [
  'MessageTransmitterV2', 'TokenMessengerV2', 'TokenMinterV2',
  'EndpointV2', 'SimpleMessageLib', 'DevnetLockOFTAdapter', 'DevnetMintBurnOFTAdapter', 'DevnetOFTMinterBurner',
] as const;
export type BridgeContractName = (typeof BRIDGE_CONTRACTS)[number];

const SETTINGS = {
  // LayerZero's protocol contracts are written for OpenZeppelin 4 (argument-less Ownable), its OApp/OFT for 5.
  remappings: ['@layerzerolabs/lz-evm-protocol-v2/:@openzeppelin/contracts/=@openzeppelin/contracts-v4/'],
  // LayerZero's EndpointV2 only fits under the 24 KiB contract size limit with few optimizer runs.
  optimizer: { enabled: true, runs: 1 },
  // OpenZeppelin 5 uses mcopy (Cancun); hardhat 2's default hardfork has it.
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: CompiledContract['abi']; evm: { bytecode: { object: string } } }>>;
}

function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(NODE_MODULES, name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** solc's import callback: npm paths from node_modules (no remappings needed, the paths are the package names). */
function findImport(path: string): { contents: string } | { error: string } {
  const file = join(NODE_MODULES, path);
  return existsSync(file) ? { contents: readFileSync(file, 'utf8') } : { error: `not found: ${path}` };
}

/**
 * Compiles the devnet bridge contracts (our CCTP v2 implementation, the OFT adapters) together with LayerZero's
 * EndpointV2 and SimpleMessageLib from npm; cached under var/cache like tools/devnets/evm/compile.ts.
 */
export function compileBridgeContracts(): Record<BridgeContractName, CompiledContract> {
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith('.sol')).sort()) {
    sources[file] = { content: readFileSync(join(CONTRACTS_DIR, file), 'utf8') };
  }
  for (const path of NPM_SOURCES) sources[path] = { content: readFileSync(join(NODE_MODULES, path), 'utf8') };
  const versions = SOLIDITY_PACKAGES.map((p) => `${p}@${packageVersion(p)}`);
  const hash = createHash('sha256').update(JSON.stringify({ versions, SETTINGS, sources })).digest('hex').slice(0, 16);
  const cacheFile = join(CACHE_DIR, `bridge-contracts-${hash}.json`);
  try {
    return JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<BridgeContractName, CompiledContract>;
  } catch {
    // Cache miss: compile below.
  }

  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as { compile(input: string, callbacks: { import: typeof findImport }): string };
  const input = JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS });
  const output = JSON.parse(solc.compile(input, { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`Solidity compilation failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);

  const found: Partial<Record<string, CompiledContract>> = {};
  for (const contracts of Object.values(output.contracts ?? {})) {
    for (const [name, { abi, evm }] of Object.entries(contracts)) {
      if (!(BRIDGE_CONTRACTS as readonly string[]).includes(name)) continue;
      if (found[name]) throw new Error(`two contracts are named ${name}`);
      found[name] = { abi, bytecode: `0x${evm.bytecode.object}` };
    }
  }
  const compiled = {} as Record<BridgeContractName, CompiledContract>;
  for (const name of BRIDGE_CONTRACTS) {
    const contract = found[name];
    if (!contract) throw new Error(`contract ${name} was not compiled`);
    compiled[name] = contract;
  }

  mkdirSync(CACHE_DIR, { recursive: true });
  const tmpFile = `${cacheFile}.${process.pid}.tmp`;
  writeFileSync(tmpFile, JSON.stringify(compiled));
  renameSync(tmpFile, cacheFile);
  return compiled;
}
