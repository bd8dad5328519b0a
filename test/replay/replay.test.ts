/**
 * Replays recorded payment workflow histories against the current workflow code. A failure means the change
 * would break payments that are open while it is deployed: their workers would hit a non-determinism error
 * when replaying them (after a restart, cache eviction or worker crash).
 *
 * What to do when this fails:
 *  - Normally: make the change replay-compatible. Gate new or reordered commands (activities, timers,
 *    search-attribute upserts, …) with `patched('<change-id>')` from @temporalio/workflow so runs started before
 *    the change keep taking the old path, and keep these histories as they are (later, once no old run can be
 *    open, `deprecatePatch()`). Record an extra history for the new path if it adds a branch (see below).
 *  - Only when the change is deliberately NOT replay-compatible (and every run of the old code is known to be
 *    closed, or is being handled by versioning on the deployment side): re-record the histories with
 *        npx tsx scripts/record-histories.ts            # all scenarios
 *        npx tsx scripts/record-histories.ts expired    # or just some
 *    and commit the new test/replay/histories/*.json with the change, saying why in the commit message.
 *
 * The recorded runs are the scenarios of ./scenarios.ts (driven through the fake activities of
 * test/workflows/harness.ts). To add one, add a scenario there and record it by name.
 *
 * REPLAY_WORKFLOWS_PATH=/path/to/workflows/index.ts replays against another copy of the workflow code, e.g. to
 * check a candidate change kept outside the repository.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { quietSdkLogs } from '../workflows/harness';
import { historyFromJSON } from './history-json';
import { REPLAY_SCENARIOS, scenarioPaymentId } from './scenarios';

const { EventType } = temporal.api.enums.v1;
const HISTORIES_DIR = path.join(__dirname, 'histories');
const WORKFLOWS_PATH = process.env.REPLAY_WORKFLOWS_PATH
  ? path.resolve(process.env.REPLAY_WORKFLOWS_PATH)
  : require.resolve('../../workflows');

const historyFiles = readdirSync(HISTORIES_DIR)
  .filter((file) => file.endsWith('.json'))
  .sort();

describe('payment workflow replay (recorded histories)', function () {
  this.timeout(60_000);

  const results = new Map<string, ReplayResult>();

  before(async function () {
    quietSdkLogs();
    const histories = historyFiles.map((file) => ({
      workflowId: path.basename(file, '.json'),
      history: historyFromJSON(readFileSync(path.join(HISTORIES_DIR, file), 'utf8')),
    }));
    for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH, replayName: 'payment-replay' }, histories)) {
      results.set(result.workflowId, result);
    }
  });

  it('has a recorded history for every scenario, and no history without a scenario', () => {
    assert.deepEqual(historyFiles, REPLAY_SCENARIOS.map((s) => `${s.name}.json`).sort());
  });

  for (const file of historyFiles) {
    const name = path.basename(file, '.json');
    it(`replays ${file} deterministically`, () => {
      const history = historyFromJSON(readFileSync(path.join(HISTORIES_DIR, file), 'utf8'));
      const started = history.events[0]?.workflowExecutionStartedEventAttributes;
      assert.equal(started?.workflowType?.name, 'paymentWorkflow');
      assert.ok(
        started.input?.payloads?.[0]?.data && Buffer.from(started.input.payloads[0].data).toString().includes(scenarioPaymentId(name)),
        `${file} is not the recording of scenario ${name}`,
      );
      assert.equal(history.events.at(-1)?.eventType, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, `${file} is not a completed run`);

      const result = results.get(name);
      assert.ok(result, `${file} was not replayed`);
      if (result.error) assert.fail(`${file} does not replay: ${result.error.name}: ${result.error.message}`);
    });
  }
});
