/**
 * Payin detection: the chain watcher's scan (which transfers reached deposit addresses, handed to the run that owns
 * each) and one look at a payin's confirmation.
 */
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import type { Logger } from '../lib/logger';
import { paymentDestination, type ChainAdapter, type DepositAccounts, type PayinCheck } from '../chains/family';
import type { ChainDepth } from '../domain/chain-txs';
import { isNativeToken } from '../domain/payment';
import type { DetectedPayin } from '../domain/payins';
import { advanceChainCursor, findChainCursor, type ChainCursor } from '../db/queries/chain-cursors';
import { findDepositAccounts, listUnrecordedDeposits, recordDepositAccounts } from '../db/queries/deposit-accounts';
import { findPaymentsByIds, findWatchedDepositAddresses } from '../db/queries/payments';
import type { PaymentRow } from '../db/tables';
import type { WorkerMetrics } from '../lib/metrics';
import { quarantinePayins, recordQuarantinedEntries } from './ledger';
import { routePayin } from './workflows';

export interface PayinServiceDeps {
  knex: Knex;
  chains: ChainAdapters;
  temporal: { client: Client; taskQueue: string };
  metrics: Pick<WorkerMetrics, 'payinDetectionLag'>;
  log?: Logger;
}

/** Blocks the watcher steps back when its cursor block is no longer canonical. */
const REORG_REWIND_BLOCKS = 64;
/** Where a watcher with no cursor starts, below the head, so payments created just before it started are seen. */
const FIRST_SCAN_LOOKBACK_BLOCKS = 256;

export interface ScanResult {
  /** The range scanned (inclusive); null when there was nothing new. */
  range: { fromBlock: number; toBlock: number } | null;
  /** True when the scan reached the chain head, so the watcher may wait for new blocks. */
  caughtUp: boolean;
  /** Payins found in the range and handed to their runs. */
  payins: number;
  /** The chain's head as the scan read it. */
  head: number;
}

/** Where the next scan starts: after the cursor, or below it when its block was reorged away. */
async function nextBlock(deps: PayinServiceDeps, chainId: number, cursor: ChainCursor | null, head: number): Promise<number> {
  if (!cursor) return Math.max(0, head - FIRST_SCAN_LOOKBACK_BLOCKS);
  const cursorHash = cursor.blockNumber <= head ? await deps.chains.adapter(chainId).blockHash(cursor.blockNumber) : null;
  return cursorHash === cursor.blockHash ? cursor.blockNumber + 1 : Math.max(0, Math.min(cursor.blockNumber, head) - REORG_REWIND_BLOCKS);
}

/** The deposits' receiving accounts of a chain as PostgreSQL records them (chains/family.ts `DepositAccounts`). */
function depositAccounts(knex: Knex, chainId: number): DepositAccounts {
  return {
    unrecorded: () => listUnrecordedDeposits({ knex, chainId }),
    record: (deposits) => recordDepositAccounts({ knex, chainId, deposits }),
    find: async (accounts) => new Map((await findDepositAccounts({ knex, chainId, accounts })).map((a) => [a.account, { address: a.address, tokenAddress: a.tokenAddress }])),
  };
}

/**
 * Whether a transfer into a payment's deposit is a payin (counted, or refunded by its run): an asset the chain serves
 * (a configured token, or the native coin where the chain configures it) that the family lets such a deposit take.
 * Anything else is quarantined for the operator: never counted, never refunded, never swept.
 */
function takesPayin(deps: PayinServiceDeps, adapter: ChainAdapter, payment: PaymentRow, transfer: DetectedPayin): boolean {
  const { registry } = deps.chains;
  const served = isNativeToken(transfer.tokenAddress)
    ? registry.findNativeToken(transfer.chainId) !== undefined
    : registry.tokenByAddress(transfer.chainId, transfer.tokenAddress) !== undefined;
  return served && (adapter.takesPayin?.(payment.source_token_address, transfer.tokenAddress) ?? true);
}

/**
 * Scans the next range (at most `maxBlocks`) after the chain's stored cursor: the family's adapter reads every
 * transfer of the range's blocks (chains/family.ts `scanPayins`), this keeps those into watched deposits, hands the
 * payins to the run that owns each address (all at once), records every other asset into a deposit as quarantined
 * for its payment, and quarantines whatever reached the shared receiving account naming no deposit; then it moves
 * the cursor. Idempotent: a scan that fails before moving the cursor is repeated, and runs deduplicate payins (and
 * the ledger quarantined transfers) on their identity. Only after every transfer of the range was handed over or
 * recorded does the cursor move, so none is ever dropped. Its cost grows with the blocks' transfers, not with the
 * number of open payments.
 */
