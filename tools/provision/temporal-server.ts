/**
 * Finds (or builds) the production Temporal server, its SQL schema tool and the Temporal UI server.
 *
 * Each binary: its env override, its name on PATH (at the pinned version only: the schema, the config
 * template and the UI's API all belong to one release), the per-user cache, else all three are built
 * once with `go install` from the Go module proxy into that cache (see goInstall in build-once.ts).
 *
 * Pins: the newest releases whose go.mod the Go toolchain here (1.26.8, GOTOOLCHAIN=local) accepts and
 * that have no replace directives, so `go install path@version` works. go.temporal.io/server v1.32.2 and
 * ui-server v2.56.0+ need Go >= 1.26.9.
 *
 * CLI: `npx tsx tools/provision/temporal-server.ts` prints the three paths (progress goes to stderr).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOnce, cacheDir, findOnPath, goInstall } from './build-once';

type Log = (msg: string) => void;

const execFileAsync = promisify(execFile);

export const TEMPORAL_SERVER_VERSION = '1.32.1';
export const TEMPORAL_UI_VERSION = '2.55.0';

export interface TemporalServerBinaries {
  /** `temporal-server start`, configured by the env of its embedded config template (as the temporalio/server image). */
  server: string;
  /** `temporal-sql-tool`, with the schemas embedded. */
  sqlTool: string;
  /** The UI server (`ui-server start`), with the UI assets embedded. */
  uiServer: string;
}

interface Tool {
  key: keyof TemporalServerBinaries;
  /** Name on PATH, as in the official images. */
  command: string;
  envVar: string;
  version: string;
  goModule: string;
  /** Main package inside goModule, and the binary name `go install` gives it. */
  goPackage: string;
  builtName: string;
}

const TOOLS: readonly Tool[] = [
  { key: 'server', command: 'temporal-server', envVar: 'TEMPORAL_SERVER_BIN', version: TEMPORAL_SERVER_VERSION, goModule: 'go.temporal.io/server', goPackage: 'go.temporal.io/server/cmd/server', builtName: 'server' },
  { key: 'sqlTool', command: 'temporal-sql-tool', envVar: 'TEMPORAL_SQL_TOOL_BIN', version: TEMPORAL_SERVER_VERSION, goModule: 'go.temporal.io/server', goPackage: 'go.temporal.io/server/cmd/tools/sql', builtName: 'sql' },
  { key: 'uiServer', command: 'temporal-ui-server', envVar: 'TEMPORAL_UI_SERVER_BIN', version: TEMPORAL_UI_VERSION, goModule: 'github.com/temporalio/ui-server/v2', goPackage: 'github.com/temporalio/ui-server/v2/cmd/server', builtName: 'server' },
];

const installArg = (tool: Tool): string => `${tool.goPackage}@v${tool.version}`;

export async function resolveTemporalServer(opts: { log?: Log } = {}): Promise<TemporalServerBinaries> {
  const log = opts.log ?? ((msg: string) => process.stderr.write(`[temporal-server] ${msg}\n`));
  const found: Partial<TemporalServerBinaries> = {};
  for (const tool of TOOLS) found[tool.key] = await resolveExisting(tool, log);
  const missing = TOOLS.filter((tool) => found[tool.key] === undefined);
  if (missing.length === 0) return found as TemporalServerBinaries;

  const go = await findOnPath('go');
  if (go === undefined) {
    throw new Error(
      [
        `${missing.map((tool) => tool.command).join(', ')} not found. Either:`,
        ...missing.map((tool) => `  - put ${tool.command} v${tool.version} on PATH or set ${tool.envVar}=/absolute/path,`),
        `  - or install Go (https://go.dev/dl/) and they will be built into ${cacheDir('bin')} with \`go install\` (${TOOLS.map(installArg).join(', ')}).`,
      ].join('\n'),
    );
  }
  await buildOnce({
    dir: cacheDir('bin'),
    name: `temporal-server-v${TEMPORAL_SERVER_VERSION}`,
    ready: async () => (await Promise.all(missing.map((tool) => isPinned(tool, cachedPath(tool))))).every(Boolean),
    build: async () => {
      // One `go install` per module; the server and the UI both produce a binary named `server`.
      for (const goModule of new Set(missing.map((tool) => tool.goModule))) {
        const tools = missing.filter((tool) => tool.goModule === goModule);
        await goInstall({
          go,
          packages: tools.map(installArg),
          targets: Object.fromEntries(tools.map((tool) => [tool.builtName, cachedPath(tool)])),
          log,
        });
      }
    },
    log,
  });
  for (const tool of missing) {
    const cached = cachedPath(tool);
    if (!(await isPinned(tool, cached))) throw new Error(`built ${cached} but \`${cached} --version\` does not report v${tool.version}`);
    found[tool.key] = cached;
  }
  log(`ready: ${missing.map((tool) => cachedPath(tool)).join(', ')}`);
  return found as TemporalServerBinaries;
}

async function resolveExisting(tool: Tool, log: Log): Promise<string | undefined> {
  const fromEnv = process.env[tool.envVar];
  if (fromEnv) {
    const binary = path.resolve(fromEnv);
    // An explicit choice that does not work is an error, not a reason to pick something else; its version is the chooser's call.
    if ((await versionOf(binary)) === undefined) throw new Error(`${tool.envVar}=${fromEnv} is not a working ${tool.command} (\`${binary} --version\` failed).`);
    return binary;
  }
  const onPath = await findOnPath(tool.command);
  if (onPath !== undefined) {
    if (await isPinned(tool, onPath)) return onPath;
    log(`ignoring ${onPath}: \`${tool.command} --version\` is not v${tool.version} (${(await versionOf(onPath)) ?? 'failed'})`);
  }
  const cached = cachedPath(tool);
  return (await isPinned(tool, cached)) ? cached : undefined;
}

/** Versioned file names: a new pin builds afresh instead of picking up the previous release. */
function cachedPath(tool: Tool): string {
  return path.join(cacheDir('bin'), `${tool.command}-v${tool.version}`);
}

async function isPinned(tool: Tool, binary: string): Promise<boolean> {
  return (await versionOf(binary)) === tool.version;
}

/** The version from `<name> version X.Y.Z` (what all three print for --version), or undefined when missing or broken. */
async function versionOf(binary: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(binary, ['--version'], { timeout: 60_000 });
    return /\bversion v?(\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

if (require.main === module) {
  resolveTemporalServer().then(
    (binaries) => process.stdout.write(`${TOOLS.map((tool) => `${tool.command}: ${binaries[tool.key]}`).join('\n')}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
