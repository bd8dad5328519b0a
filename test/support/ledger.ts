import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { ChainAdapters } from '../../services/chains';
import { reconcileLedger } from '../../services/ledger';
import { eventually } from './poll';

/**
 * `npm run reconcile -- --app <appId>`: every deposit of the app holds on chain what the ledger says, none left
 * uncompared. Compared once none is in flight: a completed payment's sweep lands behind it.
 */
export async function assertAppReconciled(deps: { knex: Knex; chains: ChainAdapters }, appId: string): Promise<void> {
  const { accounts, failures } = await eventually('the app\'s deposits settled', 60_000, async () => {
    const result = await reconcileLedger(deps, { appId });
    return result.accounts.some((a) => a.kind === 'deposit' && a.inFlight) ? undefined : result;
  }, 500);
  const differing = accounts.filter((a) => a.difference !== 0n).map((a) => `${a.kind} ${a.address} of chain ${a.chainId} ${a.tokenAddress}: ${a.difference}`);
  assert.equal(failures, 0, differing.join('; '));
  const deposits = accounts.filter((a) => a.kind === 'deposit');
  assert.ok(deposits.length > 0 && deposits.every((a) => a.difference === 0n), `the app's deposits equal to the chain: ${differing.join('; ')}`);
}
