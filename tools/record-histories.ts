/**
 * Records the workflow histories replayed by test/replay/replay.test.ts: one per scenario of
 * test/replay/scenarios.ts, each written to test/replay/histories/<scenario>.json.
 *
 *   npx tsx tools/record-histories.ts                                  # every scenario (and no other file)
 *   npx tsx tools/record-histories.ts payment-expired order-expired    # only those (and their recording's others)
 *
 * Runs on the time-skipping test server with the fake activities of test/workflows/harness. A new scenario is
 * recorded when it is added; the whole set is recorded again with each release (docs/workflow-versioning.md).
 */
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON, historyToJSON } from '../test/replay/history-json';
import { HISTORY_SCENARIOS, RECORDINGS } from '../test/replay/scenarios';
import { activitiesCalled } from '../test/support/history';
import { getTestEnv, getWorkflowBundle, stopTestEnv } from '../test/support/temporal';

const HISTORIES_DIR = path.resolve(__dirname, '../test/replay/histories');

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const unknown = only.filter((name) => !RECORDINGS.some((r) => r.scenarios.some((s) => s.name === name)));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}`);
  const recordings = RECORDINGS.filter((r) => only.length === 0 || r.scenarios.some((s) => only.includes(s.name)));

  const [env, workflowBundle] = await Promise.all([getTestEnv(), getWorkflowBundle()]);
  try {
    for (const recording of recordings) {
      for (const [name, history] of await recording.record(env, workflowBundle)) {
        const json = historyToJSON(history);
        // Fail here, not in the replay test, if the file would not read back.
        if (historyFromJSON(json).events.length !== history.events?.length) throw new Error(`${name}: history does not round-trip`);
        await writeFile(path.join(HISTORIES_DIR, `${name}.json`), `${json}\n`);
        const activities = activitiesCalled(history);
        process.stdout.write(`${name}.json: ${history.events?.length ?? 0} events; activities ${activities.join(', ')}\n`);
      }
    }
  } finally {
    await stopTestEnv();
  }
  if (only.length > 0) return;
  // A full recording leaves no history of a scenario that is gone.
  const kept = new Set(HISTORY_SCENARIOS.map((s) => `${s.name}.json`));
  for (const file of (await readdir(HISTORIES_DIR)).filter((f) => f.endsWith('.json') && !kept.has(f))) {
    await rm(path.join(HISTORIES_DIR, file));
    process.stdout.write(`${file}: removed (no such scenario)
`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
