/**
 * Shared by the provisioning scripts: finding a tool on PATH, the per-user binary cache, and building a
 * pinned Go module version into that cache with `go install` exactly once, however many processes ask.
 *
 * We never download prebuilt binaries at run time: only Go's module proxy is reachable in CI, and
 * building from pinned module versions keeps the supply chain to go.sum-verified sources.
 */
import { spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, link, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

// A lock older than this belongs to a build that can no longer finish (the slowest, the Temporal server
// on a busy 2-core machine with a cold Go cache, takes well under an hour).
const LOCK_MAX_AGE_MS = 2 * 60 * 60_000;
export const PROGRESS_INTERVAL_MS = 30_000;

export type Log = (msg: string) => void;

export function cacheBinDir(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'payrail', 'bin');
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

export interface BuildOnceOptions {
  /** Lock file in the cache dir; one per set of binaries. */
  lockFile: string;
  /** What is being built, for log lines. */
  what: string;
  /** True once the binaries are in place (checked before building and while waiting for another builder). */
  isReady: () => Promise<boolean>;
  build: () => Promise<void>;
  log: Log;
}

/**
 * Runs `build` unless another caller is already doing so (then waits for its result).
 * The lock is created atomically with its owner recorded (link() of a prepared file); builds put their
 * binaries in place with rename(), so readers never see a partial file even if two builds do race after
 * a stale lock was broken.
 */
export async function buildOnce(opts: BuildOnceOptions): Promise<void> {
  const { lockFile, log } = opts;
  await mkdir(path.dirname(lockFile), { recursive: true });
  const owner = `${process.pid} ${hostname()}\n`;
  let lastWaitLog = 0;
  for (;;) {
    const candidate = `${lockFile}.${process.pid}`;
    await writeFile(candidate, owner);
    const acquired = await link(candidate, lockFile).then(() => true, (err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return false;
      throw err;
    });
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
      log(`another process (${holder.trim() || 'unknown'}) is building ${opts.what}; waiting for it…`);
      lastWaitLog = Date.now();
    }
    await delay(2_000);
    if (await opts.isReady()) return;
  }

  try {
    // The previous lock holder may have finished between our last check and acquiring the lock.
    if (await opts.isReady()) return;
    await opts.build();
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface GoInstallOptions {
  go: string;
  /** `path@version` arguments; all from one module when there are several. */
  packages: readonly string[];
  /** e.g. `-ldflags=-X …`. */
  flags?: readonly string[];
  /** Binary name `go install` produces (last package path element) → where to put it. */
  targets: Readonly<Record<string, string>>;
  log: Log;
}

/** `go install` into a private GOBIN inside the cache dir, then rename()s each binary to its target. */
export async function goInstall(opts: GoInstallOptions): Promise<void> {
  const { log } = opts;
  const targetPaths = Object.values(opts.targets);
  if (targetPaths[0] === undefined) throw new Error('goInstall: no targets');
  const gobin = await mkdtemp(path.join(path.dirname(targetPaths[0]), '.build-'));
  const command = `go install ${[...(opts.flags ?? []), ...opts.packages].join(' ')}`;
  const started = Date.now();
  log(`${command} (takes several minutes on a small machine)…`);
  const progress = setInterval(() => log(`still building… ${Math.round((Date.now() - started) / 1000)}s`), PROGRESS_INTERVAL_MS);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(opts.go, ['install', ...(opts.flags ?? []), ...opts.packages], {
        env: { ...process.env, GOBIN: gobin },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const onData = (chunk: Buffer): void => {
        const text = chunk.toString('utf8');
        output = (output + text).slice(-8_192);
        for (const line of text.split('\n')) if (line.trim() !== '') log(line.trim());
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('error', reject);
      child.once('close', (code) => {
        if (code === 0) resolve();
        else reject(new Error(`${command} failed (exit ${code}):\n${output}`));
      });
    });
    for (const [built, target] of Object.entries(opts.targets)) await rename(path.join(gobin, built), target);
    log(`built in ${Math.round((Date.now() - started) / 1000)}s`);
  } finally {
    clearInterval(progress);
    await rm(gobin, { recursive: true, force: true });
  }
}
