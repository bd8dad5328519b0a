/**
 * Finds (or builds) the `temporal` CLI used to run the Temporal dev server.
 *
 * Order: $TEMPORAL_CLI, `temporal` on PATH, the per-user cache, else `go install` into that cache
 * (see goInstall in build-once.ts for why we build rather than download).
 *
 * CLI: `npx tsx tools/provision/temporal-cli.ts` prints the path (progress goes to stderr).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOnce, cacheDir, findOnPath, goInstall } from './build-once';

const execFileAsync = promisify(execFile);

const CLI_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
const CLI_VERSION = '1.5.1';
// Without this the binary reports "0.0.0-DEV" (release builds set it the same way).
const CLI_LDFLAGS = `-ldflags=-X github.com/temporalio/cli/temporalcli.Version=${CLI_VERSION}`;

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

  const cached = path.join(cacheDir('bin'), 'temporal');
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
  await buildOnce({
    dir: path.dirname(cached),
    name: 'temporal',
    ready: async () => (await cliVersion(cached)) !== undefined,
    build: () => goInstall({ go, packages: [`${CLI_PACKAGE}@v${CLI_VERSION}`], flags: [CLI_LDFLAGS], targets: { temporal: cached }, log }),
    log,
  });
  const version = await cliVersion(cached);
  if (version === undefined) throw new Error(`built ${cached} but \`${cached} --version\` fails`);
  log(`ready: ${cached} (${version})`);
  return cached;
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

if (require.main === module) {
  resolveTemporalCli().then(
    (cli) => process.stdout.write(`${cli}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
