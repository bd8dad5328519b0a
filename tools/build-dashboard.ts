import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DASHBOARD_BUILD_DIR } from '../lib/dashboard-build';

/** The dashboard's sources (Vite + Preact). */
const DASHBOARD_SOURCE_DIR = path.resolve(__dirname, '../web/dashboard');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** True when there is no build, or a source file changed after it was made. */
export function dashboardBuildOutdated(): boolean {
  const index = path.join(DASHBOARD_BUILD_DIR, 'index.html');
  if (!existsSync(index)) return true;
  return !existsSync(DASHBOARD_SOURCE_DIR) ? false : newestMtime(DASHBOARD_SOURCE_DIR) > statSync(index).mtimeMs;
}

/** Builds the dashboard with Vite (offline: everything comes from node_modules). */
export async function buildDashboard(): Promise<void> {
  // The package's own bin (its exports map hides the file): resolved next to its package.json.
  const vite = path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [vite, 'build', '--config', path.join(DASHBOARD_SOURCE_DIR, 'vite.config.mjs')], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the dashboard build failed (vite exited with ${code})`))));
  });
}

/** Builds the dashboard when it is missing or older than its sources (npm start, the tests, the benchmarks). */
export async function ensureDashboardBuilt(log: (line: string) => void = () => undefined): Promise<void> {
  if (!dashboardBuildOutdated()) return;
  log('building the dashboard…');
  await buildDashboard();
}

/**
 * `npm run build:dashboard`, and npm's `prepare` on install. An install without dev dependencies (`npm ci
 * --omit=dev`) has no Vite: it skips the build, and the production image copies a dashboard built where the dev
 * dependencies are (Dockerfile).
 */
if (require.main === module) {
  let hasVite = true;
  try {
    require.resolve('vite/package.json');
  } catch {
    hasVite = false;
  }
  if (!hasVite) console.log('dashboard not built: Vite is a dev dependency, not installed here');
  else
    buildDashboard().catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
