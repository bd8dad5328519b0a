import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { getBase58Decoder } from '@solana/kit';
import { Client, Connection } from '@temporalio/client';
import { devnetRpc } from '../chains/devnet/devnet';
import { loadChainAdapters } from '../chains/adapters';
import { createKnex } from '../db/connection';
import { advanceChainCursor, deleteChainCursors } from '../db/queries/chain-cursors';
import { scanChain } from '../services/payins';
import { solanaChain, startThrowawayStack } from './stack';

/**
 * `npm run bench`: speed and memory targets, measured on a real stack (not in the test suite, where timing
 * would make tests flaky). Exits non-zero when a target is missed.
 */
const TARGETS = {
  /** One merchant at a time: the latency a single checkout sees. */
  createP95Ms: 150,
  /** Many merchants at once: throughput of one API process against the dev Temporal server. */
  createsPerSecond: 40,
  /** One scan of a full 500-block range with 20,000 watched deposit addresses. */
  scan20kAddressesMs: 3000,
  /** One Solana scan over 10,000 open deposits (their token accounts read in getMultipleAccounts batches). */
  solanaScan10kDepositsMs: 2000,
  rssMb: 700,
};

const SEQUENTIAL_CREATES = 100;
const CONCURRENT_CREATES = 400;
const CONCURRENCY = 16;
const WATCHED_ADDRESSES = 20_000;
const SOLANA_OPEN_DEPOSITS = 10_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const stack = await startThrowawayStack({ name: 'bench', blockTimeMs: 1000, env: { LOG_LEVEL: 'warn' } });
  const results: Array<{ name: string; value: number; target: number; unit: string; higherIsBetter?: boolean }> = [];
  try {
    // 1. Payment creation through the HTTP API (row + workflow start per request).
    const createOne = async () => {
      const t0 = performance.now();
      const res = await fetch(stack.info.paymentApiUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': stack.info.demoMerchant.ordersKey },
        body: JSON.stringify({
          type: 'exactIn',
          orderId: `bench-${randomUUID()}`,
          display: { name: 'bench' },
          source: { chainId: '42161', tokenSymbol: 'USDC', amount: '1.25' },
        }),
      });
      if (res.status !== 201) throw new Error(`create: HTTP ${res.status} ${await res.text()}`);
      return performance.now() - t0;
    };
    const sequential: number[] = [];
    for (let i = 0; i < SEQUENTIAL_CREATES; i++) sequential.push(await createOne());
    sequential.sort((a, b) => a - b);
    console.log(`create, one at a time: p50 ${percentile(sequential, 50).toFixed(1)} ms, p95 ${percentile(sequential, 95).toFixed(1)} ms`);
    results.push({ name: 'create p95 (sequential)', value: percentile(sequential, 95), target: TARGETS.createP95Ms, unit: 'ms' });

    let started = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (started < CONCURRENT_CREATES) {
          started++;
          await createOne();
        }
      }),
    );
    const perSecond = CONCURRENT_CREATES / ((performance.now() - t0) / 1000);
    console.log(`create, ${CONCURRENCY} at a time: ${perSecond.toFixed(1)} payments/s`);
    results.push({ name: 'creates per second', value: perSecond, target: TARGETS.createsPerSecond, unit: '/s', higherIsBetter: true });

    // 2. The chain watcher's scan with many open payments: cost must stay near one getLogs per address chunk.
    const knex = createKnex(stack.env.DATABASE_URL!, { max: 2 });
    const chains = loadChainAdapters(stack.config.chainsFile);
    const connection = await Connection.connect({ address: stack.info.temporalAddress });
    try {
      // Synthetic open payments, each with its own deposit address (payment_id is unique per address).
      await knex.raw(
        `with src as (select * from payments order by created_at limit 1),
         ids as (select gen_random_uuid() as id, g from generate_series(1, ?) g),
         pay as (insert into payments (id, app_id, order_id, status, display, source_chain_id, source_token_symbol,
                   source_token_address, source_decimals, source_amount_units, fee_units, deposit_address,
                   destination_chain_id, destination_token_symbol, destination_token_address, destination_decimals,
                   destination_address, destination_amount_units, expires_at, workflow_started_at)
                 select ids.id, src.app_id, 'bench-scan-' || ids.g, 'payment_unpaid', src.display, 42161,
                   src.source_token_symbol, src.source_token_address, src.source_decimals, src.source_amount_units,
                   src.fee_units, '0x' || lpad(to_hex(ids.g), 40, '0'), src.destination_chain_id,
                   src.destination_token_symbol, src.destination_token_address, src.destination_decimals,
                   src.destination_address, src.destination_amount_units, now() + interval '1 day', now()
                 from ids cross join src returning id, deposit_address)
         insert into deposit_addresses (chain_id, address, payment_id, watch_until)
         select 42161, deposit_address, id, now() + interval '1 day' from pay`,
        [WATCHED_ADDRESSES],
      );
      // A full 500-block range to scan, whatever the young devnet's height, from a cursor 500 blocks below the head.
      await devnetRpc(stack.devnet.chains.find((c) => c.chainId === 42161)!.rpcUrl, 'hardhat_mine', ['0x200']);
      const arbitrum = chains.adapter(42161);
      const cursorBlock = Math.max(0, (await arbitrum.head()) - 500);
      await deleteChainCursors({ knex, chainIds: [42161] });
      await advanceChainCursor({ knex, chainId: 42161, from: null, to: { blockNumber: cursorBlock, blockHash: (await arbitrum.blockHash(cursorBlock))! } });
      const deps = { knex, chains, temporal: { client: new Client({ connection }), taskQueue: stack.config.temporal.taskQueue } };
      const t0 = performance.now();
      const scan = await scanChain(deps, { chainId: 42161, maxBlocks: 500, heartbeat: () => undefined });
      const scanMs = performance.now() - t0;
      const watched = await knex('deposit_addresses').where({ chain_id: 42161 }).count<{ count: string }[]>('* as count');
      console.log(`scan: ${watched[0]!.count} watched addresses, blocks ${scan.range?.fromBlock}..${scan.range?.toBlock}: ${scanMs.toFixed(0)} ms`);
      results.push({ name: `scan with ${WATCHED_ADDRESSES} addresses`, value: scanMs, target: TARGETS.scan20kAddressesMs, unit: 'ms' });

      // 3. The Solana watcher's scan over many open deposits: one getMultipleAccounts per 100 deposit token accounts.
      const solana = solanaChain(stack.info);
      const depositAddresses = Array.from({ length: SOLANA_OPEN_DEPOSITS }, () => getBase58Decoder().decode(randomBytes(32)));
      await knex.raw(
        `with src as (select * from payments order by created_at limit 1),
         addrs as (select a, row_number() over () as g from unnest(?::text[]) a),
         pay as (insert into payments (id, app_id, order_id, status, display, source_chain_id, source_token_symbol,
                   source_token_address, source_decimals, source_amount_units, fee_units, deposit_address,
                   destination_chain_id, destination_token_symbol, destination_token_address, destination_decimals,
                   destination_address, destination_amount_units, expires_at, workflow_started_at)
                 select gen_random_uuid(), src.app_id, 'bench-solana-scan-' || addrs.g, 'payment_unpaid', src.display, ?,
                   'USDC', ?, 6, src.source_amount_units, src.fee_units, addrs.a, src.destination_chain_id,
                   src.destination_token_symbol, src.destination_token_address, src.destination_decimals,
                   src.destination_address, src.destination_amount_units, now() + interval '1 day', now()
                 from addrs cross join src returning id, deposit_address)
         insert into deposit_addresses (chain_id, address, payment_id, watch_until)
         select ?, lower(deposit_address), id, now() + interval '1 day' from pay`,
        [depositAddresses, solana.chainId, solana.tokens.USDC.address, solana.chainId],
      );
      // The watcher derives each deposit's token account once per process (its first scan after the deposit appears);
      // every later scan is the steady state the target is for.
      const timedScan = async (label: string) => {
        const t1 = performance.now();
        const scan = await scanChain(deps, { chainId: solana.chainId, maxBlocks: 10_000, heartbeat: () => undefined });
        const ms = performance.now() - t1;
        console.log(`solana scan (${label}): ${SOLANA_OPEN_DEPOSITS} open deposits, slots ${scan.range?.fromBlock}..${scan.range?.toBlock}: ${ms.toFixed(0)} ms`);
        return ms;
      };
      await timedScan('first, deriving every token account');
      const solanaScanMs = await timedScan('steady state');
      results.push({ name: `solana scan, ${SOLANA_OPEN_DEPOSITS} deposits`, value: solanaScanMs, target: TARGETS.solanaScan10kDepositsMs, unit: 'ms' });
    } finally {
      chains.destroy();
      await Promise.all([knex.destroy(), connection.close()]);
    }

    // 4. Memory of this process, which hosts the API and a worker.
    results.push({ name: 'RSS (API + worker)', value: process.memoryUsage().rss / 2 ** 20, target: TARGETS.rssMb, unit: 'MB' });
  } finally {
    await stack.stop();
  }

  let missed = 0;
  console.log('\nbenchmark                         value        target');
  for (const r of results) {
    const ok = r.higherIsBetter ? r.value >= r.target : r.value <= r.target;
    if (!ok) missed++;
    console.log(`${r.name.padEnd(32)}${`${r.value.toFixed(1)} ${r.unit}`.padStart(12)}  ${r.higherIsBetter ? '≥' : '≤'} ${r.target} ${r.unit}  ${ok ? 'ok' : 'MISSED'}`);
  }
  process.exit(missed ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
