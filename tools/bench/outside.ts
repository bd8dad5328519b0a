import { setTimeout as delay } from 'node:timers/promises';
import { mnemonicNew } from '@ton/crypto';
import { Contract, JsonRpcProvider, Wallet, parseEther, parseUnits } from 'ethers';
import type { Knex } from 'knex';
import { erc20Abi } from '../../chains/evm/contracts';
import { intentKeys } from '../../domain/chain-txs';
import type { PaymentStatus } from '../../domain/payment';
import { newStellarUsdcAccounts } from '../../test/support/stellar';
import { payJettonOutputs, payTonOutputs } from '../../test/support/ton';
import type { DevStackCustomers } from '../devnets/families';
import { devnetRpc } from '../devnets/evm/devnet';
import { openTonWallet, payFromWallet } from '../pay';
import { stackChain, type DevStackChain, type Stack } from '../stack/stack';
import { createBody } from './create';
import { percentile, type Figure } from './report';
import { SETTLEMENT_CHAIN_ID, signedAt } from './settlement';

/**
 * The burst as merchants and customers see it: payments created through the public payment API, each paid by a
 * wallet transaction of its own (the wallet reads its nonce, blockhash or seqno, signs, sends), each read by id once
 * a second until it is payment_completed. Beside that outside measure, the same payments' times as the database
 * recorded them, and each step's latency, so a difference between the two shows where it comes from.
 */

const PAYMENT_AMOUNT = '1.25';
const PER_FAMILY = 20;
/** How often a merchant reads each payment (spec 4.1: polling GET observes every state). */
const READ_EVERY_MS = 1000;
const SETTLE_TIMEOUT_MS = 5 * 60_000;
/** What each extra wallet gets in setup: the payments it sends and their fees, with room to spare. */
const WALLET_TOKENS = '5';
const WALLET_ETHER = '0.1';
const WALLET_TONS = 1n * 10n ** 9n;

type Family = DevStackChain['family'];

/** One source each family pays in (the devnet's stablecoin of it); the demo merchant is paid out in USDC on Base. */
interface Source {
  family: Family;
  chainId: number;
  symbol: string;
}

function sourcesOf(stack: Stack): Source[] {
  return [
    { family: 'evm', chainId: SETTLEMENT_CHAIN_ID, symbol: 'USDC' },
    { family: 'solana', chainId: stackChain(stack.info, 'solana').chainId, symbol: 'USDC' },
    { family: 'tron', chainId: stackChain(stack.info, 'tron').chainId, symbol: 'USDT' },
    { family: 'ton', chainId: stackChain(stack.info, 'ton').chainId, symbol: 'USDT' },
    { family: 'stellar', chainId: stackChain(stack.info, 'stellar').chainId, symbol: 'USDC' },
  ];
}

/**
 * `count` sets of customer wallets, funded before timing starts: set i pays the i-th payment of each family. An
 * account that orders its transactions (EVM nonce, TON seqno, Stellar sequence) sends one at a time as a wallet does,
 * so each payment of those families has a wallet of its own; Solana and Tron transfers carry no account sequence, and
 * the stack's customer sends them all.
 */
async function fundedWallets(stack: Stack, count: number): Promise<DevStackCustomers[]> {
  const { info } = stack;
  const [evm, ton, stellar] = await Promise.all([fundEvmWallets(stack, count), fundTonWallets(stack, count), newStellarUsdcAccounts(info, count, WALLET_TOKENS)]);
  return Array.from({ length: count }, (_, i) => ({
    ...info.customer,
    evm: evm[i]!,
    ton: ton[i]!,
    stellar: { secret: stellar[i]!.secret(), address: stellar[i]!.publicKey() },
  }));
}

async function fundEvmWallets(stack: Stack, count: number): Promise<Array<DevStackCustomers['evm']>> {
  const chain = stack.info.chains.find((c): c is Extract<DevStackChain, { family: 'evm' }> => c.family === 'evm' && c.chainId === SETTLEMENT_CHAIN_ID)!;
  const provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true });
  try {
    const customer = new Wallet(stack.info.customer.evm.privateKey, provider);
    const usdc = new Contract(chain.tokens.USDC.address, erc20Abi, customer);
    const wallets = Array.from({ length: count }, () => Wallet.createRandom());
    // The customer counts its own nonces: the funding goes out at once.
    let nonce = await provider.getTransactionCount(customer.address, 'pending');
    const sent: Array<{ wait(): Promise<unknown> }> = [];
    for (const wallet of wallets) {
      sent.push(await customer.sendTransaction({ to: wallet.address, value: parseEther(WALLET_ETHER), nonce: nonce++ }));
      sent.push((await usdc.getFunction('transfer')(wallet.address, parseUnits(WALLET_TOKENS, chain.tokens.USDC.decimals), { nonce: nonce++ })) as { wait(): Promise<unknown> });
    }
    await Promise.all(sent.map((tx) => tx.wait()));
    return wallets.map((w) => ({ address: w.address, privateKey: w.privateKey }));
  } finally {
    provider.destroy();
  }
}

