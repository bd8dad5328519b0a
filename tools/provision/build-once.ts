/**
 * Builds a cached tool once per user, even when several processes (test runs, `npm start`) ask at the same time:
 * the first takes a lock and builds, the others wait for its result. The lock is created atomically with its owner
 * recorded (link() of a prepared file); a lock whose owner died, or that is older than any build could take, is
 * broken. `build` must write its result atomically (build elsewhere, then rename into place), so readers never see
 * a partial file.
 */
import { spawn } from 'node:child_process';
import { access, constants as fsConstants, link, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * A build normally takes minutes (the slowest, the Temporal server on a busy 2-core machine with a cold Go cache,
 * well under an hour); a lock older than this belongs to a build that can no longer finish.
 */
const LOCK_MAX_AGE_MS = 2 * 60 * 60_000;
export const PROGRESS_INTERVAL_MS = 30_000;

export async function buildOnce(options: {
  /** Directory the result and the lock live in. */
  dir: string;
  /** Names the lock (`<name>.build.lock`) and the tool in messages. */
  name: string;
  /** True once a usable result is in place. */
  ready: () => Promise<boolean>;
  build: () => Promise<void>;
  log: (msg: string) => void;
}): Promise<void> {
  const { dir, name, log } = options;
  await mkdir(dir, { recursive: true });
  const lockFile = path.join(dir, `${name}.build.lock`);
  const owner = `${process.pid} ${hostname()}\n`;
  let lastWaitLog = 0;
  for (;;) {
    const candidate = `${lockFile}.${process.pid}`;
    await writeFile(candidate, owner);
    const acquired = await link(candidate, lockFile).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        throw err;
      },
    );
    await rm(candidate, { force: true });
    if (acquired) break;

    const holder = await readFile(lockFile, 'utf8').catch(() => '');
    if (holder !== '' && (await isStaleLock(lockFile, holder))) {
      log(`removing stale build lock ${lockFile} (${holder.trim()})`);
      // Only remove it if nobody replaced it in the meantime.
      if ((await readFile(lockFile, 'utf8').catch(() => '')) === holder) await rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() - lastWaitLog >= PROGRESS_INTERVAL_MS) {
      log(`another process (${holder.trim() || 'unknown'}) is building ${name}; waiting for it…`);
      lastWaitLog = Date.now();
    }
    await delay(2_000);
    if (await options.ready()) return;
  }

  try {
    // The previous lock holder may have finished between our last check and acquiring the lock.
    if (await options.ready()) return;
    await options.build();
  } finally {
    await rm(lockFile, { force: true });
  }
}

async function isStaleLock(lockFile: string, holder: string): Promise<boolean> {
  const [pid, host] = holder.trim().split(' ');
  if (host === hostname() && pid !== undefined && !isAlive(Number(pid))) return true;
  // Another host (shared cache dir) or unparsable: we can only judge by age.
  const { mtimeMs } = await stat(lockFile).catch(() => ({ mtimeMs: Date.now() }));
  return Date.now() - mtimeMs > LOCK_MAX_AGE_MS;
}

/** Whether a process with this pid runs on this machine (ours or another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs a build command, echoing its output as progress; rejects with the output's tail when it fails. */
export function runBuild(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; log: (msg: string) => void }): Promise<void> {
  const started = Date.now();
  const progress = setInterval(() => options.log(`still building… ${Math.round((Date.now() - started) / 1000)}s`), PROGRESS_INTERVAL_MS);
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      output = (output + text).slice(-8_192);
      for (const line of text.replace(/\x1b\[[0-9;]*m/g, '').split('\n')) if (line.trim() !== '') options.log(line.trim());
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} failed (exit ${code}):\n${output}`));
    });
  }).finally(() => clearInterval(progress));
}

export interface GoInstallOptions {
  go: string;
  /** `path@version` arguments; all from one module when there are several. */
  packages: readonly string[];
  /** e.g. `-ldflags=-X …`. */
  flags?: readonly string[];
  /** Binary name `go install` produces (last package path element) → where to put it. */
  targets: Readonly<Record<string, string>>;
  log: (msg: string) => void;
}

/**
 * `go install` of pinned module versions into a private GOBIN next to the targets, then rename()s each binary into
 * place. We never download prebuilt binaries at run time: only Go's module proxy is reachable in CI, and building
 * from pinned versions keeps the supply chain to go.sum-verified sources.
 */
export async function goInstall(opts: GoInstallOptions): Promise<void> {
  const targetPaths = Object.values(opts.targets);
  if (targetPaths[0] === undefined) throw new Error('goInstall: no targets');
  const gobin = await mkdtemp(path.join(path.dirname(targetPaths[0]), '.build-'));
  const args = ['install', ...(opts.flags ?? []), ...opts.packages];
  const started = Date.now();
  opts.log(`go ${args.join(' ')} (takes several minutes on a small machine)…`);
  try {
    await runBuild(opts.go, args, { env: { ...process.env, GOBIN: gobin }, log: opts.log });
    for (const [built, target] of Object.entries(opts.targets)) await rename(path.join(gobin, built), target);
    opts.log(`built in ${Math.round((Date.now() - started) / 1000)}s`);
  } finally {
    await rm(gobin, { recursive: true, force: true });
  }
}

/** The per-user cache of built tools. */
export function cacheDir(...parts: string[]): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(process.env.HOME ?? '/tmp', '.cache'), 'payrail', ...parts);
}

export async function findOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.resolve(dir, name);
    try {
      await access(candidate, fsConstants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not in this PATH entry.
    }
  }
  return undefined;
}
