import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { PaymentResource } from '../../api/serializers/payment';
import { findChainTx } from '../../db/queries/chain-txs';
import { listPayins } from '../../db/queries/payins';
import type { ChainTxRow, OrderRow } from '../../db/tables';
import { intentKeys } from '../../domain/chain-txs';
import { payinId, type PayinDisposition } from '../../domain/payins';
import type { PaymentStatus } from '../../domain/payment';
import type { ProdStack } from '../../tools/prod/stack';
import { reconcileLedger } from '../../services/ledger';
import { describeReconciliation } from '../../services/reconcile-report';
import { backgroundWorkflowIds } from '../../workers/background';
import { latePayinWorkflowId, orderWorkflowId, paymentWorkflowId } from '../../workflows/ids';
import type { LatePayinOutcome } from '../../workflows/types';
import { listWorkflows } from '../api/helpers';
import type { OrderCreated } from '../legacy/helpers';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { providerFor, signCustomerTransfer } from '../support/chain';
import { bridgeTxs } from '../support/bridge-txs';
import { request } from '../support/http';
import { eventually } from '../support/poll';
import { startTestProdStack, type TestProdStack } from '../support/prod-stack';
import { connectServices, startExtraApi, type ExtraApi, type StackServices } from '../support/services';
import { rotateWebhookSecret } from '../support/merchant';
import { PAYIN_FAMILIES, newFamilyApp, type FamilyApp, type PayinFamily } from '../support/payin-families';
import { setWebhookUrl, startTestReceiver, type TestReceiver } from '../webhooks/support';

const STREAM_MS = 60_000;
const WORKER_KILL_EVERY_MS = 4_000;
/** Underpaid payments expire this soon after creation, so their bounce and refund happen within the run. */
const UNDERPAID_TTL_SECONDS = 45;
const SETTLE_TIMEOUT_MS = 600_000;
const PAY_CHAIN = 8453;
/** Cross-chain payments are paid on this chain and paid out on PAY_CHAIN, bridged by CCTP. */
const BRIDGED_CHAIN = 42161;

type Kind = 'same chain' | 'cross chain' | 'underpaid' | 'late' | 'legacy order' | 'other family' | 'cross family';
/**
 * One round of the stream; repeated five times: 15 same chain, 10 cross chain, 10 legacy orders, 10 late, 5 underpaid,
 * 10 on the other families (Solana USDC, TON USDT, Tron USDT, Stellar USDC in turn, each to a merchant paid out on
 * its own chain) and 10 cross family (the same currencies in turn, to the demo merchant paid out in USDC on Base from
 * the Base treasury's float).
 */
const ROUND: Kind[] = [
  'same chain',
  'late',
  'other family',
  'cross chain',
  'cross family',
  'legacy order',
  'same chain',
  'underpaid',
  'other family',
  'same chain',
  'cross chain',
  'cross family',
  'late',
  'legacy order',
];
const ROUNDS = 5;

/** Where each kind's payment ends, and the dispositions of its payins. */
const EXPECTED: Record<Kind, { status: PaymentStatus; dispositions: PayinDisposition[] }> = {
  'same chain': { status: 'payment_completed', dispositions: ['payment'] },
  'cross chain': { status: 'payment_completed', dispositions: ['payment'] },
  'legacy order': { status: 'payment_completed', dispositions: ['payment'] },
  underpaid: { status: 'payment_refunded', dispositions: ['refund'] },
  late: { status: 'payment_completed', dispositions: ['payment', 'refund'] },
  'other family': { status: 'payment_completed', dispositions: ['payment'] },
  'cross family': { status: 'payment_completed', dispositions: ['payment'] },
};

interface Streamed {
  kind: Kind;
  paymentId: string;
  /** The legacy order, for that kind. */
  orderId?: string;
  /** The payin sent after the payment completed, for the late kind. */
  lateTx?: string;
  /** The non-EVM family it was paid on, for the other-family and cross-family kinds. */
  family?: PayinFamily['name'];
}

/** Retries an idempotent step (a create with the same orderId, a transfer that failed to broadcast) through outages. */
async function retried<T>(attempts: number, step: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await step(attempt);
    } catch (err) {
      if (attempt >= attempts) throw err;
      await delay(1_000 + attempt * 250);
    }
  }
}