export async function scanChain(
  deps: PayinServiceDeps,
  input: { chainId: number; maxBlocks: number; heartbeat: () => void; caughtUpAt?: number },
): Promise<ScanResult> {
  const { knex, chains } = deps;
  const adapter = chains.adapter(input.chainId);
  // The head the chain's waits share. Not past the head at which this watch's last scan had read everything: nothing
  // new to read, not even the cursor (a reorg at that height is seen by the next block's scan, which checks the
  // cursor's hash).
  const head = await chains.sharedHead(input.chainId);
  if (input.caughtUpAt !== undefined && head <= input.caughtUpAt) return { range: null, caughtUp: true, payins: 0, head };
  const cursor = await findChainCursor({ knex, chainId: input.chainId });
  const fromBlock = await nextBlock(deps, input.chainId, cursor, head);
  if (fromBlock > head) return { range: null, caughtUp: true, payins: 0, head };
  const toBlock = Math.min(head, fromBlock + input.maxBlocks - 1);

  // A transfer of nothing (a zero-amount token transfer, as spam sends) moves nothing: it is no payin and no quarantine.
  const transfers = (await adapter.scanPayins({ fromBlock, toBlock, accounts: depositAccounts(knex, input.chainId), heartbeat: input.heartbeat })).filter((t) => BigInt(t.amountUnits) > 0n);

  const matched = await findWatchedDepositAddresses({ knex, chainId: input.chainId, addresses: [...new Set(transfers.map((t) => t.to.toLowerCase()))] });
  const paymentByAddress = new Map(matched.map((w) => [w.address, w.payment_id]));
  const payments = new Map((await findPaymentsByIds({ knex, ids: [...new Set(paymentByAddress.values())] })).map((p) => [p.id, p]));
  const paymentOf = (t: DetectedPayin): PaymentRow | undefined => payments.get(paymentByAddress.get(t.to.toLowerCase()) ?? '');
  const received = transfers.filter((t) => paymentOf(t) !== undefined);
  const payins = received.filter((t) => takesPayin(deps, adapter, paymentOf(t)!, t));
  // What a deposit does not take decides nothing: recorded for the operator on its payment, never handed to a run.
  const others = received.filter((t) => !payins.includes(t));
  await recordQuarantinedEntries({ knex }, others.map((transfer) => ({ paymentId: paymentOf(transfer)!.id, transfer })));
  for (const t of others) deps.log?.warn({ chainId: t.chainId, txHash: t.txHash, to: t.to, tokenAddress: t.tokenAddress, amountUnits: t.amountUnits }, 'transfer quarantined for the operator: an asset its deposit does not take');
  // Into the account every deposit shares but for no payment: quarantined for the operator before the cursor moves on.
  const shared = adapter.sharedReceiver;
  const intoShared = (t: DetectedPayin) => t.to === shared || paymentDestination(adapter, t.to).address === shared;
  const unmatched = shared === undefined ? [] : transfers.filter((t) => paymentOf(t) === undefined && intoShared(t)).map((t) => ({ ...t, to: shared }));
  await quarantinePayins({ knex }, unmatched);
  for (const payin of unmatched) deps.log?.warn({ chainId: payin.chainId, txHash: payin.txHash, from: payin.from, amountUnits: payin.amountUnits }, 'payin quarantined for the operator: it names no payment');
  await Promise.all(
    // Each handover heartbeats: a hundred payins in one range take longer than the heartbeat timeout under load.
    payins.map((payin: DetectedPayin) => routePayin(deps, paymentOf(payin)!, payin).then(input.heartbeat)),
  );

  await observeDetectionLag(deps, input.chainId, payins);

  const blockHash = await adapter.blockHash(toBlock);
  if (!blockHash) throw new Error(`block ${toBlock} on chain ${input.chainId} is not available`);
  // Another scan moving the cursor meanwhile (a zombie attempt) is fine: the payins above were handed over anyway.
  await advanceChainCursor({ knex, chainId: input.chainId, from: cursor, to: { blockNumber: toBlock, blockHash } });
  return { range: { fromBlock, toBlock }, caughtUp: toBlock >= head, payins: payins.length, head };
}

/**
 * Scans again and again for `keepScanningMs`, pausing `pollIntervalMs` (at most the time left) whenever caught up and
 * heartbeating after each scan, and answers the last scan's result: one activity watches a chain for that long,
 * where one activity per scan cost Temporal an activity task, a timer and two workflow tasks every poll interval.
 * A scan that fails ends it (the watcher halves the range and tries again).
 */
export async function keepScanning(
  scan: () => Promise<ScanResult>,
  options: { pollIntervalMs: number; keepScanningMs: number; heartbeat: () => void; sleep: (ms: number) => Promise<void> },
): Promise<ScanResult> {
  const until = Date.now() + options.keepScanningMs;
  for (;;) {
    const result = await scan();
    options.heartbeat();
    const left = until - Date.now();
    if (left <= 0) return result;
    if (result.caughtUp) await options.sleep(Math.min(options.pollIntervalMs, left));
  }
}

/** Time from each payin's block to its hand-over, for the payin detection lag histogram. */
async function observeDetectionLag(deps: PayinServiceDeps, chainId: number, payins: DetectedPayin[]): Promise<void> {
  const adapter = deps.chains.adapter(chainId);
  const handedOverAt = Date.now() / 1000;
  for (const blockNumber of new Set(payins.map((p) => p.blockNumber))) {
    const blockTime = await adapter.blockTime(blockNumber);
    if (blockTime === null) continue;
    const lag = Math.max(0, handedOverAt - blockTime);
    for (const payin of payins) if (payin.blockNumber === blockNumber) deps.metrics.payinDetectionLag.observe({ chain: String(chainId) }, lag);
  }
}

/** One look at a payin's confirmation at the chain's confirmations or finality depth. */
export async function checkPayinConfirmation(deps: Pick<PayinServiceDeps, 'chains'>, payin: DetectedPayin, depth: ChainDepth): Promise<PayinCheck> {
  const chain = deps.chains.registry.chain(payin.chainId);
  return deps.chains.adapter(payin.chainId).checkPayin(payin, depth === 'finality' ? chain.finalityDepth : chain.confirmations);
}
