/**
 * Replays every recorded history against the current workflow code. A failure means the change would break runs
 * that are open while it is deployed: their workers would hit a non-determinism error when replaying them (after
 * a restart, cache eviction or worker crash). docs/workflow-versioning.md says how such a change ships: on a worker
 * deployment of its own (pinned runs finish on the build they started on), or behind `patched()`; the histories are
 * recorded again with each release (`npx tsx tools/record-histories.ts`).
 *
 * Each file is also checked against its scenario (workflow type, how it ended, the activities it called), so a
 * history cannot silently be the recording of something else. REPLAY_WORKFLOWS_PATH=/path/to/workflows/index.ts
 * replays against another copy of the workflow code (the previous release's histories against this code, say).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker, type ReplayResult } from '@temporalio/worker';
import type { PaymentWorkflowInput } from '../../workflows/types';
import { activitiesCalled } from '../support/history';
import { quietSdkLogs } from '../support/temporal';
import { historyFromJSON } from './history-json';
import { HISTORY_SCENARIOS } from './scenarios';

const { EventType } = temporal.api.enums.v1;
const HISTORIES_DIR = path.join(__dirname, 'histories');
const WORKFLOWS_PATH = process.env.REPLAY_WORKFLOWS_PATH ? path.resolve(process.env.REPLAY_WORKFLOWS_PATH) : require.resolve('../../workflows');

const historyFiles = readdirSync(HISTORIES_DIR)
  .filter((file) => file.endsWith('.json'))
  .sort();
const load = (name: string) => historyFromJSON(readFileSync(path.join(HISTORIES_DIR, `${name}.json`), 'utf8'));
const decode = (payload: { data?: Uint8Array | null } | undefined | null): unknown => (payload?.data ? JSON.parse(Buffer.from(payload.data).toString()) : undefined);

describe('workflow replay (every recorded history)', function () {
  this.timeout(120_000);
  const results = new Map<string, ReplayResult>();

  before(async function () {
    quietSdkLogs();
    const histories = historyFiles.map((file) => ({ workflowId: path.basename(file, '.json'), history: load(path.basename(file, '.json')) }));
    for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH, replayName: 'replay' }, histories)) {
      results.set(result.workflowId, result);
    }
  });

  it('has a recorded history for every scenario, and no history without a scenario', () => {
    assert.deepEqual(historyFiles, HISTORY_SCENARIOS.map((s) => `${s.name}.json`).sort());
  });

  it('a payment run starts with exactly its payment id and expiry', () => {
    const payments = HISTORY_SCENARIOS.filter((s) => s.workflowType === 'paymentWorkflow');
    assert.ok(payments.length >= 14, `${payments.length} payment histories`);
    for (const { name } of payments) {
      const input = decode(load(name).events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]) as PaymentWorkflowInput;
      assert.deepEqual(Object.keys(input).sort(), ['expiresAt', 'paymentId'], name);
      assert.equal(typeof input.paymentId, 'string', name);
      assert.ok(!Number.isNaN(Date.parse(input.expiresAt)), `${name}: expiresAt is a time`);
    }
  });

  it('a payment started delayed until its expiry runs no workflow task before its payin or its expiry', () => {
    const tasks = (history: temporal.api.history.v1.IHistory) => (history.events ?? []).filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length;
    for (const name of ['payment-expired', 'payment-same-chain-completed']) {
      const history = load(name);
      const [started, firstTask] = history.events ?? [];
      assert.ok(Number(started?.workflowExecutionStartedEventAttributes?.firstWorkflowTaskBackoff?.seconds) > 0, `${name} started with a start delay`);
      if (name.endsWith('expired')) {
        assert.equal(tasks(history), 1, 'an unpaid payment costs one workflow task, at its expiry');
        assert.ok(Number(firstTask?.eventTime?.seconds) - Number(started?.eventTime?.seconds) >= 30 * 60, 'and it comes at the expiry');
      }
    }
  });

  it('a chain wait that failed in the workflow task was handed to an activity task', () => {
    const scheduled = load('payment-wait-handed-to-activity-completed').events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));
    assert.deepEqual(scheduled, ['awaitPayinConfirmation']);
  });

  for (const scenario of HISTORY_SCENARIOS) {
    it(`${scenario.name}.json is the recording of its scenario and replays deterministically`, () => {
      const history = load(scenario.name);
      const started = history.events[0]?.workflowExecutionStartedEventAttributes;
      assert.equal(started?.workflowType?.name, scenario.workflowType);
      assert.ok(JSON.stringify(decode(started?.input?.payloads?.[0])).includes(scenario.marker), `the run's input names ${scenario.marker}`);
      const last = history.events.at(-1);
      if (scenario.ending === 'continued-as-new') {
        assert.equal(last?.eventType, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
      } else {
        assert.equal(last?.eventType, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
        assert.equal(decode(last?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0]), scenario.ending.result);
      }
      assert.deepEqual(activitiesCalled(history), scenario.activities, 'the activities of the scenario, in the order of their first call');

      const result = results.get(scenario.name);
      assert.ok(result, `${scenario.name} was not replayed`);
      if (result.error) assert.fail(`${scenario.name} does not replay: ${result.error.name}: ${result.error.message}`);
    });
  }
});
