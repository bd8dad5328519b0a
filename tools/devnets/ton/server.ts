// The TON devnet process: @ton/sandbox behind a toncenter-compatible HTTP front. Started by ./index.ts.
//
//   node --import tsx tools/devnets/ton/server.ts [--port 0] [--state-file f] [--block-time-ms 1000] [--exit-with-stdin]
//     [--api-key <key>:<requests a second> …]
//
// With --api-key, requests are held to toncenter's limits: each key to its rate, keyless requests to 1 a second.
// Prints one JSON line `{"tonDevnet": {...}}` on stdout once it serves; logs go to stderr. Saves its state (with
// --state-file) and exits on SIGTERM/SIGINT, and when stdin closes if --exit-with-stdin is given.
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DevnetChain, type SavedChain } from './chain';
import { applyGenesis, devnetAccounts, USDT_DECIMALS } from './genesis';
import type { TonDevnetInfo } from './index';
import { Toncenter } from './toncenter';

/** toncenter's limit without an API key. */
const KEYLESS_REQUESTS_PER_SECOND = 1;

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

async function saveState(chain: DevnetChain, file: string): Promise<void> {
  // Write then rename, so a crash mid-write never leaves a truncated state file.
  const temporary = `${file}.tmp`;
  await writeFile(temporary, JSON.stringify(chain.save()));
  await rename(temporary, file);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      'state-file': { type: 'string' },
      'block-time-ms': { type: 'string', default: '1000' },
      'exit-with-stdin': { type: 'boolean', default: false },
      'api-key': { type: 'string', multiple: true },
    },
  });
  const keys = Object.fromEntries(
    (values['api-key'] ?? []).map((entry) => {
      const [key, rate] = entry.split(':');
      if (!key || !(Number(rate) > 0)) throw new Error(`--api-key ${entry}: expected <key>:<requests a second>`);
      return [key, Number(rate)];
    }),
  );
  const stateFile = values['state-file'];
  const blockTimeMs = Number(values['block-time-ms']);
  if (!Number.isInteger(blockTimeMs) || blockTimeMs <= 0) throw new Error('--block-time-ms must be a positive integer');

  const accounts = await devnetAccounts();
  let chain: DevnetChain;
  if (stateFile !== undefined && existsSync(stateFile)) {
    chain = await DevnetChain.restore(JSON.parse(await readFile(stateFile, 'utf8')) as SavedChain, log);
    log(`restored ${stateFile} at block ${chain.lastBlock.seqno}`);
  } else {
    chain = await DevnetChain.create(log);
    await applyGenesis(chain, accounts);
    log(`genesis done at block ${chain.lastBlock.seqno}`);
  }
  const limits = Object.keys(keys).length > 0 ? { keys, keyless: KEYLESS_REQUESTS_PER_SECOND } : undefined;
  const server = await new Toncenter(chain, limits).listen(Number(values.port), values.host);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the HTTP server has no TCP address');
  chain.start(blockTimeMs);

  let stopping: Promise<void> | undefined;
  const stop = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      log(`stopping (${reason})`);
      await chain.stop();
      server.close();
      server.closeAllConnections();
      if (stateFile !== undefined) await saveState(chain, stateFile);
      log(`stopped at block ${chain.lastBlock.seqno}`);
      process.exit(0);
    })().catch((error: unknown) => {
      log(`stop failed: ${String(error)}`);
      process.exit(1);
    });
    return stopping;
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  if (values['exit-with-stdin']) {
    // The parent holds our stdin: when it dies, however it dies, the pipe closes and we save and leave. Our
    // stdout and stderr are its pipes too, so writes to them may fail from then on; that must not stop the save.
    process.stdout.on('error', () => undefined);
    process.stderr.on('error', () => undefined);
    process.stdin.on('end', () => void stop('stdin closed'));
    process.stdin.on('error', () => void stop('stdin error'));
    process.stdin.resume();
  }

  const base = `http://${values.host}:${address.port}`;
  const tonDevnet: TonDevnetInfo = {
    port: address.port,
    endpoint: `${base}/api/v2/jsonRPC`,
    apiV3: `${base}/api/v3`,
    jettons: { USDT: { master: accounts.usdt.address.toString(), decimals: USDT_DECIMALS } },
    treasury: { address: accounts.treasury.address.toString(), mnemonic: accounts.treasury.mnemonic },
    customer: { address: accounts.customer.address.toString(), mnemonic: accounts.customer.mnemonic },
  };
  process.stdout.write(`${JSON.stringify({ tonDevnet })}\n`);
  log(`serving toncenter v2 at ${tonDevnet.endpoint}, block time ${blockTimeMs} ms`);
}

main().catch((error: unknown) => {
  log(`TON devnet failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exit(1);
});
