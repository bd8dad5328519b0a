import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { exited } from '../support/worker';

const FIXTURE = path.resolve(__dirname, '../support/launch-fixture.ts');

/** How long the fixture may take to exit after SIGINT before the test kills it (and fails on its status). */
const EXIT_DEADLINE_MS = 10_000;

/** Runs the fixture with a start of `startMs`, sends SIGINT once it printed `line`; resolves with its exit and output. */
async function interruptAfter(line: string, startMs: number): Promise<{ status: NodeJS.Signals | number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], { env: { ...process.env, START_MS: String(startMs) }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  let interrupted = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (!interrupted && output.includes(line)) {
      interrupted = true;
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), EXIT_DEADLINE_MS).unref();
    }
  });
  const status = await exited(child);
  return { status, output };
}

describe('runUntilStopped: Ctrl-C of npm start', () => {
  it('during the start exits at once with 130, although a component installed its own SIGINT listener meanwhile', async () => {
    const { status, output } = await interruptAfter('starting', 30_000);
    assert.equal(status, 130, output);
    assert.match(output, /start interrupted/);
    assert.doesNotMatch(output, /running/);
  });

  it('once started stops the stack and exits 0', async () => {
    const { status, output } = await interruptAfter('running', 0);
    assert.equal(status, 0, output);
    assert.match(output, /stopping…\nstopped/);
  });
});
