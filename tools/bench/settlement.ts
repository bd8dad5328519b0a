import { setTimeout as delay } from 'node:timers/promises';
import { Contract, JsonRpcProvider, Wallet, parseUnits, type TransactionReceipt } from 'ethers';
import type { Knex } from 'knex';
import { devnetRpc } from '../devnets/evm/devnet';
import { erc20Abi } from '../../chains/evm/contracts';
import { ChainRegistry } from '../../chains/registry';
import { intentKeys } from '../../domain/chain-txs';
import type { PaymentStatus } from '../../domain/payment';
import type { Stack, StackChain } from '../stack/stack';
import { CONCURRENCY, createBody } from './create';
import { percentile, type Figure } from './report';

/** Same chain as the demo merchant's payout wallet: no bridge, the treasury pays from its float. */
export const SETTLEMENT_CHAIN_ID = 8453;
const CHAIN_ID = SETTLEMENT_CHAIN_ID;
/** How often the chain's head is read: a block's time is known to within this. */
const POLL_MS = 100;
const COMPLETION_POLL_MS = 250;
const SETTLE_TIMEOUT_MS = 5 * 60_000;
const PAYMENT_AMOUNT = '1.25';
/** The step latencies' load: a steady stream (the burst's own step latencies are printed beside them). */
const STEADY_PER_SECOND = 2;
const STEADY_COUNT = 60;

const RANK: Partial<Record<PaymentStatus, number>> = {
  payment_started: 1,
  payment_payin_completed: 2,
  payment_payout_started: 3,
  payment_completed: 4,
};
const STARTED = 1;
const COMPLETED = 4;

/** When this process first saw each block of the chain (wall clock, comparable with PostgreSQL's now()). */
class BlockClock {
  private readonly seen = new Map<number, number>();
  private last = -1;
  private stopped = false;
  readonly done: Promise<void>;

  constructor(private readonly provider: JsonRpcProvider) {
    this.done = this.poll();
  }

  private async poll(): Promise<void> {
    while (!this.stopped) {
      const head = await this.provider.getBlockNumber();
      const now = Date.now();
      for (let n = Math.max(this.last + 1, head - 50); n <= head; n++) this.seen.set(n, now);
      this.last = Math.max(this.last, head);
      await delay(POLL_MS);
    }
  }

  /** The newest block seen. */
  head(): number {
    return this.last;
  }

  at(block: number): number {
    const t = this.seen.get(block);
    if (t === undefined) throw new Error(`block ${block} was never seen`);
    return t;
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.done;
  }
}

interface Settled {
  id: string;
  minedAt: number;
  startedAt: number;
  completedAt: number;
  confirmedAt: number;
  /** The payin at the chain's finality depth: the payout's release point (the payout never pays on a payin a reorg could take back). */
  finalAt: number;
  payoutBroadcastAt: number;
}

/** When each payment's transaction of an intent (`intentKey` of its id) was signed and stored, by payment id (ms). */
export async function signedAt(knex: Knex, ids: string[], intentKey: (id: string) => string): Promise<Map<string, number>> {
  const rows = await knex('chain_txs').whereIn('intent_key', ids.map(intentKey)).select<Array<{ payment_id: string; created_at: Date }>>('payment_id', 'created_at');
  return new Map(rows.map((r) => [r.payment_id, r.created_at.getTime()]));
}

/** The devnet customer paying deposit addresses 1.25 USDC each, without waiting for blocks (it counts its own nonces). */
export async function customerPayer(stack: Stack, provider: JsonRpcProvider): Promise<{ pay(to: string): Promise<string> }> {
  const chain = stack.info.chains.find((c): c is StackChain<'evm'> => c.family === 'evm' && c.chainId === CHAIN_ID)!;
  const wallet = new Wallet(stack.info.customer.evm.privateKey, provider);
  const usdc = new Contract(chain.tokens.USDC.address, erc20Abi, provider);
  const transfer = (to: string) => usdc.interface.encodeFunctionData('transfer', [to, parseUnits(PAYMENT_AMOUNT, 6)]);
  // A transfer to a fresh address costs more gas than the estimate for one to self would say.
  const template = await wallet.populateTransaction({ to: chain.tokens.USDC.address, data: transfer(wallet.address), gasLimit: 100_000n });
  let nonce = template.nonce!;
  // Sent in nonce order: a node refuses a nonce above the next one while it mines every transaction at once.
  let sent: Promise<unknown> = Promise.resolve();
  return {
    pay(to) {
      const signed = wallet.signTransaction({ ...template, nonce: nonce++, data: transfer(to) });
      const hash = sent.then(async () => (await provider.send('eth_sendRawTransaction', [await signed])) as string);
      sent = hash.catch(() => undefined);
      return hash;
    },
  };
}

