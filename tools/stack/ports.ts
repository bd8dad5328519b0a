/**
 * Ports for processes that cannot bind port 0 and report the one they got. Everything that can (the API, the mail
 * sink, the devnets, the Iris stand-in) binds port 0 instead: a probed port can be taken before its process binds it.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports this process handed out: a stack reserves some before it starts what binds them. */
const handedOut = new Set<number>();

const LOWEST_PORT = 16_384;
/** Temporal's schema keeps membership ports in a SMALLINT. */
const SMALLINT_MAX = 32_767;
const ATTEMPTS = 500;

/**
 * Where the kernel's ephemeral range starts: the local ports it gives outgoing connections (and `listen(0)`).
 * Linux says it in procfs (32768 by default); other systems start theirs higher.
 */
function ephemeralRangeStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (start !== undefined && Number.isInteger(start) && start > LOWEST_PORT) return start;
  } catch {
    // Not Linux: only SMALLINT_MAX bounds the range.
  }
  return Number.POSITIVE_INFINITY;
}

const HIGHEST_PORT = Math.min(ephemeralRangeStart() - 1, SMALLINT_MAX);

/**
 * Returns a TCP port that was free on 127.0.0.1 a moment ago and that this process has not handed out before (a
 * port reserved for a worker's metrics must not be picked again for the Temporal server's internal services before
 * the worker binds it).
 *
 * The port is picked below the kernel's ephemeral range. A stack reserves its ports first and binds some of them
 * only after it has opened many connections (PostgreSQL, Temporal, the devnets), and the kernel gives each outgoing
 * connection a local port from that range: a reserved port taken that way cannot be listened on (a worker once
 * failed to start with "Address already in use"). The ports are also at most 32767, the most a SMALLINT holds,
 * which is where Temporal's schema keeps its membership ports. Another process may still bind the port before the
 * caller does.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = randomInt(LOWEST_PORT, HIGHEST_PORT + 1);
    if (handedOut.has(port) || !(await isFree(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${LOWEST_PORT} and ${HIGHEST_PORT} after ${ATTEMPTS} attempts`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** How many ports a start that finds its port taken tries in all. */
const START_ATTEMPTS = 5;

/**
 * Starts a process on `port`, or (0) on one `freePort` picks: for processes that cannot bind port 0 and report the
 * port they got (PostgreSQL, the Temporal CLI's dev server). Another process may take a picked port between the
 * probe and the bind, so a start that fails because the address is in use is tried again on another port.
 */
export async function startOnPort<T>(port: number, start: (port: number) => Promise<T>): Promise<T> {
  if (port !== 0) return start(port);
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (attempt >= START_ATTEMPTS || !isAddressInUse(err)) throw err;
    }
  }
}

/** A start that failed because its port was taken (the message carries the process's own log lines). */
const isAddressInUse = (err: unknown): boolean => /address already in use|EADDRINUSE/i.test(err instanceof Error ? `${err.message}\n${String(err.cause)}` : String(err));
