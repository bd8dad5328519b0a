import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { open } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * POSIX-sh watchdog that runs "$@" and guarantees it cannot outlive the Node process that spawned it.
 * Node holds the only write end of the watchdog's stdin pipe, so EOF on it means Node either called
 * stop() or died (even by SIGKILL, which no exit hook can catch). On EOF the watchdog sends the stop
 * signal, escalates to SIGKILL after the grace period, and finally TERMs its own process group so no
 * helper (e.g. the grace-period `sleep`) lingers. Runs in its own process group (detached spawn), so
 * a terminal Ctrl-C reaches only Node, which then decides the shutdown order.
 */
const WATCHDOG_SCRIPT = `
sig=$1 grace=$2
shift 2
exec 3<&0 </dev/null
"$@" 3<&- &
child=$!
{
  read -r _ <&3
  kill -s "$sig" "$child" 2>/dev/null
  sleep "$grace"
  kill -s KILL "$child" 2>/dev/null
} &
exec 3<&-
wait "$child"
status=$?
trap '' TERM
kill -s TERM -- "-$$" 2>/dev/null
exit "$status"
`;

/** Bytes of output kept for error messages when no log file is given. */
const TAIL_BYTES = 16 * 1024;

export interface SuperviseOptions {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this user (only possible when we are root). */
  user?: { uid: number; gid: number };
  /** Signal that asks the service for a clean shutdown. */
  stopSignal: 'SIGTERM' | 'SIGINT';
  /** How long stop() waits after stopSignal before SIGKILL. */
  graceMs: number;
  /** Append stdout+stderr here; without it only a bounded in-memory tail is kept. */
  logFile?: string;
}

export interface SupervisedProcess {
  /** Resolves with the exit status (128+n when killed by signal n) once the service has exited. */
  readonly exited: Promise<number>;
  hasExited(): boolean;
  /** The end of the service's output, for error messages. */
  logTail(): Promise<string>;
  /** stopSignal, then SIGKILL after the grace period; idempotent. */
  stop(): Promise<void>;
}

export async function supervise(opts: SuperviseOptions): Promise<SupervisedProcess> {
  const logHandle = opts.logFile === undefined ? undefined : await open(opts.logFile, 'a');
  let memoryTail = '';
  const graceSeconds = Math.ceil(opts.graceMs / 1000);
  const child = spawn(
    '/bin/sh',
    ['-c', WATCHDOG_SCRIPT, 'payrail-supervise', opts.stopSignal.slice(3), String(graceSeconds), opts.command, ...opts.args],
    {
      detached: true,
      env: opts.env,
      cwd: opts.cwd,
      uid: opts.user?.uid,
      gid: opts.user?.gid,
      stdio: ['pipe', logHandle?.fd ?? 'pipe', logHandle?.fd ?? 'pipe'],
    },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
  } finally {
    // The child has its own copy of the descriptor.
    await logHandle?.close();
  }
  const collect = (chunk: Buffer): void => {
    memoryTail = (memoryTail + chunk.toString('utf8')).slice(-TAIL_BYTES);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // EPIPE when the watchdog is already gone must not crash us.
  child.stdin?.on('error', () => undefined);

  const pgid = child.pid;
  if (pgid === undefined) throw new Error(`failed to spawn ${opts.command}`);
  let exitStatus: number | undefined;
  const exited = new Promise<number>((resolve) => {
    child.once('exit', (code, signal) => {
      exitStatus = code ?? 128 + (signal === null ? 0 : osConstants.signals[signal]);
      resolve(exitStatus);
    });
  });

  const killGroup = (): void => {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // ESRCH: the whole group is already gone.
    }
  };
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      child.stdin?.end();
      // Give the watchdog's own SIGKILL escalation a head start before we do it ourselves.
      const timer = delay(opts.graceMs + 2_000, 'timeout' as const, { ref: false });
      if ((await Promise.race([exited, timer])) === 'timeout') killGroup();
      await exited;
      killGroup();
    })();
    return stopping;
  };

  return {
    exited,
    hasExited: () => exitStatus !== undefined,
    logTail: async () => (opts.logFile === undefined ? memoryTail : readTail(opts.logFile)),
    stop,
  };
}

async function readTail(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}
