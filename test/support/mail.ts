import assert from 'node:assert/strict';
import type { SinkMessage } from '../../tools/stack/mail-sink';
import { request } from './http';

/** What the dev mail sink at `mailSinkUrl` holds for `to`, oldest first. */
export async function sinkMessages(mailSinkUrl: string, to: string): Promise<SinkMessage[]> {
  const res = await request<SinkMessage[]>(`${mailSinkUrl}/messages?to=${encodeURIComponent(to)}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}
