/**
 * What `npm start` (tools/stack/start.ts) and `npm run stack:prod` (tools/prod/start.ts) share: ports moved by env,
 * the developer's environment, and running until Ctrl-C.
 */

import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { DEVNET_FAMILIES, type DevnetPorts } from '../devnets/families';

/** The developer stack's data directory: `PAYRAIL_VAR_DIR`, else `var`. */
export const devVarDir = () => path.resolve(process.env.PAYRAIL_VAR_DIR ?? 'var');

/** Where a stack keeps what `DevStackInfo` (tools/stack/stack.ts) holds: `<varDir>/dev-stack.json`. */
export const devStackInfoFile = (varDir: string) => path.join(varDir, 'dev-stack.json');

/** A port from `name` in the environment, else `fallback`; anything but a port number is refused by name. */
export function envPort(name: string, fallback: number): number {
  return parsePort(name, process.env[name] ?? String(fallback));
}

/** A comma-separated list of ports from `name` in the environment, else `fallback`. */
export function envPorts(name: string, fallback: number[]): number[] {
  const value = process.env[name];
  return value === undefined ? fallback : value.split(',').map((p) => parsePort(name, p.trim()));
}

function parsePort(name: string, text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new Error(`${name}=${text} is not a port number (0–65535)`);
  return port;
}

/** The ports of the infrastructure and devnets both stacks run, each movable by env (each devnet names its own). */
export function infrastructurePorts() {
  const devnets: DevnetPorts = Object.fromEntries(DEVNET_FAMILIES.map((family) => [family.family, family.ports.map((p) => envPort(p.env, p.fallback))]));
  return {
    postgres: envPort('POSTGRES_PORT', 54329),
    temporal: envPort('TEMPORAL_PORT', 7233),
    temporalUi: envPort('TEMPORAL_UI_PORT', 8233),
    devnets,
    mailSink: { smtp: envPort('MAIL_SINK_SMTP_PORT', 2525), http: envPort('MAIL_SINK_HTTP_PORT', 8025) },
  };
}

/** The devnets' block time (`DEVNET_BLOCK_TIME_MS`). */
export const envBlockTimeMs = () => envPort('DEVNET_BLOCK_TIME_MS', 1000);

/** The environment a stack on a developer's machine runs with: their webhook receiver runs on the same machine. */
export const developerEnv = (): NodeJS.ProcessEnv => ({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...process.env });

/**
 * Starts a stack, prints what `describe` says of it, and stops it on Ctrl-C (or SIGTERM); a start that fails
 * exits 1. `label` prefixes the lines it prints.
 *
 * The handlers are installed before the start: a component started meanwhile may install its own (the Temporal
 * Runtime shuts its workers down on SIGINT, and nothing more), which left a Ctrl-C during the start to that one
 * alone, so it took a second press. A Ctrl-C during the start exits at once: every service started so far is
 * supervised (`dev/supervise.ts`) and stops when this process ends.
 */
export function runUntilStopped<S extends { stop(): Promise<void> }>(label: string, start: () => Promise<S>, describe: (stack: S, seconds: string) => string): void {
  const started = Date.now();
  let running: S | undefined;
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    if (!running) {
      console.log(`\n[${label}] start interrupted; stopping…`);
      process.exit(128 + osConstants.signals[signal]);
    }
    console.log(`\n[${label}] stopping…`);
    void running.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  Promise.resolve().then(start).then(
    (stack) => {
      running = stack;
      console.log(describe(stack, ((Date.now() - started) / 1000).toFixed(1)));
    },
    (err: unknown) => {
      console.error(`[${label}] failed to start:`, err);
      process.exit(1);
    },
  );
}
