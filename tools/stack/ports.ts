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
