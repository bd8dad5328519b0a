// The Stellar devnet process: Horizon's API over an in-memory ledger that closes every --ledger-time-ms.
// Prints one JSON line (StellarDevnetInfo) on stdout once it serves; logs go to stderr. Exits, saving
// --state-file first, on SIGTERM/SIGINT or when stdin closes (so it never outlives the process that started it).
// Run alone: `npx tsx tools/devnets/stellar/server.ts --port 8000 --state-file var/stellar.json`.
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createHorizonServer } from './horizon';
import { StellarLedger } from './ledger';
import { describeDevnet, NETWORK_PASSPHRASE } from './network';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'state-file': { type: 'string' },
    'ledger-time-ms': { type: 'string', default: '1000' },
  },
});
const port = Number(values.port);
const ledgerTimeMs = Number(values['ledger-time-ms']);
const stateFile = values['state-file'];
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a TCP port, got ${values.port}`);
if (!Number.isInteger(ledgerTimeMs) || ledgerTimeMs < 10) throw new Error(`--ledger-time-ms must be an integer >= 10, got ${values['ledger-time-ms']}`);

const log = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
};

const ledger = StellarLedger.open(NETWORK_PASSPHRASE, stateFile);
const save = (): void => {
  if (stateFile !== undefined) ledger.save(stateFile);
};
// A fresh network is written at once, so a crash before the first payment still restarts on the same accounts.
save();
const server = createHorizonServer(ledger, log);
const timer = setInterval(() => {
  const closed = ledger.closeLedger();
  if (closed.txCount > 0) save();
}, ledgerTimeMs);

let stopping = false;
const shutdown = (reason: string): void => {
  if (stopping) return;
  stopping = true;
  log(`stopping (${reason}) at ledger ${ledger.latestLedger.seq}`);
  clearInterval(timer);
  server.close();
  server.closeAllConnections();
  save();
  process.exit(0);
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
process.stdin.on('end', () => shutdown('stdin closed'));
process.stdin.on('error', () => shutdown('stdin error'));
process.stdin.resume();

server.listen(port, '127.0.0.1', () => {
  const { port: actual } = server.address() as AddressInfo;
  log(`horizon on http://127.0.0.1:${actual}, ledger ${ledger.latestLedger.seq}, ${ledgerTimeMs} ms ledgers${stateFile ? `, state in ${stateFile}` : ''}`);
  process.stdout.write(`${JSON.stringify(describeDevnet(`http://127.0.0.1:${actual}`))}\n`);
});