/**
 * Creates `count` payments, pays them from the devnet customer (all at once, or one every `spacingMs`), and times
 * each one's way to payment_completed.
 */
async function payAndSettle(
  stack: Stack,
  knex: Knex,
  clock: BlockClock,
  provider: JsonRpcProvider,
  depths: { confirmations: number; finalityDepth: number },
  count: number,
  spacingMs = 0,
): Promise<Settled[]> {
  const ids: string[] = [];
  const addresses = new Map<string, string>();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(count, CONCURRENCY) }, async () => {
      while (next < count) {
        next++;
        const res = await fetch(stack.info.paymentApiUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': stack.info.demoMerchant.ordersKey },
          body: JSON.stringify(createBody(CHAIN_ID, PAYMENT_AMOUNT)),
        });
        const created = (await res.json()) as { id: string; source: { receiverAddress: string; amount: string } };
        if (res.status !== 201) throw new Error(`create: HTTP ${res.status} ${JSON.stringify(created)}`);
        ids.push(created.id);
        addresses.set(created.id, created.source.receiverAddress);
      }
    }),
  );

  // Watched while they are paid: a stream's first payments settle before its last are sent. Paid at once, with
  // consecutive nonces, the transfers land in the same few blocks.
  const customer = await customerPayer(stack, provider);
  const hashes = new Map<string, string>();
  let payFailure: Error | undefined;
  const paying = (async () => {
    const sent: Array<Promise<unknown>> = [];
    for (const [i, id] of ids.entries()) {
      if (spacingMs > 0 && i > 0) await delay(spacingMs);
      sent.push(customer.pay(addresses.get(id)!).then((hash) => hashes.set(id, hash)));
    }
    await Promise.all(sent);
  })().catch((err: unknown) => {
    payFailure = err instanceof Error ? err : new Error(String(err));
  });

  // Light on the machine it measures: receipts are read once per new block, completion is counted a few times a
  // second, and each status's time is read afterwards from the payments' status history (written as it happens).
  const receipts = new Map<string, TransactionReceipt>();
  let receiptsAtHead = -1;
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    if (payFailure) throw payFailure;
    const head = clock.head();
    if (head > receiptsAtHead) {
      receiptsAtHead = head;
      await Promise.all(
        [...hashes].map(async ([id, hash]) => {
          if (receipts.has(id)) return;
          const receipt = await provider.getTransactionReceipt(hash);
          if (receipt) receipts.set(id, receipt);
        }),
      );
    }
    const [row] = await knex('payments').whereIn('id', ids).where('status', 'payment_completed').count<Array<{ completed: string }>>({ completed: '*' });
    if (Number(row?.completed) === count) break;
    // The figures then say how many made it; a payment that did not counts as never completed.
    if (Date.now() > deadline && receipts.size === count) break;
    await delay(COMPLETION_POLL_MS);
  }
  await paying;

  const reached = new Map<string, Map<number, number>>(ids.map((id) => [id, new Map()]));
  const events = await knex('payment_status_events').whereIn('payment_id', ids).orderBy('id').select<Array<{ payment_id: string; status: PaymentStatus; at: Date }>>('payment_id', 'status', 'at');
  for (const event of events) {
    const seen = reached.get(event.payment_id)!;
    for (let r = 1; r <= (RANK[event.status] ?? 0); r++) if (!seen.has(r)) seen.set(r, event.at.getTime());
  }

  const payouts = await signedAt(knex, ids, intentKeys.payout);
  return ids.map((id) => {
    const receipt = receipts.get(id);
    if (!receipt) throw new Error(`no receipt for the payin of ${id}`);
    const seen = reached.get(id)!;
    return {
      id,
      minedAt: clock.at(receipt.blockNumber),
      startedAt: seen.get(STARTED) ?? Number.NaN,
      completedAt: seen.get(COMPLETED) ?? Number.NaN,
      confirmedAt: clock.at(receipt.blockNumber + depths.confirmations - 1),
      finalAt: clock.at(receipt.blockNumber + depths.finalityDepth - 1),
      payoutBroadcastAt: payouts.get(id) ?? Number.NaN,
    };
  });
}

