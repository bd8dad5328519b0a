/**
 * Finds (or builds) the `temporal` CLI used to run the Temporal dev server.
 *
 * Order: $TEMPORAL_CLI, `temporal` on PATH, the per-user cache, else `go install` into that cache.
 * We never download prebuilt binaries at run time: only Go's module proxy is reachable in CI, and
 * building from the pinned module version keeps the supply chain to go.sum-verified sources.
 *
 * CLI: `npx tsx scripts/provision/temporal-cli.ts` prints the path (progress goes to stderr).
 */
import { execFile, spawn } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, link, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const CLI_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
const CLI_VERSION = '1.5.1';
// Without this the binary reports "0.0.0-DEV" (release builds set it the same way).
const CLI_LDFLAGS = `-ldflags=-X github.com/temporalio/cli/temporalcli.Version=${CLI_VERSION}`;
// A build normally takes minutes; a lock older than this belongs to a build that can no longer finish.
const LOCK_MAX_AGE_MS = 30 * 60_000;
const PROGRESS_INTERVAL_MS = 30_000;

export async function resolveTemporalCli(opts: { log?: (msg: string) => void } = {}): Promise<string> {
  const log = opts.log ?? ((msg: string) => process.stderr.write(`[temporal-cli] ${msg}\n`));

  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) {
    const cli = path.resolve(fromEnv);
    // An explicit choice that does not work is an error, not a reason to pick something else.
    if ((await cliVersion(cli)) === undefined) throw new Error(`TEMPORAL_CLI=${fromEnv} is not a working temporal binary (\`${cli} --version\` failed).`);
    return cli;
  }

  const onPath = await findOnPath('temporal');
  if (onPath !== undefined) {
    if ((await cliVersion(onPath)) !== undefined) return onPath;
    log(`ignoring ${onPath}: \`temporal --version\` failed`);
  }

  const cached = path.join(cacheBinDir(), 'temporal');
  if ((await cliVersion(cached)) !== undefined) return cached;

  const go = await findOnPath('go');
  if (go === undefined) {
    throw new Error(
      [
        'Temporal CLI not found. Install it one of these ways, then retry:',
        '  - put `temporal` on PATH (macOS: `brew install temporal`; or a release from https://github.com/temporalio/cli/releases),',
        '  - or set TEMPORAL_CLI=/absolute/path/to/temporal,',
        `  - or install Go (https://go.dev/dl/) and it will be built into ${cached} with \`go install ${CLI_PACKAGE}@v${CLI_VERSION}\`.`,
      ].join('\n'),
    );
  }
  await buildOnce(go, cached, log);
  const version = await cliVersion(cached);
  if (version === undefined) throw new Error(`built ${cached} but \`${cached} --version\` fails`);
  log(`ready: ${cached} (${version})`);
  return cached;
}

function cacheBinDir(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'payrail', 'bin');
}

/** `temporal --version` output, or undefined when the binary is missing or broken. */
async function cliVersion(cli: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(cli, ['--version'], { timeout: 60_000 });
    return stdout.startsWith('temporal version') ? stdout.trim() : undefined;
  } catch {
    return undefined;
  }
}

async function findOnPath(name: string): Promise<string | undefined> {
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

/**
 * Builds into `target` unless another caller is already doing so (then waits for its result).
 * The lock is created atomically with its owner recorded (link() of a prepared file), and the
 * binary is built in a private GOBIN and renamed into place, so readers never see a partial file
 * even if two builds do race after a stale lock was broken.
 */
async function buildOnce(go: string, target: string, log: (msg: string) => void): Promise<void> {
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true });
  const lockFile = path.join(dir, 'temporal.build.lock');
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
      log(`another process (${holder.trim() || 'unknown'}) is building the Temporal CLI; waiting for it…`);
      lastWaitLog = Date.now();
    }
    await delay(2_000);
    if ((await cliVersion(target)) !== undefined) return;
  }

  try {
    // The previous lock holder may have finished between our last check and acquiring the lock.
    if ((await cliVersion(target)) !== undefined) return;
    await goInstall(go, target, log);
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

async function goInstall(go: string, target: string, log: (msg: string) => void): Promise<void> {
  const gobin = await mkdtemp(path.join(path.dirname(target), '.build-'));
  const started = Date.now();
  log(`building Temporal CLI v${CLI_VERSION} with ${go} install (takes several minutes on a small machine)…`);
  const progress = setInterval(() => log(`still building… ${Math.round((Date.now() - started) / 1000)}s`), PROGRESS_INTERVAL_MS);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', CLI_LDFLAGS, `${CLI_PACKAGE}@v${CLI_VERSION}`], {
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
        else reject(new Error(`go install ${CLI_PACKAGE}@v${CLI_VERSION} failed (exit ${code}):\n${output}`));
      });
    });
    await rename(path.join(gobin, 'temporal'), target);
    log(`built in ${Math.round((Date.now() - started) / 1000)}s`);
  } finally {
    clearInterval(progress);
    await rm(gobin, { recursive: true, force: true });
  }
}

if (require.main === module) {
  resolveTemporalCli().then(
    (cli) => process.stdout.write(`${cli}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
