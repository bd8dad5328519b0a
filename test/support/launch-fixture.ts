/**
 * A process that runs `runUntilStopped` the way `npm start` does, for test/unit/launch.test.ts. Its start installs a
 * SIGINT listener of its own, as the Temporal Runtime does when the stack's worker starts, then takes
 * `START_MS`; its stop prints `stopped`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { runUntilStopped } from '../../tools/stack/launch';

runUntilStopped(
  'fixture',
  async () => {
    process.on('SIGINT', () => console.log('component saw SIGINT'));
    console.log('starting');
    await delay(Number(process.env.START_MS));
    // What keeps a real stack's process alive: its servers.
    const serving = setInterval(() => undefined, 1_000);
    return {
      stop: () => {
        clearInterval(serving);
        console.log('stopped');
        return Promise.resolve();
      },
    };
  },
  () => 'running',
);
