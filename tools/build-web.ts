import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DASHBOARD_BUILD_DIR, PAY_BUILD_DIR } from '../lib/web-build';

/**
 * The browser bundles Vite builds: the merchant dashboard (Preact) and the hosted page's wallet script. Each is its
 * sources' folder, the Vite config in it, and the file whose age says whether the build is current.
 */
const BUNDLES = [
  { name: 'the dashboard', sources: path.resolve(__dirname, '../web/dashboard'), built: path.join(DASHBOARD_BUILD_DIR, 'index.html') },
  { name: "the pay page's wallet script", sources: path.resolve(__dirname, '../web/pay/src'), config: path.resolve(__dirname, '../web/pay/vite.config.mjs'), built: path.join(PAY_BUILD_DIR, 'wallet.js') },
].map((b) => ({ config: path.join(b.sources, 'vite.config.mjs'), ...b }));

type Bundle = (typeof BUNDLES)[number];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** True when there is no build, or a source file (or the config) changed after it was made. */
function outdated(bundle: Bundle): boolean {
  if (!existsSync(bundle.built)) return true;
  if (!existsSync(bundle.sources)) return false;
  return Math.max(newestMtime(bundle.sources), statSync(bundle.config).mtimeMs) > statSync(bundle.built).mtimeMs;
}

/** Builds one bundle with Vite (offline: everything comes from node_modules). */
async function build(bundle: Bundle): Promise<void> {
  // The package's own bin (its exports map hides the file): resolved next to its package.json.
  const vite = path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [vite, 'build', '--config', bundle.config], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${bundle.name} did not build (vite exited with ${code})`))));
  });
}

/** Builds every bundle that is missing or older than its sources (npm start, the tests, the benchmarks). */
export async function ensureWebBuilt(log: (line: string) => void = () => undefined): Promise<void> {
  for (const bundle of BUNDLES.filter(outdated)) {
    log(`building ${bundle.name}…`);
    await build(bundle);
  }
}

/**
 * `npm run build:web`, and npm's `prepare` on install: builds every bundle. An install without dev dependencies
 * (`npm ci --omit=dev`) has no Vite: it skips the build, and the production image copies bundles built where the dev
 * dependencies are (Dockerfile).
 */
if (require.main === module) {
  let hasVite = true;
  try {
    require.resolve('vite/package.json');
  } catch {
    hasVite = false;
  }
  if (!hasVite) console.log('browser bundles not built: Vite is a dev dependency, not installed here');
  else
    (async () => {
      for (const bundle of BUNDLES) await build(bundle);
    })().catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
