import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import type { Knex } from 'knex';
import { devnetRpc } from '../devnets/evm/devnet';
import { ChainAdapters } from '../../chains/adapters';
import { erc20Abi } from '../../chains/evm/contracts';
import { ChainRegistry } from '../../chains/registry';
import { advanceChainCursor, deleteChainCursors } from '../../db/queries/chain-cursors';
import { createRegistry, createWorkerMetrics } from '../../lib/metrics';
import { scanChain } from '../../services/payins';
import type { Stack, StackChain } from '../stack/stack';
import { ensureTemplatePayment } from './open-deposits';
import type { Figure } from './report';

const CHAIN_ID = 42161;
const BLOCKS = 500;
const TRANSFERS_PER_BLOCK = 200;
const WATCHED = 100_000;

/**
 * Background traffic: BLOCKS blocks, each carrying one multisend of TRANSFERS_PER_BLOCK USDC transfers to fresh
 * addresses (none of them watched). Mined one by one with interval mining off; returns the first block.
 */
async function mineBackgroundTraffic(stack: Stack, provider: JsonRpcProvider): Promise<number> {
  const chain = stack.info.chains.find((c): c is StackChain<'evm'> => c.family === 'evm' && c.chainId === CHAIN_ID)!;
  const customer = new Wallet(stack.info.customer.evm.privateKey, provider);
  const usdc = new Contract(chain.tokens.USDC.address, erc20Abi, customer);
  await ((await usdc.getFunction('approve')(chain.multiSend, 10n ** 30n)) as { wait(): Promise<unknown> }).wait();
  const multiSend = new Contract(chain.multiSend, ['function send(address token, address[] recipients, uint256[] amounts)'], customer);
  // One block per multisend, mined on demand.
  await devnetRpc(chain.rpcUrl, 'evm_setIntervalMining', [0]);
  await devnetRpc(chain.rpcUrl, 'evm_setAutomine', [false]);
  const amounts = Array.from({ length: TRANSFERS_PER_BLOCK }, () => 1n);
  const recipients = () => Array.from({ length: TRANSFERS_PER_BLOCK }, () => `0x${randomBytes(20).toString('hex')}`);
  const template = await customer.populateTransaction({
    ...(await multiSend.getFunction('send').populateTransaction(chain.tokens.USDC.address, recipients(), amounts)),
    gasLimit: 12_000_000n,
  });
  let first = -1;
  for (let i = 0; i < BLOCKS; i++) {
    const raw = await customer.signTransaction({
      ...template,
      nonce: template.nonce! + i,
      data: multiSend.interface.encodeFunctionData('send', [chain.tokens.USDC.address, recipients(), amounts]),
    });
    await provider.send('eth_sendRawTransaction', [raw]);
    await devnetRpc(chain.rpcUrl, 'evm_mine', []);
    if (first < 0) first = await provider.getBlockNumber();
  }
  const last = await provider.getBlockNumber();
  if (last !== first + BLOCKS - 1) throw new Error(`background traffic: expected blocks ${first}..${first + BLOCKS - 1}, head is ${last}`);
  const logs = await provider.getLogs({ address: chain.tokens.USDC.address, fromBlock: first, toBlock: last });
  if (logs.length < BLOCKS * TRANSFERS_PER_BLOCK) throw new Error(`background traffic: ${logs.length} transfers, expected ${BLOCKS * TRANSFERS_PER_BLOCK}`);
  return first;
}

