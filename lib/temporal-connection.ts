import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { Connection, type TLSConfig } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Logger } from './logger';

/**
 * A Temporal frontend that requires mTLS: the CA its certificate is signed by, and this process's client certificate
 * and key (PEM files), with the name its certificate is checked against when that is not the address's host.
 */
export interface TemporalTls {
  caFile: string;
  certFile: string;
  keyFile: string;
  serverName?: string;
}

/** Where a process reaches Temporal: the frontend's host:port, over mTLS when `tls` is set. */
export interface TemporalEndpoint {
  address: string;
  tls?: TemporalTls;
}

/** The SDK's TLS options for `tls` (the files read now), or undefined for a plaintext frontend (the dev server). */
export function temporalTlsOptions(tls: TemporalTls | undefined): TLSConfig | undefined {
  if (!tls) return undefined;
  return {
    serverRootCACertificate: readFileSync(tls.caFile),
    clientCertPair: { crt: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) },
    serverNameOverride: tls.serverName,
  };
}

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
export function connectClient(endpoint: TemporalEndpoint, log: Logger): Promise<Connection> {
  const tls = temporalTlsOptions(endpoint.tls);
  return untilReachable(async () => {
    // Not Connection.connect(): it leaks the gRPC channel when the first call fails.
    const connection = Connection.lazy({ address: endpoint.address, tls, connectTimeout: 5_000 });
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
export function connectWorker(endpoint: TemporalEndpoint, log: Logger): Promise<NativeConnection> {
  const tls = temporalTlsOptions(endpoint.tls);
  return untilReachable(() => NativeConnection.connect({ address: endpoint.address, tls }), log);
}
