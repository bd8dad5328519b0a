import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { lockTreasuryReservations, releaseTreasuryReservation, sumOpenReservations } from '../../db/queries/treasury-reservations';
import { intentKeys } from '../../domain/chain-txs';
import { reserveInTurn } from '../../services/treasury-reservations';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody } from '../support/api';
import { newMerchant } from '../support/merchant';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

/** A chain id no devnet uses, so these reservations never meet a real treasury's. */
const CHAIN_ID = 990_002;
const TOKENS = ['0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb'];
const AMOUNT = 1_000_000n;

describe('payout reservations: one treasury’s reservations in batches, each seeing the ones before', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  let knex: Knex;
  let paymentIds: string[];

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    knex = services.knex;
    const merchant = await newMerchant(stack, knex);
    // Reservations belong to payments: any forty will do.
    paymentIds = await Promise.all(Array.from({ length: 46 }, async () => (await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody())).id));
  });
  after(async () => {
    await knex?.('treasury_reservations').where({ chain_id: CHAIN_ID }).delete();
    await services?.close();
  });

  const reserveFor = async (intentKey: string, paymentId: string, tokenAddress: string, balanceUnits: bigint | (() => bigint)) =>
    (await reserveInTurn(knex, { intentKey, paymentId, chainId: CHAIN_ID, tokenAddress, amountUnits: AMOUNT.toString(), readBalance: () => Promise.resolve(typeof balanceUnits === 'bigint' ? balanceUnits : balanceUnits()) })).reserved;
  const reserve = (paymentId: string, tokenAddress: string, balanceUnits: bigint | (() => bigint)) => reserveFor(intentKeys.payout(paymentId), paymentId, tokenAddress, balanceUnits);
  const openUnits = async (tokenAddress: string) => (await sumOpenReservations({ knex })).find((r) => r.chainId === CHAIN_ID && r.tokenAddress === tokenAddress)?.units ?? 0n;

  it('thirty payouts at once against a balance for twenty-five: exactly twenty-five are reserved, never more than the balance', async () => {
    const [token] = TOKENS as [string];
    const answers = await Promise.all(paymentIds.slice(0, 30).map((id) => reserve(id, token, 25n * AMOUNT)));
    assert.equal(answers.filter(Boolean).length, 25);
    assert.equal(await openUnits(token), 25n * AMOUNT);

    // A retry finds its own reservation, short as the treasury now is; a new payout is refused.
    const reservedId = paymentIds[answers.indexOf(true)]!;
    const refusedId = paymentIds[answers.indexOf(false)]!;
    assert.equal(await reserve(reservedId, token, 25n * AMOUNT), true);
    assert.equal(await reserve(refusedId, token, 25n * AMOUNT), false);
    assert.equal(await openUnits(token), 25n * AMOUNT);
  });

  it('another treasury’s reservations are counted on their own', async () => {
    const [first, second] = TOKENS as [string, string];
    const answers = await Promise.all(paymentIds.slice(30, 40).map((id) => reserve(id, second, 5n * AMOUNT)));
    assert.equal(answers.filter(Boolean).length, 5);
    assert.equal(await openUnits(second), 5n * AMOUNT);
    assert.equal(await openUnits(first), 25n * AMOUNT);
  });

  it('a payment asking twice at once holds one reservation; one whose payout was mined keeps its own and takes no more', async () => {
    const token = '0x00000000000000000000000000000000000000cc';
    const [twice, released, next] = paymentIds.slice(40, 43) as [string, string, string];
    assert.deepEqual(await Promise.all([reserve(twice, token, 2n * AMOUNT), reserve(twice, token, 2n * AMOUNT), reserve(released, token, 2n * AMOUNT)]), [true, true, true]);
    assert.equal(await openUnits(token), 2n * AMOUNT);
    assert.equal(await knex('treasury_reservations').where({ payment_id: twice }).count<Array<{ count: string }>>('* as count').then(([row]) => Number(row!.count)), 1);

    // Released, the reservation no longer counts against the balance, and asking again does not reserve anew.
    await releaseTreasuryReservation({ knex, intentKey: intentKeys.payout(released) });
    assert.equal(await reserve(released, token, 2n * AMOUNT), true);
    assert.equal(await openUnits(token), AMOUNT);
    assert.equal(await reserve(next, token, 2n * AMOUNT), true);
    assert.equal(await openUnits(token), 2n * AMOUNT);
  });

  it('a payout mined while another waits for the treasury: the waiting one reads the balance without its tokens', async () => {
    const token = '0x00000000000000000000000000000000000000dd';
    const [mined, waiting] = paymentIds.slice(43, 45) as [string, string];
    let onChain = (3n * AMOUNT) / 2n;
    const balance = () => onChain;
    assert.equal(await reserve(mined, token, balance), true);

    // The next payout's batch waits for the treasury's lock while the first payout is mined and released.
    const held = await knex.transaction();
    try {
      await lockTreasuryReservations({ trx: held, chainId: CHAIN_ID, tokenAddress: token });
      const answer = reserve(waiting, token, balance);
      const waitingForLock = async () => Number((await knex.raw<{ rows: Array<{ n: string }> }>(`select count(*) as n from pg_locks where locktype = 'advisory' and not granted`)).rows[0]!.n);
      while ((await waitingForLock()) === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      onChain -= AMOUNT;
      await releaseTreasuryReservation({ knex, intentKey: intentKeys.payout(mined) });
      await held.commit();
      // Half the amount is left: the released reservation no longer counts, and neither do the tokens it paid out.
      assert.equal(await answer, false);
    } finally {
      if (!held.isCompleted()) await held.rollback();
    }
    assert.equal(await openUnits(token), 0n);
  });

  it('a merchant refund from the treasury holds a reservation of its own, which the payouts count (and it theirs)', async () => {
    const token = '0x00000000000000000000000000000000000000ee';
    const [payment] = paymentIds.slice(45) as [string];
    const refund = intentKeys.merchantRefund('00000000-0000-4000-8000-000000000001');
    const balance = (3n * AMOUNT) / 2n;
    assert.equal(await reserveFor(refund, payment, token, balance), true);
    // The same payment's payout is another transfer: half its amount is left beside the refund.
    assert.equal(await reserve(payment, token, balance), false);
    assert.equal(await reserveFor(refund, payment, token, balance), true, 'a retry keeps its reservation');
    assert.equal(await openUnits(token), AMOUNT);

    await releaseTreasuryReservation({ knex, intentKey: refund });
    assert.equal(await reserve(payment, token, balance - AMOUNT), false, 'mined, the refund is in the balance instead');
    assert.equal(await reserve(payment, token, balance), true);
    assert.equal(await openUnits(token), AMOUNT);
  });
});