/** Watched deposit addresses `from`..`to` (synthetic, never paid): open payments, each with its own address. */
async function watchSyntheticAddresses(knex: Knex, from: number, to: number): Promise<void> {
  const inserted = await knex.raw<{ rowCount: number }>(
    `with src as (select * from payments order by created_at limit 1),
     ids as (select gen_random_uuid() as id, g from generate_series(?::int, ?::int) g),
     pay as (insert into payments (id, app_id, order_id, status, display, source_chain_id, source_token_symbol,
               source_token_address, source_decimals, source_amount_units, fee_units, deposit_address,
               destination_chain_id, destination_token_symbol, destination_token_address, destination_decimals,
               destination_address, destination_amount_units, expires_at, workflow_started_at)
             select ids.id, src.app_id, 'bench-scan-' || ids.g, 'payment_unpaid', src.display, ?,
               src.source_token_symbol, src.source_token_address, src.source_decimals, src.source_amount_units,
               src.fee_units, '0x' || lpad(to_hex(ids.g), 40, '0'), src.destination_chain_id,
               src.destination_token_symbol, src.destination_token_address, src.destination_decimals,
               src.destination_address, src.destination_amount_units, now() + interval '1 day', now()
             from ids cross join src returning id, deposit_address)
     insert into deposit_addresses (chain_id, address, payment_id, watch_until)
     select ?, deposit_address, id, now() + interval '1 day' from pay`,
    [from, to, CHAIN_ID, CHAIN_ID],
  );
  // The synthetic payments copy a real one (ensureTemplatePayment).
  if (inserted.rowCount !== to - from + 1) throw new Error(`watched ${inserted.rowCount} synthetic addresses, expected ${to - from + 1}`);
  await knex.raw('analyze deposit_addresses');
}

/**
 * One scan of BLOCKS blocks of background traffic with WATCHED watched addresses against the same scan with one:
 * the scan's cost must grow with the blocks' transfers, not with the number of open payments. Run with the worker
 * stopped (its watcher would move the same cursor).
 */
export async function benchWatcher(stack: Stack, knex: Knex, log: (line: string) => void): Promise<Figure[]> {
  const chains = new ChainAdapters(ChainRegistry.fromFile(stack.config.chainsFile));
  const connection = await Connection.connect({ address: stack.info.temporalAddress });
  const provider = new JsonRpcProvider(chains.registry.chain(CHAIN_ID).rpcUrl, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 });
  try {
    const t0 = performance.now();
    const first = await mineBackgroundTraffic(stack, provider);
    log(`watcher: ${BLOCKS} blocks of ${TRANSFERS_PER_BLOCK} unrelated transfers mined in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const before = await provider.getBlock(first - 1);
    const deps = {
      knex,
      chains,
      temporal: { client: new Client({ connection }), taskQueue: stack.config.temporal.taskQueue },
      metrics: createWorkerMetrics(createRegistry({ process: 'bench' })),
    };
    const scanOnce = async (): Promise<number> => {
      await deleteChainCursors({ knex, chainIds: [CHAIN_ID] });
      await advanceChainCursor({ knex, chainId: CHAIN_ID, from: null, to: { blockNumber: before!.number, blockHash: before!.hash! } });
      const start = performance.now();
      const scan = await scanChain(deps, { chainId: CHAIN_ID, maxBlocks: BLOCKS, heartbeat: () => undefined });
      const ms = performance.now() - start;
      if (scan.range?.fromBlock !== first || scan.range.toBlock !== first + BLOCKS - 1) throw new Error(`scan covered ${JSON.stringify(scan.range)}`);
      return ms;
    };
    await ensureTemplatePayment(stack, knex);
    await watchSyntheticAddresses(knex, 1, 1);
    const one = await scanOnce();
    await watchSyntheticAddresses(knex, 2, WATCHED);
    const many = await scanOnce();
    log(`watcher: one scan of ${BLOCKS} blocks: ${one.toFixed(0)} ms with 1 watched address, ${many.toFixed(0)} ms with ${WATCHED}`);
    return [
      {
        name: `scan ${BLOCKS} blocks × ${TRANSFERS_PER_BLOCK} transfers, ${WATCHED} watched`,
        value: many,
        unit: 'ms',
        against: { name: '1 watched', value: one, unit: 'ms' },
        target: { kind: 'ratio', atMost: 1.5 },
      },
    ];
  } finally {
    provider.destroy();
    chains.destroy();
    await connection.close();
  }
}