async function fundTonWallets(stack: Stack, count: number): Promise<Array<DevStackCustomers['ton']>> {
  const { info } = stack;
  const mnemonics = await Promise.all(Array.from({ length: count }, () => mnemonicNew()));
  // Opened here, as a wallet app is before its user pays: its key is derived once.
  const addresses = await Promise.all(mnemonics.map(async (m) => (await openTonWallet(info, m)).wallet.address.toString({ bounceable: false })));
  const customer = await openTonWallet(info, info.customer.ton.mnemonic);
  await payTonOutputs(customer, addresses.map((to) => ({ to, nanotons: WALLET_TONS })));
  const usdt = stackChain(info, 'ton').tokens.USDT;
  await payJettonOutputs(customer, usdt.address, addresses.map((to) => ({ to, units: parseUnits(WALLET_TOKENS, usdt.decimals) })));
  return mnemonics.map((mnemonic) => ({ mnemonic }));
}

/** One payment as its merchant and its customer saw it (this process's clock, ms). */
interface SeenPayment {
  id: string;
  family: Family;
  createSentAt: number;
  /** The create's answer arrived: the customer has the deposit to pay. */
  createAnsweredAt: number;
  /** The wallet saw its transfer in a block. */
  paidAt: number;
  seenCompletedAt: number;
  /** How long each read by id took. */
  readMs: number[];
}

interface PaymentApiPayment {
  id: string;
  status: PaymentStatus;
  source: { chainId: string; tokenSymbol: string; tokenAddress: string | null; receiverAddress: string; amount: string };
}

/** Creates the payment as the merchant does, has the wallet pay it, and reads it once a second until it completed. */
async function createPayAndPoll(stack: Stack, source: Source, wallets: DevStackCustomers): Promise<SeenPayment> {
  const { info } = stack;
  const headers = { 'content-type': 'application/json', 'x-api-key': info.demoMerchant.ordersKey };
  const createSentAt = Date.now();
  const res = await fetch(info.paymentApiUrl, { method: 'POST', headers, body: JSON.stringify(createBody(source.chainId, PAYMENT_AMOUNT, source.symbol)) });
  const created = (await res.json()) as PaymentApiPayment;
  if (res.status !== 201) throw new Error(`create: HTTP ${res.status} ${JSON.stringify(created)}`);
  const createAnsweredAt = Date.now();

  const paying = payFromWallet(
    info,
    wallets,
    { chain_id: source.chainId, address: created.source.receiverAddress, symbol: created.source.tokenSymbol, token_address: created.source.tokenAddress },
    created.source.amount,
  ).then(() => Date.now());

  const readMs: number[] = [];
  const deadline = createSentAt + SETTLE_TIMEOUT_MS;
  let seenCompletedAt = Number.NaN;
  for (let read = 1; Date.now() < deadline; read++) {
    await delay(Math.max(0, createSentAt + read * READ_EVERY_MS - Date.now()));
    const start = Date.now();
    const answer = await fetch(`${info.paymentApiUrl}/payments/${created.id}`, { headers });
    const payment = (await answer.json()) as PaymentApiPayment;
    readMs.push(Date.now() - start);
    if (answer.status !== 200) throw new Error(`read ${created.id}: HTTP ${answer.status} ${JSON.stringify(payment)}`);
    if (payment.status === 'payment_completed') {
      seenCompletedAt = Date.now();
      break;
    }
  }
  return { id: created.id, family: source.family, createSentAt, createAnsweredAt, paidAt: await paying, seenCompletedAt, readMs };
}

/** What the database recorded of a payment's way (its clock: the same machine's). */
interface Recorded extends SeenPayment {
  createdAt: number;
  reached: Partial<Record<PaymentStatus, number>>;
  /** When the payout's treasury reservation began (its transaction's start). */
  payoutReservedAt: number;
  payoutSignedAt: number;
  sweepSignedAt: number;
}