/** Logs each step's latency over `settled`; answers the p99 of the two with targets. */
function stepLatencies(settled: Settled[], depths: { confirmations: number; finalityDepth: number }, load: string, log: (line: string) => void) {
  const step = (f: (s: Settled) => number) => settled.map(f).filter((v) => !Number.isNaN(v));
  const line = (name: string, values: number[]) =>
    log(`step (${load}): ${name.padEnd(34)} p50 ${percentile(values, 50).toFixed(0).padStart(5)} ms, p99 ${percentile(values, 99).toFixed(0).padStart(5)} ms`);
  const toStarted = step((s) => s.startedAt - s.minedAt);
  const toPayout = step((s) => s.payoutBroadcastAt - s.finalAt);
  line('payin mined → payment_started', toStarted);
  line(`payin confirmed → final (${depths.confirmations} → ${depths.finalityDepth} blocks)`, step((s) => s.finalAt - s.confirmedAt));
  line('payin final → payout broadcast', toPayout);
  return { toStarted: percentile(toStarted, 99), toPayout: percentile(toPayout, 99) };
}

/**
 * One payment paid, then 100 paid in the same few blocks, on the devnet: the time from the payin mined to
 * payment_completed and payments settled per second. Then a steady stream of payments: the latency of each step
 * at a steady load, the targets (a burst's step latencies are its queueing, which the 100 payments' figure bounds;
 * they are printed too).
 */
export async function benchSettlement(stack: Stack, knex: Knex, options: { blockTimeMs: number; batch: number }, log: (line: string) => void): Promise<Figure[]> {
  const { batch } = options;
  const chain = stack.info.chains.find((c): c is StackChain<'evm'> => c.family === 'evm' && c.chainId === CHAIN_ID)!;
  const registry = ChainRegistry.fromFile(stack.config.chainsFile).chain(CHAIN_ID);
  const provider = new JsonRpcProvider(chain.rpcUrl, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1 });
  // Blocks at the block time only, as on a live chain (the devnet otherwise mines every transaction at once).
  await devnetRpc(chain.rpcUrl, 'evm_setAutomine', [false]);
  const clock = new BlockClock(provider);
  try {
    const [single] = await payAndSettle(stack, knex, clock, provider, registry, 1);
    const singleMs = single!.completedAt - single!.minedAt;
    log(`one payment: payin mined → payment_completed ${singleMs.toFixed(0)} ms`);

    const many = await payAndSettle(stack, knex, clock, provider, registry, batch);
    const completed = many.filter((s) => !Number.isNaN(s.completedAt));
    const firstMined = Math.min(...many.map((s) => s.minedAt));
    const lastCompleted = Math.max(...completed.map((s) => s.completedAt));
    const latencies = completed.map((s) => s.completedAt - s.minedAt);
    const slowest = completed.length < batch ? Number.POSITIVE_INFINITY : Math.max(...latencies);
    const perSecond = completed.length / ((lastCompleted - firstMined) / 1000);
    log(
      `${batch} payments: mined in ${new Set(many.map((s) => s.minedAt)).size} block(s); ${completed.length} completed within ${SETTLE_TIMEOUT_MS / 1000} s; ` +
        `mined → completed p50 ${percentile(latencies, 50).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms; ${perSecond.toFixed(1)} payments/s`,
    );

    stepLatencies([single!, ...many], registry, `one, then ${batch} at once`, log);
    const steady = await payAndSettle(stack, knex, clock, provider, registry, STEADY_COUNT, 1000 / STEADY_PER_SECOND);
    const atSteady = stepLatencies(steady, registry, `${STEADY_COUNT} at ${STEADY_PER_SECOND} payments/s`, log);

    return [
      {
        name: `${batch} payments: slowest mined → completed`,
        value: slowest,
        unit: 'ms',
        against: { name: 'one payment', value: singleMs, unit: 'ms' },
        target: { kind: 'ratio', atMost: 2 },
      },
      {
        name: `${batch} payments settled per second`,
        value: perSecond,
        unit: '/s',
        against: { name: 'one payment', value: 1000 / singleMs, unit: '/s' },
        target: { kind: 'ratio' },
      },
      {
        name: `payin mined → payment_started, p99 at ${STEADY_PER_SECOND} payments/s`,
        value: atSteady.toStarted,
        unit: 'ms',
        against: { name: 'block time + scan interval', value: options.blockTimeMs + registry.pollIntervalMs, unit: 'ms' },
        target: { kind: 'ratio', atMost: 1 },
      },
      {
        name: `payin final (payout released) → payout broadcast, p99 at ${STEADY_PER_SECOND} payments/s`,
        value: atSteady.toPayout,
        unit: 'ms',
        against: { name: 'bound', value: 1000, unit: 'ms' },
        target: { kind: 'ratio', atMost: 1 },
      },
    ];
  } finally {
    await clock.stop();
    await devnetRpc(chain.rpcUrl, 'evm_setAutomine', [true]);
    provider.destroy();
  }
}
