import assert from 'node:assert/strict';
import type { SinkMessage } from '../../scripts/dev/mail-sink';

/** What the dev mail sink at `mailSinkUrl` holds for `to`, oldest first. */
export async function sinkMessages(mailSinkUrl: string, to: string): Promise<SinkMessage[]> {
  const res = await fetch(`${mailSinkUrl}/messages?to=${encodeURIComponent(to)}`);
  assert.equal(res.status, 200);
  return (await res.json()) as SinkMessage[];
}
