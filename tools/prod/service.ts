/**
 * One Payrail process of the production topology (an API or a worker) in its own OS process, with its own log
 * file, under tools/stack/supervise.ts (it cannot outlive us). Started means ready: its /readyz answered 200.
 * kill() sends a signal to exactly that process (a chaos test's kill -9); start() brings it back.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { supervise, type SupervisedProcess } from '../stack/supervise';

const REPO_ROOT = path.resolve(__dirname, '../..');
// A cold start compiles TypeScript (tsx) and, for a worker, bundles the workflows with webpack: slow on 2 busy cores.
const READY_TIMEOUT_MS = 180_000;
/** SIGTERM first: the API drains in-flight requests, a worker its activities (WORKER_SHUTDOWN_GRACE_SECONDS). */
const STOP_GRACE_MS = 20_000;

/**
 * The node arguments that run a TypeScript entry point (an absolute path) of the checkout at `root` as Payrail's
 * processes run: tsx in the main thread only (lib/tsx-main-thread.mjs says why).
 */
export function typeScriptEntryArgs(entryPath: string, root = REPO_ROOT): string[] {
  return ['--import', path.join(root, 'lib/tsx-main-thread.mjs'), entryPath];
}

export interface ServiceOptions {
  name: string;
  /** Entry point relative to the repository, run with tsx in its main thread (`api/server.ts`, `workers/main.ts`; lib/tsx-main-thread.mjs). */
  entry: string;
  env: NodeJS.ProcessEnv;
  /** Where /livez and /readyz answer. */
  healthUrl: string;
  /** Where Prometheus scrapes it (the API: a port of its own; a worker: its health port). */
  metricsUrl?: string;
  logFile: string;
  /** Holds the pid of the running process (the log file's path with `.pid`). */
  pidFile?: string;
  /** The checkout the entry point runs from (default: this one); tools/production-install-check.ts runs another. */
  root?: string;
}

export class Service {
  private proc: SupervisedProcess | undefined;
  private readonly pidFile: string;

  constructor(readonly options: ServiceOptions) {
    this.pidFile = options.pidFile ?? options.logFile.replace(/\.log$/, '.pid');
  }

  get name(): string {
    return this.options.name;
  }

  get healthUrl(): string {
    return this.options.healthUrl;
  }

  isRunning(): boolean {
    return this.proc !== undefined && !this.proc.hasExited();
  }

  /** Starts the process (unless it runs) and waits until its /readyz says ready. */
  async start(): Promise<void> {
    if (!this.isRunning()) {
      const root = this.options.root ?? REPO_ROOT;
      await rm(this.pidFile, { force: true });
      this.proc = await supervise({
        // The shell records its pid, then becomes the service: kill() reaches exactly the service.
        command: '/bin/sh',
        args: ['-c', 'echo $$ > "$0" && exec "$@"', this.pidFile, process.execPath, ...typeScriptEntryArgs(path.join(root, this.options.entry), root)],
        env: this.options.env,
        cwd: root,
        stopSignal: 'SIGTERM',
        graceMs: STOP_GRACE_MS,
        logFile: this.options.logFile,
      });
    }
    await this.waitReady();
  }

  private async waitReady(): Promise<void> {
    const proc = this.proc!;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (proc.hasExited()) throw new Error(`${this.name} exited during start-up (status ${await proc.exited}):\n${await proc.logTail()}`);
      try {
        const response = await fetch(`${this.healthUrl}/readyz`, { signal: AbortSignal.timeout(3_000) });
        if (response.ok) return;
        last = `HTTP ${response.status}: ${await response.text()}`;
      } catch (err) {
        last = String(err);
      }
      await delay(250);
    }
    throw new Error(`${this.name} not ready after ${READY_TIMEOUT_MS / 1000}s (${last}):\n${await proc.logTail()}`);
  }

  /** The service's own pid, not its supervisor's (as written at its last start). */
  async pid(): Promise<number> {
    return Number.parseInt(await readFile(this.pidFile, 'utf8'), 10);
  }

  /** Sends `signal` to the process itself (SIGKILL: no shutdown code runs) and waits until it is gone. */
  async kill(signal: NodeJS.Signals): Promise<void> {
    const proc = this.proc;
    if (proc === undefined || proc.hasExited()) return;
    try {
      process.kill(await this.pid(), signal);
    } catch (err) {
      // ESRCH: it died in the meantime.
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
    await proc.exited;
  }

  /** SIGTERM (a graceful shutdown), SIGKILL after the grace period. */
  async stop(): Promise<void> {
    await this.proc?.stop();
  }
}
