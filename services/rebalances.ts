/**
 * Rebalancing the treasuries behind the payments (docs/operations.md, "Treasury float"): a treasury whose float of a
 * token is below its low mark is refilled, in one bridge transfer, from the treasury of the same token the plan
 * names (domain/float.ts), where a bridge connects them; each such transfer is a rebalance row and its own run
 * (`rebalance-<id>`). Where no bridge connects them, the need shows on `/metrics` and in `npm run reconcile`, and
 * nothing is recorded: the operator moves the float by hand and books it (`npm run float:record-transfer`).
 */
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { findChainTx } from '../db/queries/chain-txs';
import { sumLedgerEntriesByRef } from '../db/queries/ledger';
import { finishRebalance, findRebalance, listBridgingRebalances, openRebalance, recordRebalanceQuote, recordRebalanceReceived } from '../db/queries/rebalances';
import type { RebalanceRow } from '../db/tables';
import type { BridgeQuote } from '../domain/bridges';
import { intentKeys } from '../domain/chain-txs';
import type { Rebalance } from '../domain/float';
import type { Logger } from '../lib/logger';
import type { rebalanceWorkflow } from '../workflows';
import { LOCAL_WAITS_WORKFLOW_TASK_TIMEOUT } from '../workflows/activity-options';
import { rebalanceWorkflowId } from '../workflows/ids';
import type { RebalanceTerms } from '../workflows/types';
import { rebalanceRefs } from './ledger';
import { rebalancePlan, readTreasuryFloats } from './treasury-float';
import type { WorkflowStarterDeps } from './workflows';

export interface RebalanceDeps extends WorkflowStarterDeps {
  chains: ChainAdapters;
  log: Logger;
}

/** What one round of the rebalancer did: the rebalances it opened, those bridging, and the needs left to an operator. */
export interface RebalanceRound {
  opened: string[];
  bridging: string[];
  operatorNeeds: Array<Omit<Rebalance, 'amountUnits'> & { amountUnits: string }>;
}

/**
 * One round: reads every treasury's float and the plan; opens a rebalance for each refill a bridge can carry whose
 * short treasury has none bridging to it yet (and whose route has none: one per route), and makes sure every
 * rebalance bridging has its run. Idempotent: a repeated round opens nothing twice and starts no run twice.
 */
export async function runRebalanceRound(deps: RebalanceDeps): Promise<RebalanceRound> {
  const plan = rebalancePlan(deps.chains, await readTreasuryFloats(deps));
  const busy = await listBridgingRebalances({ knex: deps.knex });
  const opened: string[] = [];
  for (const r of plan) {
    if (r.route !== 'bridge' || r.fromChainId === null || r.amountUnits <= 0n) continue;
    // The refill on its way counts: the short treasury waits for it rather than taking a second one.
    if (busy.some((b) => b.token_symbol === r.symbol && b.to_chain_id === r.toChainId)) continue;
    const row = await openRebalance({ knex: deps.knex, row: { id: randomUUID(), token_symbol: r.symbol, from_chain_id: r.fromChainId, to_chain_id: r.toChainId, amount_units: r.amountUnits.toString() } });
    if (!row) continue;
    deps.log.info({ rebalanceId: row.id, token: r.symbol, fromChainId: r.fromChainId, toChainId: r.toChainId, amountUnits: row.amount_units }, 'treasury float short: rebalance opened');
    opened.push(row.id);
  }
  const bridging = await listBridgingRebalances({ knex: deps.knex });
  for (const row of bridging) await ensureRebalanceWorkflow(deps, row);
  const operatorNeeds = plan.filter((r) => r.route === 'operator').map((r) => ({ ...r, amountUnits: r.amountUnits.toString() }));
  for (const need of operatorNeeds) deps.log.warn(need, 'treasury float short and no bridge route: an operator moves it (npm run float:record-transfer)');
  return { opened, bridging: bridging.map((r) => r.id), operatorNeeds };
}

/** Starts the rebalance's run unless it has one (running, or closed: a rebalance runs once). */
async function ensureRebalanceWorkflow(deps: WorkflowStarterDeps, row: RebalanceRow): Promise<void> {
  await deps.temporal.client.workflow
    .start<typeof rebalanceWorkflow>('rebalanceWorkflow', {
      workflowId: rebalanceWorkflowId(row.id),
      taskQueue: deps.temporal.taskQueue,
      args: [{ rebalanceId: row.id }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowTaskTimeout: LOCAL_WAITS_WORKFLOW_TASK_TIMEOUT,
      memo: { route: `${row.token_symbol} chain ${row.from_chain_id} → chain ${row.to_chain_id}`, amountUnits: row.amount_units },
    })
    .catch((err: unknown) => {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    });
}

/** The rebalance's terms as stored: its run moves money on these only. */
export async function loadRebalanceTerms(deps: { knex: Knex }, rebalanceId: string): Promise<RebalanceTerms> {
  const row = await findRebalance({ knex: deps.knex, id: rebalanceId });
  if (!row) throw new Error(`rebalance ${rebalanceId} does not exist`);
  return { rebalanceId: row.id, tokenSymbol: row.token_symbol, fromChainId: row.from_chain_id, toChainId: row.to_chain_id, amountUnits: row.amount_units, status: row.status };
}

export const keepRebalanceQuote = (deps: { knex: Knex }, rebalanceId: string, quote: BridgeQuote): Promise<void> => recordRebalanceQuote({ knex: deps.knex, id: rebalanceId, quote });

/**
 * The rebalance's run ended: arrived (what reached the destination treasury, as the ledger booked it from the chain)
 * or failed (its approval or start reverted: nothing left the source treasury). Idempotent.
 */
export async function endRebalance(deps: { knex: Knex }, rebalanceId: string, status: 'completed' | 'failed'): Promise<{ receivedUnits: string }> {
  // A transfer that left the source treasury and reverted on its way in stays bridging: its route waits for an operator.
  if (status === 'failed' && (await findChainTx({ knex: deps.knex, intentKey: intentKeys.rebalanceBurn(rebalanceId) }))?.status === 'confirmed') return { receivedUnits: '0' };
  const received = await sumLedgerEntriesByRef({ knex: deps.knex, refs: rebalanceRefs(rebalanceId).received });
  if (status === 'completed') await recordRebalanceReceived({ knex: deps.knex, id: rebalanceId, receivedUnits: received.toString() });
  await finishRebalance({ knex: deps.knex, id: rebalanceId, status });
  return { receivedUnits: received.toString() };
}
