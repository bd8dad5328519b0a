/** Workflow for test/prod/temporal-server.test.ts: waits across a server restart for a signal, then needs an activity and a timer. */
import { condition, defineSignal, proxyActivities, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { PaymentStatusKey } from '../../workflows/search-attributes';

export interface ProbeActivities {
  echo(text: string): Promise<string>;
}

const { echo } = proxyActivities<ProbeActivities>({ startToCloseTimeout: '1 minute' });

export const finishSignal = defineSignal('finish');

export async function restartProbe(): Promise<string> {
  let finished = false;
  setHandler(finishSignal, () => {
    finished = true;
  });
  upsertSearchAttributes([{ key: PaymentStatusKey, value: 'waiting' }]);
  await condition(() => finished);
  const echoed = await echo('after restart');
  // A durable timer: fired by the restarted server's timer queue.
  await sleep('1 second');
  upsertSearchAttributes([{ key: PaymentStatusKey, value: 'done' }]);
  return echoed;
}