async function recorded(knex: Knex, seen: SeenPayment[]): Promise<Recorded[]> {
  const ids = seen.map((s) => s.id);
  const created = new Map(
    (await knex('payments').whereIn('id', ids).select<Array<{ id: string; created_at: Date }>>('id', 'created_at')).map((r) => [r.id, r.created_at.getTime()]),
  );
  const reached = new Map<string, Partial<Record<PaymentStatus, number>>>(ids.map((id) => [id, {}]));
  const events = await knex('payment_status_events').whereIn('payment_id', ids).orderBy('id').select<Array<{ payment_id: string; status: PaymentStatus; at: Date }>>('payment_id', 'status', 'at');
  for (const e of events) reached.get(e.payment_id)![e.status] ??= e.at.getTime();
  const [payouts, sweeps] = [await signedAt(knex, ids, intentKeys.payout), await signedAt(knex, ids, intentKeys.sweep)];
  const reservations = new Map(
    (await knex('treasury_reservations').whereIn('payment_id', ids).select<Array<{ payment_id: string; created_at: Date }>>('payment_id', 'created_at')).map((r) => [
      r.payment_id,
      r.created_at.getTime(),
    ]),
  );
  return seen.map((s) => ({
    ...s,
    createdAt: created.get(s.id)!,
    reached: reached.get(s.id)!,
    payoutReservedAt: reservations.get(s.id) ?? Number.NaN,
    payoutSignedAt: payouts.get(s.id) ?? Number.NaN,
    sweepSignedAt: sweeps.get(s.id) ?? Number.NaN,
  }));
}

/**
 * Each step of a payment's way, from what the database recorded. The run records no "payin final" time of its own:
 * it enters payment_payout_started in the write right after its finality waits end, for every source family, so
 * that status event's time is the payin final for all of them alike; the payout's broadcast is its chain_txs row's
 * created_at (the signing transaction's start, just before the send).
 */
const STEPS: Array<[string, (r: Recorded) => number, (r: Recorded) => number]> = [
  ['create sent → answered', (r) => r.createSentAt, (r) => r.createAnsweredAt],
  ['answered → wallet saw its payin in a block', (r) => r.createAnsweredAt, (r) => r.paidAt],
  ['created → payin seen (payment_started)', (r) => r.createdAt, (r) => r.reached.payment_started ?? Number.NaN],
  ['payin seen → confirmed (payin_completed)', (r) => r.reached.payment_started ?? Number.NaN, (r) => r.reached.payment_payin_completed ?? Number.NaN],
  ['confirmed → final (payout_started)', (r) => r.reached.payment_payin_completed ?? Number.NaN, (r) => r.reached.payment_payout_started ?? Number.NaN],
  ['final → payout reserved', (r) => r.reached.payment_payout_started ?? Number.NaN, (r) => r.payoutReservedAt],
  ['payout reserved → broadcast', (r) => r.payoutReservedAt, (r) => r.payoutSignedAt],
  ['final → payout broadcast', (r) => r.reached.payment_payout_started ?? Number.NaN, (r) => r.payoutSignedAt],
  ['payout broadcast → payout_completed', (r) => r.payoutSignedAt, (r) => r.reached.payment_payout_completed ?? Number.NaN],
  ['payout_completed → payment_completed', (r) => r.reached.payment_payout_completed ?? Number.NaN, (r) => r.reached.payment_completed ?? Number.NaN],
  ['payment_completed → read as completed', (r) => r.reached.payment_completed ?? Number.NaN, (r) => r.seenCompletedAt],
];

function logSteps(payments: Recorded[], load: string, log: (line: string) => void): void {
  const families = [...new Set(payments.map((p) => p.family))];
  log(`steps (${load}), p50/max ms by source family: ${families.join(', ')}`);
  for (const [name, from, to] of STEPS) {
    const cells = families.map((family) => {
      const values = payments.filter((p) => p.family === family).map((p) => to(p) - from(p)).filter((v) => !Number.isNaN(v));
      return `${percentile(values, 50).toFixed(0)}/${Math.max(...values).toFixed(0)}`.padStart(11);
    });
    log(`  ${name.padEnd(44)}${cells.join(' ')}`);
  }
  const reads = payments.flatMap((p) => p.readMs);
  log(`  reads by id: ${reads.length}, p50 ${percentile(reads, 50).toFixed(0)} ms, p99 ${percentile(reads, 99).toFixed(0)} ms`);
}

/** From the first create to the last completion: as read from outside (seen by polling) and as the database recorded it. */
function spans(payments: Recorded[]): { outside: number; database: number } {
  return {
    outside: Math.max(...payments.map((p) => p.seenCompletedAt)) - Math.min(...payments.map((p) => p.createSentAt)),
    database: Math.max(...payments.map((p) => p.reached.payment_completed ?? Number.NaN)) - Math.min(...payments.map((p) => p.createdAt)),
  };
}

/**
 * One payment of each family, one at a time (the floor: the slowest of them, so a family slower by its chain's
 * confirmation depth does not count as queueing), then `PER_FAMILY` payments of every family at once, mixed.
 * Also the p99 of payin final → payout broadcast for payments from other families (the mean of each family's) against
 * same-chain ones.
 */
