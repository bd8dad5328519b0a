// The Solana devnet process: litesvm behind a Solana JSON-RPC front (HTTP and websocket) on 127.0.0.1. Started by index.ts; prints one
// JSON line on stdout when ready, exits when its stdin closes (the parent died) or on SIGTERM/SIGINT, saving state
// first when it has a state file.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './accounts';
import { devnetKeys, faucetAirdrop, genesis } from './genesis';
import { Ledger, type LedgerState } from './ledger';
import { PubSub } from './pubsub';
import { createRpcServer, SolanaRpc } from './rpc';

const log = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
};

// The state file is JSON with bigints and byte arrays tagged, so it stays one readable, diffable format.
function encodeState(state: LedgerState): string {
  return JSON.stringify(state, (_key, value: unknown) => {
    if (typeof value === 'bigint') return { $bigint: value.toString() };
    if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
    return value;
  });
}

function decodeState(text: string): LedgerState {
  const state = JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const tagged = value as { $bigint?: string; $bytes?: string };
      if (typeof tagged.$bigint === 'string') return BigInt(tagged.$bigint);
      if (typeof tagged.$bytes === 'string') return new Uint8Array(Buffer.from(tagged.$bytes, 'base64'));
    }
    return value;
  }) as LedgerState;
  if (state.version !== 1) throw new Error(`unsupported state file version ${String(state.version)}`);
  return state;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      'state-file': { type: 'string' },
      'slot-time-ms': { type: 'string', default: '400' },
      'finality-depth': { type: 'string', default: '4' },
    },
  });
  const stateFile = values['state-file'];
  const options = { slotTimeMs: Number(values['slot-time-ms']), finalityDepth: Number(values['finality-depth']) };
  if (!(options.slotTimeMs > 0) || !Number.isInteger(options.finalityDepth) || options.finalityDepth < 1) {
    throw new Error('slot-time-ms must be positive and finality-depth a positive integer');
  }

  const keys = await devnetKeys();
  const restored = stateFile !== undefined && existsSync(stateFile);
  const ledger = restored ? Ledger.restore(decodeState(readFileSync(stateFile, 'utf8')), options) : Ledger.create(options);
  const airdrop = faucetAirdrop(() => rpc, ledger, keys.faucet.signer);
  const rpc = new SolanaRpc(ledger, airdrop);
  if (!restored) await genesis(rpc, ledger, keys, airdrop);
  log(restored ? `restored state from ${stateFile}` : 'fresh genesis');

  const ticker = setInterval(() => ledger.tick(), Math.max(1, Math.floor(options.slotTimeMs / 2)));
  const server = createRpcServer(rpc, log);
  const websockets = new PubSub(ledger, rpc, log).attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(values.port), '127.0.0.1', resolve);
  });

  let stopping = false;
  const shutdown = (why: string): void => {
    if (stopping) return;
    stopping = true;
    clearInterval(ticker);
    for (const socket of websockets.clients) socket.terminate();
    server.close();
    server.closeAllConnections();
    if (stateFile !== undefined) {
      // Write then rename, so a crash mid-write never leaves half a state file.
      writeFileSync(`${stateFile}.tmp`, encodeState(ledger.snapshot()));
      renameSync(`${stateFile}.tmp`, stateFile);
      log(`saved state to ${stateFile}`);
    }
    log(`stopped (${why})`);
    process.exit(0);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.stdin.on('end', () => shutdown('stdin closed'));
  process.stdin.on('error', () => shutdown('stdin error'));
  process.stdin.resume();

  const account = (key: { signer: { address: string }; secretKey: Uint8Array }) => ({ address: key.signer.address, secretKey: [...key.secretKey] });
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({
    ready: true,
    rpcUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    mints: {
      USDC: { address: keys.usdcMint.signer.address, decimals: 6, tokenProgram: TOKEN_PROGRAM },
      PYUSD: { address: keys.pyusdMint.signer.address, decimals: 6, tokenProgram: TOKEN_2022_PROGRAM },
    },
    treasury: account(keys.treasury),
    customer: account(keys.customer),
  })}\n`);
}

main().catch((err: unknown) => {
  log(`failed to start: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});
