import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { ChainAdapters } from '../../services/chains';
import { reconcileLedger } from '../../services/ledger';

/** `npm run reconcile -- --app <appId>`: every deposit of the app holds on chain what the ledger says, none left uncompared. */
export async function assertAppReconciled(deps: { knex: Knex; chains: ChainAdapters }, appId: string): Promise<void> {
  const { accounts, failures } = await reconcileLedger(deps, { appId });
  const differing = accounts.filter((a) => a.difference !== 0n).map((a) => `${a.kind} ${a.address} of chain ${a.chainId} ${a.tokenAddress}: ${a.difference}`);
  assert.equal(failures, 0, differing.join('; '));
  const deposits = accounts.filter((a) => a.kind === 'deposit');
  assert.ok(deposits.length > 0 && deposits.every((a) => !a.inFlight && a.difference === 0n), `the app's deposits settled and equal to the chain: ${differing.join('; ')}`);
}
