import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { isAlive } from '../../tools/provision/build-once';
import { eventually } from '../support/poll';
import { exited } from '../support/worker';

const FIXTURE = path.resolve(__dirname, '../support/devnet-process-fixture.ts');

/** Starts the fixture in a process group of its own (as a terminal runs `npm start`); resolves with its devnet's pid. */
async function startFixture(): Promise<{ fixture: ChildProcess; devnetPid: number; output: () => string }> {
  const fixture = spawn(process.execPath, ['--import', 'tsx', FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  let output = '';
  fixture.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const devnetPid = await eventually('the fixture to start its devnet', 30_000, () => {
    const pid = /devnet (\d+)/.exec(output)?.[1];
    return Promise.resolve(pid === undefined ? undefined : Number(pid));
  });
  return { fixture, devnetPid, output: () => output };
}

describe('DevnetProcess: a devnet stops with the stack that started it, and only then', function () {
  this.timeout(60_000);

  it('a Ctrl-C to the stack’s process group leaves the devnet to the stack, which stops it in its turn', async () => {
    const { fixture, devnetPid, output } = await startFixture();
    process.kill(-fixture.pid!, 'SIGINT');
    assert.equal(await exited(fixture), 0, output());
    assert.match(output(), /devnet running after SIGINT: true/);
    assert.equal(isAlive(devnetPid), false);
  });

  it('a stack killed outright takes its devnet with it (the stdin lifeline)', async () => {
    const { fixture, devnetPid } = await startFixture();
    assert.equal(isAlive(devnetPid), true);
    fixture.kill('SIGKILL');
    await exited(fixture);
    await eventually('the devnet to exit', 10_000, () => Promise.resolve(isAlive(devnetPid) ? undefined : true));
  });
});
