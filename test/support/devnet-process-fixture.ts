/**
 * A process that starts one DevnetProcess, for test/devnets/process.test.ts. Its devnet is a stand-in that prints
 * its ready line with its pid and, as every devnet server, exits when its stdin closes. The fixture prints
 * `devnet <pid>`; on SIGINT it waits as a stack stopping its workers would, prints whether the devnet still runs,
 * then stops it and exits.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { DevnetProcess, jsonLine } from '../../tools/devnets/process';

/** How long the fixture's stack takes to stop the parts before its devnet. */
const STACK_STOP_MS = 1_000;
const STAND_IN = `process.stdin.resume(); process.stdin.on('end', () => process.exit(0)); console.log(JSON.stringify({ ready: true, pid: process.pid }));`;

void (async () => {
  const devnet = new DevnetProcess({ name: 'stand-in devnet', args: ['-e', STAND_IN], stopTimeoutMs: 5_000 });
  const { pid } = await devnet.readyLine(jsonLine((line) => (line.ready === true ? { pid: Number(line.pid) } : undefined)), 30_000);
  process.on('SIGINT', () => {
    // A stack stops its workers before its chains: the devnet must still answer meanwhile.
    void delay(STACK_STOP_MS).then(async () => {
      console.log(`devnet running after SIGINT: ${devnet.running}`);
      await devnet.stop();
      process.exit(0);
    });
  });
  console.log(`devnet ${pid}`);
})();
