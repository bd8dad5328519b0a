import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { loadChainAdapters } from '../../chains/adapters';
import { createKnex } from '../../db/connection';
import { freePort } from '../../scripts/dev/ports';
import { startProdStack, type ProdStack } from '../../scripts/prod/stack';
import { reconcileLedger } from '../../services/ledger';
import type { PaymentResource } from '../../api/serializers/payment';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer, destroyProviders } from '../support/chain';
import { TEST_STACK_ENV } from '../support/stack';
import { paymentWorkflowId } from '../../workflows/ids';

const PAYMENTS = 50;
const STREAM_MS = 60_000;
const WORKER_KILL_EVERY_MS = 4_000;

/**
 * Chaos on the production topology (Temporal's pre-production guide): a minute-long stream of payments while a
 * random worker of three is killed -9 every few seconds (one down at a time), the Temporal server and PostgreSQL
 * are each restarted once, and an API process is killed -9 in the middle of creates. Afterwards every payment is where its payins put it, nothing was paid twice, no
 * workflow is stuck, no webhook event was attempted twice, and the ledger balances.
 */
describe('chaos on the production topology', function () {
  this.timeout(12 * 60_000);
  let dir: string;
  let prod: ProdStack | undefined;

  before(async function () {
    dir = await mkdtemp(path.join(tmpdir(), 'payrail-chaos-'));
    const workers = [];
    for (let i = 0; i < 3; i++) workers.push({ health: await freePort(), sdkMetrics: await freePort() });
    prod = await startProdStack({
      varDir: dir,
      persistent: false,
      ports: {
        apis: [await freePort(), await freePort()],
        workers,
        postgres: await freePort(),
        temporal: await freePort(),
        temporalUi: await freePort(),
        chains: [await freePort(), await freePort()],
        solana: await freePort(),
        ton: await freePort(),
        tron: await freePort(),
        stellar: await freePort(),
        mailSink: { smtp: 0, http: 0 },
      },
      blockTimeMs: 500,
      env: { ...TEST_STACK_ENV, LOG_LEVEL: 'info' },
      log: () => undefined,
    });
  });

  after(async function () {
    this.timeout(120_000);
    destroyProviders();
    await prod?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('settles a stream of payments through worker kills and Temporal and PostgreSQL restarts', async () => {
    const { apis, workers, info, temporal, postgres } = prod!;
    const apiUrl = (i: number) => `${apis[i % apis.length]!.healthUrl}/v1/payment-api`;
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

    /** Creates (retrying with the same orderId through any outage: creates are idempotent) and pays in full. */
    const payOne = async (i: number): Promise<PaymentResource> => {
      const body = paymentBody({ orderId: `chaos-${randomUUID()}`, chainId: '8453', amount: '2' });
      for (let attempt = 0; ; attempt++) {
        try {
          const created = await createPayment(apiUrl(i + attempt), info.demoMerchant.ordersKey, body);
          for (let paid = 0; ; paid++) {
            try {
              await customerTransfer(info, 8453, 'USDC', created.source.receiverAddress, '2');
              return created;
            } catch (err) {
              if (paid >= 5) throw err;
              await delay(2_000);
            }
          }
        } catch (err) {
          if (attempt >= 30) throw err;
          await delay(1_000);
        }
      }
    };
    const started = Date.now();
    const streamed: Array<Promise<PaymentResource>> = [];
    for (let i = 0; i < PAYMENTS; i++) {
      streamed.push(payOne(i));
      await delay(STREAM_MS / PAYMENTS);
    }
    const payments = await Promise.all(streamed);
    await Promise.all([restarts, apiKill]);
    streaming = false;
    await killWorkers;
    for (const w of workers) await w.start();
    console.log(`      stream: ${payments.length} payments in ${((Date.now() - started) / 1000).toFixed(0)} s; faults ${JSON.stringify(faults)}`);

    for (const p of payments) await waitForStatus(apiUrl(0), p.id, 'payment_completed', 300_000);

    const knex = createKnex(prod!.stack.env.DATABASE_URL!, { max: 2 });
    const chains = loadChainAdapters(prod!.stack.config.chainsFile);
    try {
      const twice = await knex('chain_txs').select('intent_key').where({ status: 'confirmed' }).groupBy('intent_key').havingRaw('count(*) > 1');
      assert.deepEqual(twice, [], 'no intent has two mined transactions');
      const resent = await knex('webhook_deliveries').select('payment_id', 'event_type').whereNotNull('payment_id').groupBy('payment_id', 'event_type').havingRaw('count(*) > 1');
      assert.deepEqual(resent, [], 'every webhook event attempted at most once');
      const books = await reconcileLedger({ knex, chains });
      for (const b of books) {
        assert.equal(b.difference, 0n, `ledger of chain ${b.chainId} ${b.tokenAddress}`);
        assert.equal(b.depositsOnChain, b.depositsInLedger, `deposit addresses of chain ${b.chainId} ${b.tokenAddress}`);
      }
      const open = await knex('payments').whereIn('id', payments.map((p) => p.id)).whereNot({ status: 'payment_completed' }).count<{ count: string }[]>('* as count');
      assert.equal(open[0]!.count, '0');
      const mined = await knex('chain_txs').whereIn('payment_id', payments.map((p) => p.id)).where({ status: 'confirmed' }).count<{ count: string }[]>('* as count');
      // No workflow stuck: a payment's workflow may still run only until its payment expires.
      const connection = await Connection.connect({ address: info.temporalAddress });
      try {
        const client = new Client({ connection, namespace: prod!.stack.config.temporal.namespace });
        const rows = await knex('payments').select('id', 'expires_at').whereIn('id', payments.map((p) => p.id));
        for (const row of rows as Array<{ id: string; expires_at: Date }>) {
          const { status } = await client.workflow.getHandle(paymentWorkflowId(row.id)).describe();
          assert.ok(status.name !== 'RUNNING' || row.expires_at.getTime() > Date.now(), `workflow of payment ${row.id} is ${status.name} past its expiry`);
        }
      } finally {
        await connection.close();
      }
      console.log(`      settled: ${payments.length} completed, ${mined[0]!.count} confirmed transactions, ${books.length} balanced books`);
    } finally {
      chains.destroy();
      await knex.destroy();
    }
  });
});