export async function benchOutside(stack: Stack, knex: Knex, log: (line: string) => void): Promise<Figure[]> {
  const sources = sourcesOf(stack);
  const wallets = await fundedWallets(stack, PER_FAMILY);
  const baseRpc = stack.info.chains.find((c) => c.chainId === SETTLEMENT_CHAIN_ID)!.rpcUrl;
  // Blocks at the block time only, as on a live chain (the devnet otherwise mines every transaction at once).
  await devnetRpc(baseRpc, 'evm_setAutomine', [false]);
  try {
    const singles: Recorded[] = [];
    for (const source of sources) singles.push(...(await recorded(knex, [await createPayAndPoll(stack, source, wallets[0]!)])));
    const single = { outside: Math.max(...singles.map((p) => spans([p]).outside)), database: Math.max(...singles.map((p) => spans([p]).database)) };
    for (const p of singles) log(`one payment (${p.family}): ${spans([p]).outside} ms as read from outside, ${spans([p]).database} ms as recorded`);
    logSteps(singles, 'one at a time', log);

    const jobs = Array.from({ length: PER_FAMILY * sources.length }, (_, i) => ({ source: sources[i % sources.length]!, wallets: wallets[Math.floor(i / sources.length)]! }));
    const burst = await recorded(knex, await Promise.all(jobs.map((j) => createPayAndPoll(stack, j.source, j.wallets))));
    const completed = burst.filter((p) => !Number.isNaN(p.seenCompletedAt)).length;
    const many = completed < burst.length ? { outside: Number.POSITIVE_INFINITY, database: Number.POSITIVE_INFINITY } : spans(burst);
    log(`${burst.length} payments (${PER_FAMILY} per family, at once): ${completed} completed; ${many.outside} ms as read from outside (${(many.outside / single.outside).toFixed(2)}× one), ${many.database} ms as recorded (${(many.database / single.database).toFixed(2)}× one)`);
    for (const source of sources) {
      const family = spans(burst.filter((p) => p.family === source.family));
      log(`  its ${PER_FAMILY} ${source.family} payments: ${family.outside} ms as read from outside, ${family.database} ms as recorded`);
    }
    // A sweep waits SWEEP_AFTER_SECONDS after its payment completed, so none takes the burst's time.
    const lastCompleted = Math.max(...burst.map((p) => p.reached.payment_completed ?? Number.NaN));
    log(`  sweeps signed before its last payment completed: ${burst.filter((p) => p.sweepSignedAt < lastCompleted).length}`);
    logSteps(burst, `${burst.length} at once`, log);

    // Each family's p99 is taken over as many payouts (its single and its burst's): pooled, the other families' p99
    // would be the slowest of four times as many payouts as Base's, a higher percentile in all but name.
    const toPayout = (payments: Recorded[]) => payments.map((p) => p.payoutSignedAt - (p.reached.payment_payout_started ?? Number.NaN)).filter((v) => !Number.isNaN(v));
    const all = [...singles, ...burst];
    const p99ByFamily = sources.map(({ family }) => ({ family, p99: percentile(toPayout(all.filter((p) => p.family === family)), 99) }));
    const otherFamilies = p99ByFamily.filter((f) => f.family !== 'evm');
    const crossFamily = Math.round(otherFamilies.reduce((sum, f) => sum + f.p99, 0) / otherFamilies.length);
    const sameChain = p99ByFamily.find((f) => f.family === 'evm')!.p99;
    const pooled = percentile(toPayout(all.filter((p) => p.family !== 'evm')), 99);
    log(`payin final → payout broadcast, p99 by source family: ${p99ByFamily.map((f) => `${f.family} ${f.p99} ms`).join(', ')} (${PER_FAMILY + 1} payouts each); the other families' pooled: ${pooled} ms`);
    return [
      {
        name: `${burst.length} payments of five families, first create → last read as completed (outside)`,
        value: many.outside,
        unit: 'ms',
        against: { name: 'one payment, the slowest family', value: single.outside, unit: 'ms' },
        target: { kind: 'ratio', atMost: 2 },
      },
      {
        name: `${burst.length} payments of five families, first created → last completed (database)`,
        value: many.database,
        unit: 'ms',
        against: { name: 'one payment, the slowest family', value: single.database, unit: 'ms' },
        target: { kind: 'ratio' },
      },
      {
        name: 'payin final → payout broadcast, p99, paid from another family (mean of their p99s)',
        value: crossFamily,
        unit: 'ms',
        against: { name: 'paid on the payout chain', value: sameChain, unit: 'ms' },
        target: { kind: 'ratio', atMost: 1.2 },
      },
    ];
  } finally {
    await devnetRpc(baseRpc, 'evm_setAutomine', [true]);
  }
}
