import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.join(REPO_ROOT, 'test/support/threads-fixture.ts');

/** Runs the fixture with `--import <loader>`; what it saw in its main thread and in the worker thread it started. */
async function sourceMapsUnder(loader: string): Promise<{ main: boolean; thread: boolean }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', loader, FIXTURE], { cwd: REPO_ROOT });
  return JSON.parse(stdout) as { main: boolean; thread: boolean };
}

describe('lib/tsx-main-thread.mjs: how a worker process loads TypeScript', () => {
  it('loads TypeScript in the main thread, and leaves worker threads (the SDK’s workflow thread) without tsx and its source maps', async () => {
    assert.deepEqual(await sourceMapsUnder('./lib/tsx-main-thread.mjs'), { main: true, thread: false });
  });

  it('where `--import tsx` turns source maps on in every worker thread too', async () => {
    assert.deepEqual(await sourceMapsUnder('tsx'), { main: true, thread: true });
  });
});
