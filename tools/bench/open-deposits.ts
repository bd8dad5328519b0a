import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { ChainAdapters } from '../../chains/adapters';
import { ChainRegistry } from '../../chains/registry';
import { advanceChainCursor, deleteChainCursors } from '../../db/queries/chain-cursors';
import { createRegistry, createWorkerMetrics } from '../../lib/metrics';
import { scanChain } from '../../services/payins';
import type { Stack } from '../stack/stack';
import { percentile, type Figure } from './report';

/** The scale target of a family's scan: this many open deposits, against one. */
export const OPEN_DEPOSITS = 100_000;
/** The blocks every measured scan covers: the same range with one open deposit and with OPEN_DEPOSITS. */
const SCAN_BLOCKS = 60;
/** Scans measured per side (after one that warms the adapter and the database up); the median is the figure. */
const RUNS = 7;

/**
 * A real payment (the demo merchant's, on the EVM devnet) for the synthetic ones to copy: run alone, a section finds
 * none left behind by the create or settlement section.
 */
export async function ensureTemplatePayment(stack: Stack, knex: Knex): Promise<void> {
  if (await knex('payments').first('id')) return;
  const res = await fetch(stack.info.paymentApiUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': stack.info.demoMerchant.ordersKey },
    body: JSON.stringify({ type: 'exactIn', orderId: `bench-template-${randomUUID()}`, display: { name: 'bench' }, source: { chainId: '42161', tokenSymbol: 'USDC', amount: '1.25' } }),
  });
  if (res.status !== 201) throw new Error(`template payment: HTTP ${res.status} ${await res.text()}`);
}

/** A family's synthetic open deposits: their addresses, and (TON) the accounts each receives through, as a scan records them. */
export interface OpenDeposits {
  label: string;
  chainId: number;
  token: { symbol: string; address: string; decimals: number };
  /** A new deposit address nobody pays. */
  newAddress(): string;
  /** The accounts a deposit's scan records for it (`deposit_accounts`), for families that record any. */
  accounts?(address: string): Array<{ account: string; tokenAddress: string }>;
}

/**
 * `count` synthetic open payments on a non-EVM chain, each with its own watched deposit address (and its recorded
 * accounts), paid in the family's token (copied from a real payment otherwise). They are never paid.
 */
async function insertOpenDeposits(knex: Knex, p: OpenDeposits, count: number): Promise<void> {
  const addresses = Array.from({ length: count }, () => p.newAddress());
  const inserted = await knex.raw<{ rowCount: number }>(
    `with src as (select * from payments order by created_at limit 1),
     addrs as (select a, row_number() over () as g from unnest(?::text[]) a),
     pay as (insert into payments (id, app_id, order_id, status, display, source_chain_id, source_token_symbol,
               source_token_address, source_decimals, source_amount_units, fee_units, deposit_address,
               destination_chain_id, destination_token_symbol, destination_token_address, destination_decimals,
               destination_address, destination_amount_units, expires_at, workflow_started_at)
             select gen_random_uuid(), src.app_id, 'bench-scan-' || ? || '-' || gen_random_uuid(), 'payment_unpaid', src.display, ?,
               ?, ?, ?, src.source_amount_units, src.fee_units, addrs.a, src.destination_chain_id,
               src.destination_token_symbol, src.destination_token_address, src.destination_decimals,
               src.destination_address, src.destination_amount_units, now() + interval '1 day', now()
             from addrs cross join src returning id, deposit_address)
     insert into deposit_addresses (chain_id, address, payment_id, watch_until, accounts_recorded)
     select ?, lower(deposit_address), id, now() + interval '1 day', ? from pay`,
    [addresses, p.chainId, p.chainId, p.token.symbol, p.token.address, p.token.decimals, p.chainId, p.accounts !== undefined],
  );
  if (inserted.rowCount !== count) throw new Error(`watched ${inserted.rowCount} synthetic deposits, expected ${count}`);
  if (p.accounts) {
    const rows = addresses.flatMap((address) => p.accounts!(address).map((a) => ({ account: a.account.toLowerCase(), deposit: address.toLowerCase(), token: a.tokenAddress })));
    for (let i = 0; i < rows.length; i += 20_000) {
      const chunk = rows.slice(i, i + 20_000);
      await knex.raw(
        `insert into deposit_accounts (chain_id, account, deposit_address, token_address)
         select ?, a, d, t from unnest(?::text[], ?::text[], ?::text[]) as x(a, d, t)`,
        [p.chainId, chunk.map((r) => r.account), chunk.map((r) => r.deposit), chunk.map((r) => r.token)],
      );
    }
  }
  await knex.raw('analyze deposit_addresses');
  await knex.raw('analyze deposit_accounts');
}

