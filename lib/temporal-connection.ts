import { setTimeout as delay } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Logger } from './logger';

/** How long a starting process waits for the Temporal frontend before giving up. */
const TEMPORAL_REACHABLE_TIMEOUT_MS = 120_000;
const RETRY_DELAY_MS = 1_000;

/**
 * Runs `connect` until it succeeds: a process started while the Temporal server restarts (a deploy, a crash, the
 * chaos suite) waits for it instead of exiting.
 */
async function untilReachable<T>(connect: () => Promise<T>, log: Logger): Promise<T> {
  const deadline = Date.now() + TEMPORAL_REACHABLE_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect();
    } catch (err) {
      if (Date.now() + RETRY_DELAY_MS > deadline) throw err;
      if (attempt === 1) log.warn({ err: String(err) }, 'Temporal not reachable yet; retrying');
    }
    await delay(RETRY_DELAY_MS);
  }
}

/** A client connection, once the frontend answers. */
export function connectClient(address: string, log: Logger): Promise<Connection> {
  return untilReachable(async () => {
    // Not Connection.connect(): it leaks the gRPC channel when the first call fails.
    const connection = Connection.lazy({ address, connectTimeout: 5_000 });
    try {
      await connection.ensureConnected();
      return connection;
    } catch (err) {
      await connection.close();
      throw err;
    }
  }, log);
}

/** A worker's connection, once the frontend answers. */
export function connectWorker(address: string, log: Logger): Promise<NativeConnection> {
  return untilReachable(() => NativeConnection.connect({ address }), log);
}
