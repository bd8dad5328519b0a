/**
 * Every repository path that a doc or a comment names exists: a doc that names a file the code no longer has
 * describes a system that is not there. Paths are matched where they start with a top-level folder of the
 * repository (`chains/evm/adapter.ts`, `docs/operations.md`, `tools/stack/`); a path with a placeholder
 * (`chains/<family>/`, `var/…`) is not a path of the repository and is not matched.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const FOLDERS = ['api', 'activities', 'chains', 'db', 'docs', 'domain', 'examples', 'lib', 'scripts', 'services', 'test', 'tools', 'web', 'workers', 'workflows'];
/** A path: a top-level folder, then path characters, not preceded by a path character (so `../lib/x` is an import, not a doc path). */
const PATH = new RegExp(`(?<![A-Za-z0-9_.\\-/@:<])((?:${FOLDERS.join('|')})/[A-Za-z0-9_.\\-/]*[A-Za-z0-9_\\-/])(?![<*{])`, 'g');
/** A Markdown link to a file of the repository: not a URL, not an anchor of the same page. */
const MARKDOWN_LINK = /\]\((?![a-z]+:|#)([^)#\s]+)(?:#[^)]*)?\)/g;
/** Files that name paths: sources, docs and configuration (recorded histories hold the recording machine's paths). */
const NAMING = /\.(ts|tsx|mjs|js|md|sol|yml|toml)$|^Dockerfile$|^\.ci\/run$/;

const trackedFiles = (): string[] =>
  execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((file) => NAMING.test(file) && !file.startsWith('test/replay/histories/'));

/** A named path exists as written, or as a module named without its extension (`services/workflows`). */
const exists = (named: string): boolean => [named, `${named}.ts`, `${named}.tsx`].some((candidate) => existsSync(path.join(ROOT, candidate)));

describe('repository paths named in docs and comments', () => {
  it('every one exists, and every relative link of a Markdown file leads to a file', () => {
    const missing: string[] = [];
    for (const file of trackedFiles()) {
      for (const match of readFileSync(path.join(ROOT, file), 'utf8').matchAll(PATH)) {
        const named = match[1]!.replace(/\/$/, '');
        if (!exists(named)) missing.push(`${file} names ${named}`);
      }
      if (!file.endsWith('.md')) continue;
      for (const match of readFileSync(path.join(ROOT, file), 'utf8').matchAll(MARKDOWN_LINK)) {
        const target = path.join(path.dirname(file), match[1]!);
        if (!existsSync(path.join(ROOT, target))) missing.push(`${file} links ${match[1]}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('finds a path that does not exist', () => {
    // The check itself can fail: the pattern matches a doc's path as the docs write it.
    const gone = ['chains', 'devnet', 'devnet.ts'].join('/');
    const text = `see \`${gone}\` and [scaling](docs/scaling.md), not ../lib/money or chains/<family>/`;
    assert.deepEqual([...text.matchAll(PATH)].map((m) => m[1]), [gone, 'docs/scaling.md']);
    assert.equal(exists(gone), false);
  });
});
