import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { Knex } from 'knex';
import type { HttpResult } from '../support/http';

export interface ErrorBody {
  error: string;
  message: string;
  details?: Array<{ path: string; message: string }>;
}

/** The documented error envelope: JSON, `{ error: <snake_case>, message, details? }`. */
export function assertErrorEnvelope(res: HttpResult, label = ''): ErrorBody {
  const where = `${label} → HTTP ${res.status} ${res.text.slice(0, 300)}`;
  assert.match(res.contentType ?? '', /^application\/json\b/, `content-type is JSON: ${where}`);
  assert.ok(res.body && typeof res.body === 'object' && !Array.isArray(res.body), `body is a JSON object: ${where}`);
  const body = res.body as Record<string, unknown>;
  assert.equal(typeof body.error, 'string', `error is a string: ${where}`);
  assert.match(body.error as string, /^[a-z]+(_[a-z]+)*$/, `error is snake_case: ${where}`);
  assert.equal(typeof body.message, 'string', `message is a string: ${where}`);
  assert.ok((body.message as string).length > 0, `message is not empty: ${where}`);
  if (body.details !== undefined) {
    assert.ok(Array.isArray(body.details) && body.details.length > 0, `details is a non-empty array: ${where}`);
    for (const d of body.details as unknown[]) {
      const detail = d as Record<string, unknown>;
      assert.equal(typeof detail.path, 'string', `details[].path is a string: ${where}`);
      assert.equal(typeof detail.message, 'string', `details[].message is a string: ${where}`);
    }
  }
  return body as unknown as ErrorBody;
}

export async function countPayments(knex: Knex, where: Record<string, unknown> | Knex.QueryCallback = {}): Promise<number> {
  const [row] = await knex('payments').where(where).count<Array<{ count: string }>>({ count: '*' });
  return Number(row?.count ?? 0);
}

export async function listWorkflows(client: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  for await (const wf of client.workflow.list({ query })) found.push(wf);
  return found;
}

/** A unique, valid order id per call, so runs and tests never collide. */
export function uniqueOrderId(tag: string): string {
  return `${tag}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}
