import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { Knex } from 'knex';
import { insertApiKey, upsertMerchantApp } from '../../db/queries/merchants';
import type { ApiKeyScope } from '../../db/tables';
import { generateApiKey } from '../../lib/api-keys';
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

/** A merchant app with a live Orders and Admin key, written straight to the database. */
export interface TestMerchant {
  appId: string;
  ordersKey: string;
  adminKey: string;
}

export async function createMerchant(
  knex: Knex,
  options: { apiKeyPrefix: string; payoutAddress: string; payoutChainId?: number; payoutTokenSymbol?: string; webhookUrl?: string | null; name?: string },
): Promise<TestMerchant> {
  const appId = `merchant_test-${randomBytes(5).toString('hex')}`;
  await upsertMerchantApp({
    knex,
    app: {
      app_id: appId,
      name: options.name ?? `Test merchant ${appId}`,
      payout_chain_id: options.payoutChainId ?? 8453,
      payout_token_symbol: options.payoutTokenSymbol ?? 'USDC',
      payout_address: options.payoutAddress,
      webhook_url: options.webhookUrl ?? null,
    },
  });
  const key = async (scope: ApiKeyScope) => {
    const { key: raw, keyHash, keyHint } = generateApiKey(options.apiKeyPrefix);
    await insertApiKey({ knex, key: { id: randomUUID(), app_id: appId, scope, key_hash: keyHash, key_hint: keyHint, name: `test ${scope}` } });
    return raw;
  };
  return { appId, ordersKey: await key('Orders'), adminKey: await key('Admin') };
}

export async function countPayments(knex: Knex, where: Record<string, unknown> = {}): Promise<number> {
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