/**
 * One transaction at a time per wallet of the test's customer (an EVM chain's nonce, TON's seqno, Stellar's sequence):
 * the stream's payments run concurrently, their customer's transactions are signed and sent in turn.
 */
function inTurn(): <T>(wallet: string, step: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(wallet: string, step: () => Promise<T>): Promise<T> => {
    const next = (tails.get(wallet) ?? Promise.resolve()).catch(() => undefined).then(step);
    tails.set(wallet, next);
    return next;
  };
}

/**
 * Chaos on the production topology (Temporal's pre-production guide): a minute-long stream of payments of every
 * kind (same chain, cross chain through CCTP, underpaid, paid again after completing, legacy orders, Solana, TON,
 * Tron and Stellar payments to merchants paid out on those chains and to the demo merchant paid out on Base) while a
 * random worker of three is killed -9 every few seconds (one down at a time), the Temporal server and PostgreSQL
 * are each restarted once, and an API process is killed -9 in the middle of creates. Afterwards every payment and
 * order is where its payins put it, no intent has two transactions on chain, no workflow is stuck, no webhook
 * event was attempted twice, and the ledger balances against the chain.
 */
describe('chaos on the production topology', function () {
  this.timeout(25 * 60_000);
  let running: TestProdStack | undefined;
  let prod: ProdStack;
  let services: StackServices | undefined;
  let shortLived: ExtraApi | undefined;
  let receiver: TestReceiver | undefined;
  let webhookUrl: string;
  /** A merchant app per non-EVM family, paid out on that family's chain. */
  let familyApps: FamilyApp[] = [];

  before(async function () {
    // The demo merchant's webhook endpoint, trusted by the workers through its CA.
    receiver = await startTestReceiver();
    running = await startTestProdStack('chaos', { NODE_EXTRA_CA_CERTS: receiver.caFile });
    prod = running.prod;
    services = await connectServices(prod.stack);
    webhookUrl = receiver.url('ok', 'chaos');
    await setWebhookUrl(services.knex, prod.info.demoMerchant.appId, webhookUrl);
    await rotateWebhookSecret(prod.stack, services.knex, prod.info.demoMerchant.appId);
    // An API of the test's own on the same services, whose payments expire soon: the underpaid ones are made there.
    shortLived = await startExtraApi(prod.stack, services, { paymentTtlSeconds: UNDERPAID_TTL_SECONDS });
    familyApps = await Promise.all(PAYIN_FAMILIES.map((family) => newFamilyApp(prod.stack, family)));
    for (const app of familyApps) {
      await setWebhookUrl(services.knex, app.appId, webhookUrl);
      await rotateWebhookSecret(prod.stack, services.knex, app.appId);
    }
  });

  after(async function () {
    this.timeout(120_000);
    await shortLived?.close();
    await services?.close();
    await running?.stop();
    await receiver?.close();
  });

  it('settles a mixed stream of payments and orders through worker kills and Temporal and PostgreSQL restarts', async () => {
    const { apis, workers, info, temporal, postgres } = prod;
    const { knex, client } = services!;
    const key = info.demoMerchant.ordersKey;
    const origin = (i: number) => apis[i % apis.length]!.healthUrl;
    const apiUrl = (i: number) => `${origin(i)}/v1/payment-api`;
    const faults = { workerKills: 0, temporalRestarts: 0, postgresRestarts: 0, apiKills: 0 };
    let streaming = true;

    const killWorkers = (async () => {
      while (streaming) {
        await delay(WORKER_KILL_EVERY_MS);
        const victim = workers[Math.floor(Math.random() * workers.length)]!;
        await victim.kill('SIGKILL');
        faults.workerKills++;
        await delay(WORKER_KILL_EVERY_MS / 2);
        await victim.start();
      }
    })();
    const restarts = (async () => {
      await delay(STREAM_MS / 3);
      await temporal.restart();
      faults.temporalRestarts++;
      await delay(STREAM_MS / 3);
      await postgres!.restart();
      faults.postgresRestarts++;
    })();
    // An API process dies in the middle of creates; their clients retry with the same orderId on the other one.
    const apiKill = (async () => {
      await delay(STREAM_MS / 2);
      await apis[1]!.kill('SIGKILL');
      faults.apiKills++;
      await delay(5_000);
      await apis[1]!.start();
    })();

    const kinds = Array.from({ length: ROUNDS }, () => ROUND).flat();
    const turn = inTurn();
    // Signed at the wallet's pending nonce and broadcast in turn; mined concurrently. A broadcast that failed is signed again.
    const pay = async (chainId: number, to: string, amount: string): Promise<string> => {
      const sent = await retried(10, () =>
        turn(`evm ${chainId}`, async () => providerFor(info, chainId).broadcastTransaction((await signCustomerTransfer(info, chainId, 'USDC', to, amount)).raw)),
      );
      await sent.wait();
      return sent.hash;
    };
    // Paid once, never retried (a retried transfer could pay twice: these chains are not restarted).
    const payFamily = (family: PayinFamily, to: string, amount: string) => turn(family.name, () => family.pay(info, to, amount));
    /** Solana, TON, Tron and Stellar in turn, for each kind paid on them. */
    const familyOf = (i: number): { family: PayinFamily; n: number } => {
      const n = kinds.slice(0, i).filter((k) => k === kinds[i]).length % PAYIN_FAMILIES.length;
      return { family: PAYIN_FAMILIES[n]!, n };
    };
    const create = (i: number, chainId: number, amount: string, through?: string): Promise<PaymentResource> => {
      const body = paymentBody({ orderId: `chaos-${randomUUID()}`, chainId: String(chainId), amount });
      return retried(30, (attempt) => createPayment(through ?? apiUrl(i + attempt), key, body));
    };

    const streamOne = async (i: number, kind: Kind): Promise<Streamed> => {
      switch (kind) {
        case 'same chain':
        case 'cross chain': {
          const chainId = kind === 'cross chain' ? BRIDGED_CHAIN : PAY_CHAIN;
          const payment = await create(i, chainId, '9');
          await pay(chainId, payment.source.receiverAddress, '9');
          return { kind, paymentId: payment.id };
        }
        case 'other family':
        case 'cross family': {
          // To the family's own merchant, paid out on the family's chain; or to the demo merchant, paid out on Base.
          const { family, n } = familyOf(i);
          const body = paymentBody({ orderId: `chaos-${randomUUID()}`, chainId: String(family.chainId(info)), tokenSymbol: family.symbol, amount: '5' });
          const apiKey = kind === 'other family' ? familyApps[n]!.ordersKey : key;
          const payment = await retried(30, (attempt) => createPayment(apiUrl(i + attempt), apiKey, body));
          await payFamily(family, payment.source.receiverAddress, '5');
          return { kind, paymentId: payment.id, family: family.name };
        }
        case 'underpaid': {
          const payment = await create(i, PAY_CHAIN, '4', shortLived!.paymentApiUrl);
          await pay(PAY_CHAIN, payment.source.receiverAddress, '2.5');
          return { kind, paymentId: payment.id };
        }
        case 'late': {
          const payment = await create(i, PAY_CHAIN, '3');
          await pay(PAY_CHAIN, payment.source.receiverAddress, '3');
          await waitForStatus(apiUrl(0), payment.id, 'payment_completed', SETTLE_TIMEOUT_MS);
          // Worth its refund whatever the devnet's fees: a refund sent before the payment's sweep deploys the deposit's
          // forwarder costs about 0.84 USD at Base's fees here, which would hold a 1.5 USDC payin as dust (over half its value).
          const lateTx = await pay(PAY_CHAIN, payment.source.receiverAddress, '3');
          return { kind, paymentId: payment.id, lateTx };
        }
        case 'legacy order': {
          const body = { merchant_order_id: `chaos-${randomUUID()}`, price_amount: 3, pay_currency: 'USDC_BASE' };
          const created = await retried(30, async (attempt) => {
            const res = await request<OrderCreated>(`${origin(i + attempt)}/v1/orders`, { headers: { token: key }, body });
            if (res.status !== 201 && res.status !== 200) throw new Error(`create order: HTTP ${res.status} ${res.text}`);
            return res.body.order;
          });
          // Through an outage the create answers without the payment once it has waited its while (docs/legacy-orders.md);
          // the order workflow creates it later, as a merchant reading the order would see.
          const order = created.pay_address
            ? created
            : await eventually(`order ${created.id}'s deposit address`, SETTLE_TIMEOUT_MS, async () => {
                const res = await request<{ order: OrderCreated['order'] }>(`${origin(i)}/v1/orders/${created.id}`, { headers: { token: key } });
                return res.status === 200 && res.body.order.pay_address ? res.body.order : undefined;
              }, 1_000);
          await pay(PAY_CHAIN, order.pay_address!, order.pay_amount!);
          return { kind, paymentId: order.payment_id!, orderId: order.id };
        }
      }
    };

    const started = Date.now();
    const stream: Array<Promise<Streamed>> = [];
    for (const [i, kind] of kinds.entries()) {
      stream.push(streamOne(i, kind));
      await delay(STREAM_MS / kinds.length);
    }
    const streamed = await Promise.all(stream);
    await Promise.all([restarts, apiKill]);
    streaming = false;
    await killWorkers;
    for (const w of workers) await w.start();
    const counts: Partial<Record<Kind, number>> = {};
    for (const s of streamed) counts[s.kind] = (counts[s.kind] ?? 0) + 1;
    console.log(`      stream: ${streamed.length} in ${((Date.now() - started) / 1000).toFixed(0)} s ${JSON.stringify(counts)}; faults ${JSON.stringify(faults)}`);

    // Every payment and order ends where its payins put it.
    const settles = async (s: Streamed): Promise<void> => {
      const expected = EXPECTED[s.kind];
      await waitForStatus(apiUrl(0), s.paymentId, expected.status, SETTLE_TIMEOUT_MS);
      const dispositions = (payins: Array<{ status: string; disposition: PayinDisposition | null }>) =>
        payins.every((p) => p.status === 'confirmed') ? payins.map((p) => p.disposition).sort().join() : undefined;
      await eventually(`the payins of ${s.kind} payment ${s.paymentId} to be ${expected.dispositions.join()}`, SETTLE_TIMEOUT_MS, async () =>
        dispositions(await listPayins({ knex, paymentId: s.paymentId })) === expected.dispositions.join() ? true : undefined,
      );
      if (s.lateTx) {
        const [late] = (await listPayins({ knex, paymentId: s.paymentId })).filter((p) => p.tx_hash === s.lateTx);
        assert.ok(late, `the late payin of ${s.paymentId} was recorded`);
        // Refunded by a late-payin run, or by the payment's own run when the payin reached it while that run was
        // still finishing (its webhooks) after payment_completed: one refund intent either way, mined once (below).
        const lateId = { chainId: PAY_CHAIN, txHash: late.tx_hash, logIndex: late.log_index };
        await eventually(`the late payin of ${s.paymentId} to be refunded`, SETTLE_TIMEOUT_MS, async () =>
          (await findChainTx({ knex, intentKey: intentKeys.refund(payinId(lateId)) }))?.status === 'confirmed' ? true : undefined,
        );
        const latePayinRun = client.workflow.getHandle(latePayinWorkflowId(lateId));
        const outcome = await (latePayinRun.result() as Promise<LatePayinOutcome>).catch((err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return undefined;
          throw err;
        });
        if (outcome !== undefined) assert.equal<LatePayinOutcome>(outcome, 'refunded');
      }
      if (s.kind === 'cross family') {
        // Settled from float: paid out in USDC on Base from the Base treasury, nothing bridged.
        const { destination } = (await waitForStatus(apiUrl(0), s.paymentId, expected.status, SETTLE_TIMEOUT_MS)).payment;
        assert.deepEqual([destination.chainId, destination.tokenSymbol], [String(PAY_CHAIN), 'USDC'], `${s.family} payment ${s.paymentId} is paid out in USDC on Base`);
        assert.deepEqual(await bridgeTxs(knex, s.paymentId), [], `${s.family} payment ${s.paymentId} is paid from float, not bridged`);
      }
      if (s.orderId) {
        const orderId = s.orderId;
        await eventually(`order ${orderId} to be paid`, SETTLE_TIMEOUT_MS, async () =>
          (await knex<OrderRow>('orders').where({ id: orderId }).first())?.status === 'paid' ? true : undefined,
        );
      }
    };
    // What a payment that did not settle shows, for the failure's message: its payins, its intents and its runs.
    const whereItStands = async (s: Streamed): Promise<string> => {
      const payins = (await listPayins({ knex, paymentId: s.paymentId })).map((p) => `${p.tx_hash}:${p.log_index} ${p.status} ${p.disposition ?? '-'}`);
      const intents = (await knex<ChainTxRow>('chain_txs').where({ payment_id: s.paymentId }).select('intent_key', 'status')).map((t) => `${t.intent_key} ${t.status}`);
      const runs = [paymentWorkflowId(s.paymentId), ...(await listWorkflows(client, 'WorkflowType="latePayinWorkflow"')).map((wf) => wf.workflowId).filter((id) => s.lateTx !== undefined && id.includes(s.lateTx))];
      const described = await Promise.all(
        runs.map(async (id) => {
          const d = await client.workflow.getHandle(id).describe();
          const pending = d.raw.pendingActivities?.map((a) => `${a.activityType?.name ?? '?'} attempt ${a.attempt ?? 0}${a.lastFailure?.message ? ` (${a.lastFailure.message})` : ''}`) ?? [];
          return `${id} ${d.status.name}${pending.length > 0 ? `, pending: ${pending.join('; ')}` : ''}`;
        }),
      );
      return `payins: ${payins.join(', ') || 'none'}\n  intents: ${intents.join(', ') || 'none'}\n  runs: ${described.join(' | ')}${s.lateTx && runs.length === 1 ? ' (no late-payin run)' : ''}`;
    };
    for (const s of streamed) {
      await settles(s).catch(async (err: Error) => {
        throw new Error(`${err.message}\n  ${await whereItStands(s)}`, { cause: err });
      });
    }

    // No intent has two transactions in the table, nor two of its broadcast attempts mined on chain.
    const twice = await knex('chain_txs').select('intent_key').where({ status: 'confirmed' }).groupBy('intent_key').havingRaw('count(*) > 1');
    assert.deepEqual(twice, [], 'no intent has two mined transactions');
    // Each attempt is looked up alone, on its own chain (EVM receipts, Solana signatures, TON treasury messages, Tron
    // and Stellar transactions).
    const txs = await knex<ChainTxRow>('chain_txs').select('intent_key', 'chain_id', 'tx_hash', 'replaced_tx_hashes', 'status', 'action', 'raw_tx', 'nonce');
    let attempts = 0;
    const intentsByFamily: Record<string, number> = {};
    for (const tx of txs) {
      const hashes = [tx.tx_hash, ...tx.replaced_tx_hashes];
      attempts += hashes.length;
      const family = services!.chains.registry.chain(tx.chain_id).family;
      intentsByFamily[family] = (intentsByFamily[family] ?? 0) + 1;
      const adapter = services!.chains.adapter(tx.chain_id);
      const sent = { action: tx.action, rawTx: tx.raw_tx, nonce: Number(tx.nonce) };
      const checks = await Promise.all(hashes.map(async (hash) => ({ hash, check: await adapter.checkTx([hash], 1, hash === tx.tx_hash ? sent : undefined) })));
      const mined = checks.filter((c) => c.check.state !== 'unmined').map((c) => c.hash);
      assert.ok(mined.length <= 1, `intent ${tx.intent_key} has ${mined.length} transactions on chain: ${mined.join(', ')}`);
      if (tx.status === 'confirmed') assert.deepEqual(mined, [tx.tx_hash], `the confirmed transaction of intent ${tx.intent_key} is the one on chain`);
    }

    // Every event of a paid payment was attempted, each at most once: one delivery row, at most one request.
    const resent = await knex('webhook_deliveries').select('payment_id', 'event_type').whereNotNull('payment_id').groupBy('payment_id', 'event_type').havingRaw('count(*) > 1');
    assert.deepEqual(resent, [], 'one delivery row per payment and event');
    for (const s of streamed.filter((s) => s.kind !== 'underpaid' && s.kind !== 'legacy order')) {
      await eventually(`the webhook events of payment ${s.paymentId} to be attempted`, SETTLE_TIMEOUT_MS, async () => {
        const rows = await knex('webhook_deliveries').where({ payment_id: s.paymentId }).whereNot({ status: 'pending' }).select<Array<{ event_type: string }>>('event_type');
        const types = new Set(rows.map((r) => r.event_type));
        return types.has('payment_payin_completed') && types.has('payment_payout_completed') ? true : undefined;
      });
    }
    const requests = new Map<string, number>();
    for (const r of receiver!.received(webhookUrl)) {
      const event = JSON.parse(r.rawBody.toString('utf8')) as { type: string; data: { id: string } };
      const key = `${event.data.id} ${event.type}`;
      requests.set(key, (requests.get(key) ?? 0) + 1);
    }
    assert.deepEqual([...requests].filter(([, n]) => n > 1), [], 'no webhook event was sent twice');
    const webhooks = await knex('webhook_deliveries').count<{ count: string }[]>('* as count');

    // Every account we control holds on chain what the ledger says, per asset: deposits, the receiving account, treasuries.
    const books = await eventually('every account to be settled and reconciled', 120_000, async () => {
      const result = await reconcileLedger(services!);
      return result.accounts.every((a) => !a.inFlight) ? result : undefined;
    });
    assert.deepEqual(describeReconciliation(services!.chains.registry, books).filter((line) => / — (DIFFERENCE|STUCK)/.test(line)), [], 'the ledger balances against the chain');
    assert.equal(books.failures, 0);
    // Every family the stream paid on had its treasuries and its deposits (Stellar's: the receiving account) compared,
    // every app's among them (the reconcile above is not scoped to one app; Stellar's deposits share one account).
    const comparedOn = (kinds: string[]) =>
      [...new Set(books.accounts.filter((a) => kinds.includes(a.kind)).map((a) => services!.chains.registry.chain(a.chainId).family))].sort();
    assert.deepEqual(comparedOn(['treasury']), ['evm', 'solana', 'stellar', 'ton', 'tron'], 'every family’s treasury is compared');
    assert.deepEqual(comparedOn(['deposit', 'receiving']), ['evm', 'solana', 'stellar', 'ton', 'tron'], 'every family’s deposits are compared');

    // No workflow stuck: besides the background ones (chain watchers, pool keepers, the reconciler), only payments and orders not yet expired run.
    const now = Date.now();
    for (const s of streamed) {
      const { status } = await client.workflow.getHandle(paymentWorkflowId(s.paymentId)).describe();
      const row = await knex('payments').select('expires_at').where({ id: s.paymentId }).first<{ expires_at: Date }>();
      assert.ok(status.name !== 'RUNNING' || row.expires_at.getTime() > now, `workflow of payment ${s.paymentId} is ${status.name} past its expiry`);
    }
    const background = new Set(backgroundWorkflowIds(services!.chains.registry));
    const expiries = new Map<string, Date>();
    for (const p of await knex('payments').select<Array<{ id: string; expires_at: Date }>>('id', 'expires_at')) expiries.set(paymentWorkflowId(p.id), p.expires_at);
    for (const o of await knex<OrderRow>('orders').select('id', 'expires_at')) expiries.set(orderWorkflowId(o.id), o.expires_at);
    const open = await listWorkflows(client, 'ExecutionStatus="Running"');
    const stuck = open.filter((wf) => !background.has(wf.workflowId) && !((expiries.get(wf.workflowId)?.getTime() ?? 0) > now));
    assert.deepEqual(stuck.map((wf) => `${wf.type} ${wf.workflowId}`), [], 'only background workflows and unexpired payments and orders run');

    console.log(`      settled: ${JSON.stringify(counts)}; ${txs.length} chain intents ${JSON.stringify(intentsByFamily)} (${attempts} broadcast attempts, none mined twice); ${webhooks[0]!.count} webhook deliveries (${requests.size} events received, none twice); ${open.length} workflows running (${open.filter((wf) => background.has(wf.workflowId)).length} background)`);
    for (const line of describeReconciliation(services!.chains.registry, books).filter((l) => / (treasury|receiving) /.test(l))) console.log(`      ${line}`);
  });
});