/**
 * One watcher scan (`scanChain`, as the worker runs it) of the same SCAN_BLOCKS blocks of a non-EVM chain with one
 * open deposit, then with OPEN_DEPOSITS: a scan reads the range's blocks and matches what they carry against the
 * deposits in indexed queries, so its cost is the blocks', not the open deposits'. Each side is the median of RUNS
 * scans after a warm-up. Run with the worker stopped (its watcher would move the same cursor).
 */
export async function benchOpenDepositScan(stack: Stack, knex: Knex, p: OpenDeposits, log: (line: string) => void): Promise<Figure[]> {
  await ensureTemplatePayment(stack, knex);
  const chains = new ChainAdapters(ChainRegistry.fromFile(stack.config.chainsFile));
  const connection = await Connection.connect({ address: stack.info.temporalAddress });
  try {
    const adapter = chains.adapter(p.chainId);
    const deps = {
      knex,
      chains,
      temporal: { client: new Client({ connection }), taskQueue: stack.config.temporal.taskQueue },
      metrics: createWorkerMetrics(createRegistry({ process: 'bench' })),
    };
    // A devnet started for this run may not have the range yet.
    while ((await adapter.head()) < SCAN_BLOCKS + 2) await delay(1000);
    const toBlock = (await adapter.head()) - 1;
    const fromBlock = toBlock - SCAN_BLOCKS + 1;
    const scanOnce = async (): Promise<number> => {
      await deleteChainCursors({ knex, chainIds: [p.chainId] });
      await advanceChainCursor({ knex, chainId: p.chainId, from: null, to: { blockNumber: fromBlock - 1, blockHash: (await adapter.blockHash(fromBlock - 1))! } });
      const start = performance.now();
      const scan = await scanChain(deps, { chainId: p.chainId, maxBlocks: SCAN_BLOCKS, heartbeat: () => undefined });
      const ms = performance.now() - start;
      if (scan.range?.fromBlock !== fromBlock || scan.range.toBlock !== toBlock) throw new Error(`${p.label} scan covered ${JSON.stringify(scan.range)}, not ${fromBlock}..${toBlock}`);
      return ms;
    };
    const median = async (): Promise<number> => {
      await scanOnce();
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await scanOnce());
      return percentile(runs, 50);
    };
    await insertOpenDeposits(knex, p, 1);
    const one = await median();
    await insertOpenDeposits(knex, p, OPEN_DEPOSITS - 1);
    const many = await median();
    log(`${p.label}: one scan of blocks ${fromBlock}..${toBlock}: ${one.toFixed(0)} ms with 1 open deposit, ${many.toFixed(0)} ms with ${OPEN_DEPOSITS}`);
    return [
      {
        name: `${p.label} scan of ${SCAN_BLOCKS} blocks, ${OPEN_DEPOSITS} open deposits`,
        value: many,
        unit: 'ms',
        against: { name: '1 open deposit', value: one, unit: 'ms' },
        target: { kind: 'ratio', atMost: 1.5 },
      },
    ];
  } finally {
    chains.destroy();
    await connection.close();
  }
}
