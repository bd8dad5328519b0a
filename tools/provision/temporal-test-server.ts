/**
 * Finds (or builds) Temporal's time-skipping test server, which the workflow tests run on. The TypeScript SDK
 * would download it from GitHub at run time; Payrail never downloads anything but packages, so it runs the same
 * server from its Maven Central artifact (`io.temporal:temporal-test-server`) on the machine's Java, resolved once
 * with Maven into a per-user cache.
 *
 * Order: $TEMPORAL_TEST_SERVER (an executable taking `<port>`), the per-user cache, else `mvn` resolves it there.
 * CLI: `npx tsx tools/provision/temporal-test-server.ts` prints the path (progress goes to stderr).
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOnce, cacheDir, findOnPath, runBuild } from './build-once';

const execFileAsync = promisify(execFile);

const ARTIFACT = { groupId: 'io.temporal', artifactId: 'temporal-test-server', version: '1.38.0' };
const MAIN_CLASS = 'io.temporal.testserver.TestServer';

export async function resolveTemporalTestServer(opts: { log?: (msg: string) => void } = {}): Promise<string> {
  const log = opts.log ?? ((msg: string) => process.stderr.write(`[temporal-test-server] ${msg}\n`));
  if (process.env.TEMPORAL_TEST_SERVER) return path.resolve(process.env.TEMPORAL_TEST_SERVER);

  const home = cacheDir('temporal-test-server', ARTIFACT.version);
  const launcher = path.join(home, 'temporal-test-server');
  const ready = async () => (await readdir(path.join(home, 'lib')).catch(() => [] as string[])).some((f) => f.startsWith(`${ARTIFACT.artifactId}-`));
  if (await ready()) return launcher;

  const [mvn, java] = await Promise.all([findOnPath('mvn'), findOnPath('java')]);
  if (!mvn || !java) {
    throw new Error(
      `the workflow tests need Temporal's test server: install Java 17+ and Maven (Debian: openjdk-17-jre-headless maven) so it can be resolved from Maven Central into ${home}, or set TEMPORAL_TEST_SERVER`,
    );
  }
  await buildOnce({ dir: home, name: 'temporal-test-server', ready, build: () => resolveWithMaven(mvn, java, home, launcher, log), log });
  return launcher;
}

/** Copies the artifact and its dependencies from Maven Central into `home/lib` and writes the launcher next to it. */
async function resolveWithMaven(mvn: string, java: string, home: string, launcher: string, log: (msg: string) => void): Promise<void> {
  const work = await mkdtemp(path.join(home, '.build-'));
  try {
    await writeFile(
      path.join(work, 'pom.xml'),
      `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>payrail</groupId><artifactId>temporal-test-server-launcher</artifactId><version>1</version>
<dependencies><dependency><groupId>${ARTIFACT.groupId}</groupId><artifactId>${ARTIFACT.artifactId}</artifactId><version>${ARTIFACT.version}</version></dependency></dependencies>
</project>
`,
    );
    log(`resolving ${ARTIFACT.groupId}:${ARTIFACT.artifactId}:${ARTIFACT.version} from Maven Central…`);
    await runBuild(mvn, ['-q', '-B', 'dependency:copy-dependencies', '-DoutputDirectory=lib'], { cwd: work, log });
    await writeFile(path.join(work, 'temporal-test-server'), `#!/bin/sh\nexec "${java}" -cp "${path.join(home, 'lib')}/*" ${MAIN_CLASS} "$@"\n`);
    await chmod(path.join(work, 'temporal-test-server'), 0o755);
    await rename(path.join(work, 'temporal-test-server'), launcher);
    await rm(path.join(home, 'lib'), { recursive: true, force: true });
    await rename(path.join(work, 'lib'), path.join(home, 'lib'));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const { stderr } = await execFileAsync(launcher, [], { timeout: 60_000 }).catch((err: { stderr?: string }) => ({ stderr: err.stderr ?? '' }));
  if (!/Usage/.test(stderr)) log(`warning: ${launcher} did not print its usage: ${stderr.slice(0, 200)}`);
}

if (require.main === module) {
  resolveTemporalTestServer().then(
    (server) => process.stdout.write(`${server}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
