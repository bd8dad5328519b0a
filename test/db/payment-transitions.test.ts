import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createKnex } from '../../db/connection';
import { listPayins, upsertPayin } from '../../db/queries/payins';
import { applyPaymentTransition, findPaymentById, listPaymentStatusEvents } from '../../db/queries/payments';
import type { PaymentStatus, PaymentTransition } from '../../domain/payment';
import type { DetectedPayin, PayinStatus } from '../../domain/payins';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody } from '../support/api';
import { connectServices, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { eventually } from '../support/poll';
import { getStack } from '../support/stack';

/** The application name of the steps' sessions, which the lock test counts. */
const STEPS_APPLICATION = 'payment-transition-steps';

describe('applyPaymentTransition (one statement per lifecycle step)', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let merchant: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex);
  });
  after(async () => services?.close());

  const newPayment = async () => (await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '8453', amount: '1' }))).id;
  /**
   * The steps' own sessions waiting for a lock `pid` holds, directly or behind another such session (PostgreSQL
   * queues them in order). The payment's run on the stack may queue behind it too: only the steps' sessions count.
   */
  const stepsQueuedBehind = async (pid: number): Promise<number> => {
    const { rows } = await services.knex.raw<{ rows: Array<{ count: number }> }>(
      `with recursive queued(pid, application_name) as (
         select pid, application_name from pg_stat_activity where ? = any(pg_blocking_pids(pid))
         union
         select a.pid, a.application_name from pg_stat_activity a join queued q on q.pid = any(pg_blocking_pids(a.pid))
       ) select count(*)::int as count from queued where application_name = ?`,
      [pid, STEPS_APPLICATION],
    );
    return rows[0]!.count;
  };
  /** A payment run's write: it enters `status`, leaving `from`. */
  const step = (paymentId: string, from: PaymentStatus, status: PaymentStatus, sequence: number, fields: Pick<PaymentTransition, 'payout'> = {}) =>
    applyPaymentTransition({ knex: services.knex, transition: { paymentId, from, status, sequence, ...fields } });
  const timeline = async (paymentId: string) => (await listPaymentStatusEvents({ knex: services.knex, paymentId })).map((event) => event.status);

  it('writes the status with its payin and payout fields, ignores an older step, and adds an event only when the status changes', async () => {
    const paymentId = await newPayment();
    const confirmedAt = '2026-11-27T06:00:00.000Z';
    const payin = { senderAddress: '0x' + '11'.repeat(20), txHash: '0x' + 'aa'.repeat(32), amountReceivedUnits: '1000000', confirmedAt };
    await applyPaymentTransition({ knex: services.knex, transition: { paymentId, status: 'payment_payin_completed', sequence: 2, payin } });
    // A zombie attempt of the step before lands after it: nothing changes.
    await applyPaymentTransition({ knex: services.knex, transition: { paymentId, status: 'payment_started', sequence: 1 } });
    // A newer step with the same status moves the sequence, not the timeline.
    await applyPaymentTransition({ knex: services.knex, transition: { paymentId, status: 'payment_payin_completed', sequence: 3 } });
    await applyPaymentTransition({ knex: services.knex, transition: { paymentId, status: 'payment_payout_completed', sequence: 4, payout: { txHash: '0x' + 'bb'.repeat(32), confirmedAt } } });

    const row = (await findPaymentById({ knex: services.knex, id: paymentId }))!;
    assert.equal(row.status, 'payment_payout_completed');
    assert.equal(Number(row.status_sequence), 4);
    assert.deepEqual([row.sender_address, row.payin_tx_hash, row.amount_received_units], [payin.senderAddress, payin.txHash, '1000000']);
    assert.equal(row.payin_confirmed_at?.toISOString(), confirmedAt);
    assert.equal(row.payout_tx_hash, '0x' + 'bb'.repeat(32));
    assert.deepEqual(await timeline(paymentId), ['payment_payin_completed', 'payment_payout_completed']);
  });

  it('concurrent steps of one payment: the newest wins, and the timeline has each status it entered once, in order', async () => {
    const paymentId = await newPayment();
    // Consecutive steps may keep the status (a payin counted after the payment started): no second event for it.
    const statuses: PaymentStatus[] = ['payment_started', 'payment_started', 'payment_payin_completed', 'payment_payin_completed', 'payment_payout_started', 'payment_payout_completed', 'payment_completed'];
    // All at once, each twice (a retried step beside its zombie): in order, then in reverse.
    const steps = statuses.map((status, i) => ({ paymentId, status, sequence: i + 1 }));
    await Promise.all([...steps, ...steps.reverse()].map((transition) => applyPaymentTransition({ knex: services.knex, transition })));

    const row = (await findPaymentById({ knex: services.knex, id: paymentId }))!;
    assert.equal(row.status, 'payment_completed');
    assert.equal(Number(row.status_sequence), statuses.length);
    const entered = await timeline(paymentId);
    assert.equal(entered.at(-1), 'payment_completed');
    assert.equal(new Set(entered).size, entered.length, `no status entered twice: ${entered.join(', ')}`);
    // Only a step newer than the row's applies, so the timeline follows the steps' order.
    assert.deepEqual(entered, [...new Set(statuses)].filter((s) => entered.includes(s)));
  });

  it('a lost workflow task’s retry repeats its writes on a later clock: they never take the payment back', async () => {
    const paymentId = await newPayment();
    const payout = { txHash: '0x' + 'cc'.repeat(32), confirmedAt: '2026-11-27T06:00:00.000Z' };
    const path: Array<[PaymentStatus, PaymentStatus]> = [
      ['payment_unpaid', 'payment_started'],
      ['payment_started', 'payment_payin_completed'],
      ['payment_payin_completed', 'payment_payout_started'],
      ['payment_payout_started', 'payment_payout_completed'],
    ];
    const write = (from: PaymentStatus, status: PaymentStatus, sequence: number) => step(paymentId, from, status, sequence, status === 'payment_payout_completed' ? { payout } : {});
    // The lost task's writes landed; its retry, seconds later, writes the same steps with newer sequences.
    for (const [i, [from, status]] of path.entries()) await write(from, status, 10 + i);
    for (const [i, [from, status]] of path.entries()) {
      await write(from, status, 150 + i);
      assert.equal((await findPaymentById({ knex: services.knex, id: paymentId }))!.status, 'payment_payout_completed', `after the retry's ${status}`);
    }
    await write('payment_payout_completed', 'payment_completed', 154);
    const row = (await findPaymentById({ knex: services.knex, id: paymentId }))!;
    assert.deepEqual([row.status, Number(row.status_sequence), row.payout_tx_hash], ['payment_completed', 154, payout.txHash]);
    assert.deepEqual(await timeline(paymentId), [...path.map(([, status]) => status), 'payment_completed']);
  });

  it('a step back applies only from the status stored: a reorg before finality, or a retry that decides otherwise', async () => {
    const reorged = await newPayment();
    await step(reorged, 'payment_unpaid', 'payment_started', 1);
    await step(reorged, 'payment_started', 'payment_payin_completed', 2);
    // A step back from another status than the stored one (a retry repeating an earlier step) changes nothing.
    await step(reorged, 'payment_unpaid', 'payment_started', 3);
    // The run leaves payment_payin_completed: a payin vanished before finality.
    await step(reorged, 'payment_payin_completed', 'payment_unpaid', 4);
    assert.deepEqual(await timeline(reorged), ['payment_started', 'payment_payin_completed', 'payment_unpaid']);

    // A lost first task counted a payin; its retry, after the expiry, refunds it and expires the payment.
    const expired = await newPayment();
    await step(expired, 'payment_unpaid', 'payment_started', 595);
    await step(expired, 'payment_unpaid', 'payment_expired', 610);
    assert.equal((await findPaymentById({ knex: services.knex, id: expired }))!.status, 'payment_expired');
    // Nothing takes a settled payment back to an earlier status, whatever its sequence.
    await step(expired, 'payment_unpaid', 'payment_started', 700);
    assert.deepEqual(await timeline(expired), ['payment_started', 'payment_expired']);
  });

  it('a payin confirmed is not recorded as only detected again; a dropped one is', async () => {
    const payment = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: randomUUID(), chainId: '8453', amount: '1' }));
    const payin: DetectedPayin = {
      chainId: 8453, txHash: '0x' + randomUUID().replaceAll('-', '').padEnd(64, '0'), logIndex: 0, blockNumber: 1, from: '0x' + '22'.repeat(20),
      to: payment.source.receiverAddress, tokenAddress: payment.source.tokenAddress, amountUnits: '1000000',
    };
    const record = (status: PayinStatus, sequence: number) => upsertPayin({ knex: services.knex, paymentId: payment.id, payin, status, sequence });
    const stored = async () => (await listPayins({ knex: services.knex, paymentId: payment.id })).find((p) => p.tx_hash === payin.txHash)?.status;
    await record('detected', 1);
    await record('confirmed', 2);
    // A lost task's retry repeats the detection on a later clock.
    await record('detected', 3);
    assert.equal(await stored(), 'confirmed');
    await record('dropped', 4);
    await record('detected', 5);
    assert.equal(await stored(), 'detected');
  });

  it('a step that waited for the one before it reads the status that one wrote (no second event for a status kept)', async () => {
    const paymentId = await newPayment();
    const url = new URL(stack.env.DATABASE_URL!);
    url.searchParams.set('application_name', STEPS_APPLICATION);
    const steps = createKnex(url.toString(), { max: 2 });
    const apply = (status: PaymentStatus, sequence: number) => applyPaymentTransition({ knex: steps, transition: { paymentId, status, sequence } });
    // Another writer holds the row while two steps queue behind it, the first before the second.
    const trx = await services.knex.transaction();
    try {
      await trx('payments').where({ id: paymentId }).forUpdate().first();
      const holder = (await trx.raw<{ rows: Array<{ pid: number }> }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      const queued = (count: number) =>
        eventually(`${count} step(s) queued behind the lock`, 30_000, async () => ((await stepsQueuedBehind(holder)) === count ? true : undefined), 20);
      const first = apply('payment_started', 1);
      await queued(1);
      const second = apply('payment_started', 2);
      await queued(2);
      await trx.commit();
      await Promise.all([first, second]);
    } finally {
      // A failed wait must not leave the row locked for the stack's own runs.
      if (!trx.isCompleted()) await trx.rollback();
      await steps.destroy();
    }
    assert.equal(Number((await findPaymentById({ knex: services.knex, id: paymentId }))!.status_sequence), 2);
    assert.deepEqual(await timeline(paymentId), ['payment_started']);
  });
});
