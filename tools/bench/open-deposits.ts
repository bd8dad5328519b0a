import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { ChainAdapters } from '../../chains/adapters';
import { ChainRegistry } from '../../chains/registry';
import { advanceChainCursor, deleteChainCursors } from '../../db/queries/chain-cursors';
import { createRegistry, createWorkerMetrics } from '../../lib/metrics';
import { scanChain } from '../../services/payins';
import type { Stack } from '../stack/stack';
import type { Figure } from './report';

/** One scan over this many open deposits must end within the bound (the scale target for Solana and TON). */
export const OPEN_DEPOSITS = 10_000;
const SCAN_BOUND_MS = 2_000;

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

/**
 * Synthetic open payments on a non-EVM chain, each with its own watched deposit address from `addresses`, paid in
 * `token` (copied from a real payment otherwise). They are never paid: the scan reads every one and finds nothing.
 */
async function insertOpenDeposits(knex: Knex, p: { chainId: number; token: { symbol: string; address: string; decimals: number }; addresses: string[] }): Promise<void> {
  const inserted = await knex.raw<{ rowCount: number }>(
    `with src as (select * from payments order by created_at limit 1),
     addrs as (select a, row_number() over () as g from unnest(?::text[]) a),
     pay as (insert into payments (id, app_id, order_id, status, display, source_chain_id, source_token_symbol,
               source_token_address, source_decimals, source_amount_units, fee_units, deposit_address,
               destination_chain_id, destination_token_symbol, destination_token_address, destination_decimals,
               destination_address, destination_amount_units, expires_at, workflow_started_at)
             select gen_random_uuid(), src.app_id, 'bench-scan-' || ? || '-' || addrs.g, 'payment_unpaid', src.display, ?,
               ?, ?, ?, src.source_amount_units, src.fee_units, addrs.a, src.destination_chain_id,
               src.destination_token_symbol, src.destination_token_address, src.destination_decimals,
               src.destination_address, src.destination_amount_units, now() + interval '1 day', now()
             from addrs cross join src returning id, deposit_address)
     insert into deposit_addresses (chain_id, address, payment_id, watch_until)
     select ?, deposit_address, id, now() + interval '1 day' from pay`,
    [p.addresses, p.chainId, p.chainId, p.token.symbol, p.token.address, p.token.decimals, p.chainId],
  );
  if (inserted.rowCount !== p.addresses.length) throw new Error(`watched ${inserted.rowCount} synthetic deposits, expected ${p.addresses.length}`);
  await knex.raw('analyze deposit_addresses');
}

/**
 * One watcher scan (`scanChain`, as the worker runs it) of a non-EVM chain with OPEN_DEPOSITS open deposits, against
 * the absolute bound. The first scan fills the adapter's per-process caches (Solana token accounts, TON jetton
 * wallets); the figure is the steady state that every later scan is. Run with the worker stopped (its watcher would
 * move the same cursor).
 */
export async function benchOpenDepositScan(
  stack: Stack,
  knex: Knex,
  p: { label: string; chainId: number; token: { symbol: string; address: string; decimals: number }; addresses: string[] },
  log: (line: string) => void,
): Promise<Figure[]> {
  await ensureTemplatePayment(stack, knex);
  await insertOpenDeposits(knex, p);
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
    const scanOnce = async (label: string): Promise<number> => {
      // From just below the head: the scan reads the deposits as they are now, whatever range it covers.
      const cursor = (await adapter.head()) - 1;
      await deleteChainCursors({ knex, chainIds: [p.chainId] });
      await advanceChainCursor({ knex, chainId: p.chainId, from: null, to: { blockNumber: cursor, blockHash: (await adapter.blockHash(cursor))! } });
      const start = performance.now();
      const scan = await scanChain(deps, { chainId: p.chainId, maxBlocks: 10_000, heartbeat: () => undefined });
      const ms = performance.now() - start;
      if (!scan.range) throw new Error(`${p.label} scan covered no blocks`);
      log(`${p.label}: scan (${label}) of ${p.addresses.length} open deposits, blocks ${scan.range.fromBlock}..${scan.range.toBlock}: ${ms.toFixed(0)} ms`);
      return ms;
    };
    await scanOnce('first');
    const steady = await scanOnce('steady state');
    return [
      {
        name: `${p.label} scan, ${p.addresses.length} open deposits`,
        value: steady,
        unit: 'ms',
        against: { name: 'bound', value: SCAN_BOUND_MS, unit: 'ms' },
        target: { kind: 'absolute', atMost: SCAN_BOUND_MS },
      },
    ];
  } finally {
    chains.destroy();
    await connection.close();
  }
}
