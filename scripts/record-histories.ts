/**
 * Re-records the payment workflow histories replayed by test/replay/replay.test.ts.
 *
 *   npx tsx scripts/record-histories.ts            # every scenario of test/replay/scenarios.ts
 *   npx tsx scripts/record-histories.ts expired    # only the named ones
 *
 * Runs each scenario against the fake activities on a throwaway local Temporal dev server and writes
 * test/replay/histories/<scenario>.json. Only re-record when a workflow change is deliberately not
 * replay-compatible AND no run of the old code can still be open anywhere; otherwise gate the change with
 * `patched()` and keep the old histories (add new ones next to them). See the comment in replay.test.ts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON, historyToJSON } from '../test/replay/history-json';
import { REPLAY_SCENARIOS, scenarioPaymentId } from '../test/replay/scenarios';
import { FakeActivities, bundleWorkflows, createTestEnv, paymentInput, runPayment } from '../test/workflows/harness';

const HISTORIES_DIR = path.resolve(__dirname, '../test/replay/histories');

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const unknown = only.filter((name) => !REPLAY_SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}`);
  const scenarios = REPLAY_SCENARIOS.filter((s) => only.length === 0 || only.includes(s.name));

  await mkdir(HISTORIES_DIR, { recursive: true });
  const [env, workflowBundle] = await Promise.all([createTestEnv(), bundleWorkflows()]);
  try {
    for (const scenario of scenarios) {
      const fakes = new FakeActivities();
      const input = paymentInput({ paymentId: scenarioPaymentId(scenario.name), ...scenario.input });
      const history = await runPayment({
        env,
        workflowBundle,
        fakes,
        input,
        body: async (handle) => {
          await scenario.drive(handle, fakes);
          const result = await handle.result();
          if (result !== scenario.expected) throw new Error(`${scenario.name}: ended ${result}, expected ${scenario.expected}`);
          return handle.fetchHistory();
        },
      });
      const json = historyToJSON(history);
      // Fail here, not in the replay test, if the file would not read back.
      if (historyFromJSON(json).events.length !== history.events?.length) throw new Error(`${scenario.name}: history does not round-trip`);
      const file = path.join(HISTORIES_DIR, `${scenario.name}.json`);
      await writeFile(file, `${json}\n`);
      process.stdout.write(`${path.relative(process.cwd(), file)}: ${history.events?.length ?? 0} events, ${fakes.statuses().join(' → ')}\n`);
    }
  } finally {
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
