/**
 * "TON transfers out of one deposit collide on its seqno": the sweep, the excess refund and late-payin refunds of one
 * deposit, prepared concurrently, each read the same deposit and treasury seqno. On the real stack (API, Temporal,
 * PostgreSQL, the TON devnet): an overpaid payment returns its excess, and four late payins made in one wallet
 * message to one deposit are each refunded, every refund one transaction of its own that left the deposit, booked
 * once, because the treasury's transactions go one at a time, each prepared once the one before has landed.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { keyPairFromSeed } from '@ton/crypto';
import { Address, WalletContractV5R1, toNano, type Transaction } from '@ton/ton';
import { listPaymentLedgerEntries } from '../../db/queries/ledger';
import { listPayins } from '../../db/queries/payins';
import type { ChainTxRow } from '../../db/tables';
import { stackChain, type Stack, type StackChain } from '../../tools/stack/stack';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { eventually } from '../support/poll';
import { connectServices, paymentRunEnded, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { payTon, payTonOutputs, tonPayer, type TonPayer } from '../support/ton';

describe('one transfer at a time per sending account: TON deposits and the treasury', function () {
  this.timeout(300_000);
  let stack: Stack;
  let services: StackServices;
  let ton: StackChain<'ton'>;
  let customer: TonPayer;
  let merchant: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    ton = stackChain(stack.info, 'ton');
    customer = await tonPayer(ton.rpcUrl, stack.info.customer.ton.mnemonic);
    const wallet = WalletContractV5R1.create({ workchain: 0, publicKey: keyPairFromSeed(randomBytes(32)).publicKey }).address.toRawString();
    merchant = await newMerchant(stack, services.knex, { payout: { address: wallet, chainId: ton.chainId, tokenSymbol: 'TON' } });
  });
  after(async () => services?.close());

  const newPayment = (amount: string) => createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `seqno-${randomUUID()}`, chainId: String(ton.chainId), tokenSymbol: 'TON', amount }));

  /** The customer's incoming transactions from `deposit`, newest first, among its latest 100. */
  async function receivedFrom(deposit: string): Promise<Transaction[]> {
    const from = Address.parse(deposit);
    const txs = await customer.client.getTransactions(customer.wallet.address, { limit: 100 });
    return txs.filter((tx) => tx.inMessage?.info.type === 'internal' && tx.inMessage.info.src.equals(from));
  }
  const valueOf = (tx: Transaction) => (tx.inMessage?.info.type === 'internal' ? tx.inMessage.info.value.coins : 0n);

  /** Every chain transaction of the payment, mined and succeeded. */
  async function transactionsOf(paymentId: string): Promise<ChainTxRow[]> {
    const rows = await services.knex<ChainTxRow>('chain_txs').where({ payment_id: paymentId }).orderBy('created_at');
    for (const row of rows) assert.equal(row.status, 'confirmed', `${row.intent_key} landed (${row.status})`);
    return rows;
  }

  it('an overpaid TON payment returns its excess: the sweep and the refund are one transaction each, both landed, the refund booked once', async () => {
    const created = await newPayment('2');
    await payTon(customer, created.source.receiverAddress, toNano('2.5'));
    const { payment } = await waitForStatus(stack.info.paymentApiUrl, created.id, 'payment_completed', 180_000);
    assert.equal(payment.source.amountReceived, '2.5');
    await paymentRunEnded(services, created.id);

    const rows = await transactionsOf(created.id);
    assert.deepEqual(rows.map((r) => r.intent_key.split(':')[0]).sort(), ['payout', 'refund', 'sweep']);
    const refunds = await receivedFrom(created.source.receiverAddress);
    assert.deepEqual(refunds.map(valueOf), [toNano('0.5')], 'the excess left the deposit once, to its sender');
    const booked = await listPaymentLedgerEntries({ knex: services.knex, paymentId: created.id, kind: 'refund' });
    assert.deepEqual(booked.map((e) => e.amount_units), [toNano('0.5').toString()]);
    // The deposit gave up the payment and the excess: what stays is what its own fees left of the gas kept for them.
    assert.ok((await customer.client.getBalance(Address.parse(created.source.receiverAddress))) < toNano('0.01'));
  });

  it('four late payins in one wallet message to one TON deposit are refunded with one transaction each, each booked once', async () => {
    const created = await newPayment('1');
    await payTon(customer, created.source.receiverAddress, toNano('1'));
    await waitForStatus(stack.info.paymentApiUrl, created.id, 'payment_completed', 180_000);
    const deposit = created.source.receiverAddress;
    const late = [toNano('0.6'), toNano('0.7'), toNano('0.8'), toNano('0.9')];

    await payTonOutputs(customer, late.map((nanotons) => ({ to: deposit, nanotons })));
    const refunded = await eventually('the four late payins refunded', 180_000, async () => {
      const payins = (await listPayins({ knex: services.knex, paymentId: created.id })).filter((p) => p.disposition === 'refund');
      const rows = await services.knex<ChainTxRow>('chain_txs').where({ payment_id: created.id }).where('intent_key', 'like', 'refund:%');
      return payins.length === 4 && rows.length === 4 && rows.every((r) => r.status !== 'signed') ? rows : undefined;
    });
    assert.deepEqual(refunded.map((r) => r.status), ['confirmed', 'confirmed', 'confirmed', 'confirmed'], 'every refund landed');
    assert.equal(new Set(refunded.map((r) => r.tx_hash)).size, 4, 'one transaction per refund');
    const received = (await receivedFrom(deposit)).map(valueOf).sort((a, b) => (a < b ? -1 : 1));
    assert.deepEqual(received, late, 'each payin left the deposit once, back to its sender');
    const booked = await listPaymentLedgerEntries({ knex: services.knex, paymentId: created.id, kind: 'refund' });
    assert.deepEqual(booked.map((e) => BigInt(e.amount_units)).sort((a, b) => (a < b ? -1 : 1)), late, 'one refund booked per refund made');
    assert.ok((await customer.client.getBalance(Address.parse(deposit))) < toNano('0.03'), 'the deposit kept none of the payins');
    assert.equal((await waitForStatus(stack.info.paymentApiUrl, created.id, 'payment_completed', 10_000)).payment.status, 'payment_completed');
  });
});
