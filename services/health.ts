/** Readiness of a process (an API, a worker): can it reach PostgreSQL and Temporal right now? */
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';

export interface Readiness {
  ready: boolean;
  checks: { postgres: string; temporal: string };
}

const CHECK_TIMEOUT_MS = 2_000;

async function check(probe: () => Promise<unknown>): Promise<string> {
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS).unref()),
    ]);
    return 'ok';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export async function checkReadiness(deps: { knex: Knex; client: Client }): Promise<Readiness> {
  const [postgres, temporal] = await Promise.all([
    check(() => deps.knex.raw('select 1')),
    check(() => deps.client.workflowService.describeNamespace({ namespace: deps.client.options.namespace })),
  ]);
  return { ready: postgres === 'ok' && temporal === 'ok', checks: { postgres, temporal } };
}
