import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Interface, parseUnits } from 'ethers';
import { erc20Abi } from '../../chains/contracts';
import { devnetRpc } from '../../chains/devnet/devnet';
import { listPayins } from '../../db/queries/payins';
import type { Stack } from '../../scripts/stack';
import type { PaymentStatus } from '../../workflows/types';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer, providerFor, tokenBalance } from '../support/chain';
import { connectServices, startExtraApi, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

const erc20 = new Interface(erc20Abi);
const units = (amount: string) => parseUnits(amount, 6);
/** FEE_BPS=50 in the test stack. */
const feeOf = (amount: bigint) => (amount * 50n) / 10_000n;

const HAPPY_PATH: PaymentStatus[] = [
  'payment_unpaid',
  'payment_started',
  'payment_payin_completed',
  'payment_bridging',
  'payment_payout_started',
  'payment_payout_completed',
  'payment_completed',
];

/** Every status polled must appear in the lifecycle's order (polling may skip some, never reorder them). */
function assertFollows(seen: PaymentStatus[], lifecycle: PaymentStatus[]) {
  const positions = seen.map((s) => lifecycle.indexOf(s));
  assert.ok(positions.every((p) => p >= 0), `unexpected status in ${seen.join(' → ')}`);
  assert.deepEqual(positions, [...positions].sort((a, b) => a - b), `out of order: ${seen.join(' → ')}`);
}

describe('payments end to end on the devnet (real API, Temporal, PostgreSQL, hardhat)', function () {
  this.timeout(180_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let key: string;
  let merchant: string;
  let customer: string;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    key = stack.info.demoMerchant.ordersKey;
    merchant = stack.info.demoMerchant.payout.address;
    customer = stack.info.customer.address;
  });
  after(async () => services?.close());

  async function assertPayoutOnChain(txHash: string, amount: bigint) {
    const receipt = await providerFor(stack.info, 8453).getTransactionReceipt(txHash);
    assert.ok(receipt, 'payout receipt exists');
    assert.equal(receipt.status, 1);
    const transfer = receipt.logs.map((l) => erc20.parseLog(l)).find((l) => l?.name === 'Transfer');
    assert.equal(String(transfer?.args[1]).toLowerCase(), merchant.toLowerCase());
    assert.equal(transfer?.args[2], amount);
  }

  it('same chain: the merchant wallet receives amount − fee and the payment settles', async () => {
    const amount = '25.5';
    const before = await tokenBalance(stack.info, 8453, 'USDC', merchant);
    const created = await createPayment(api, key, paymentBody({ orderId: `same-${randomUUID()}`, chainId: '8453', amount }));
    assert.equal(created.status, 'payment_unpaid');
    const payinTx = await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, amount);

    const { payment, seen } = await waitForStatus(api, created.id, 'payment_completed');
    assertFollows(seen, HAPPY_PATH);
    assert.ok(!seen.includes('payment_bridging'), 'no bridging on the same chain');
    const expected = units(amount) - feeOf(units(amount));
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', merchant)) - before, expected);
    assert.equal(payment.destination.amount, '25.3725');
    assert.equal(payment.source.fee, '0.1275');
    assert.equal(payment.source.txHash, payinTx);
    assert.equal(payment.source.senderAddress, customer);
    assert.equal(payment.source.amountReceived, amount);
    assert.ok(payment.source.confirmedAt && payment.destination.confirmedAt);
    await assertPayoutOnChain(payment.destination.txHash!, expected);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', created.source.receiverAddress), 0n, 'deposit address swept');
  });

  it('cross chain: pays on Arbitrum, bridges, and pays out on Base', async () => {
    const amount = '40';
    const before = await tokenBalance(stack.info, 8453, 'USDC', merchant);
    const created = await createPayment(api, key, paymentBody({ orderId: `cross-${randomUUID()}`, chainId: '42161', amount }));
    assert.equal(created.source.chainId, '42161');
    assert.equal(created.destination.chainId, '8453');
    await customerTransfer(stack.info, 42161, 'USDC', created.source.receiverAddress, amount);

    const { payment, seen } = await waitForStatus(api, created.id, 'payment_completed');
    assertFollows(seen, HAPPY_PATH);
    const expected = units(amount) - feeOf(units(amount));
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', merchant)) - before, expected);
    await assertPayoutOnChain(payment.destination.txHash!, expected);
    const bridged = await services.knex('chain_txs').where({ payment_id: created.id }).whereIn('purpose', ['bridge burn', 'bridge mint']);
    assert.equal(bridged.length, 2, 'one burn on Arbitrum and one mint on Base');
    assert.ok(bridged.every((tx: { status: string }) => tx.status === 'confirmed'));
  });

  it('underpayment bounces and the customer gets every token back', async () => {
    const created = await createPayment(api, key, paymentBody({ orderId: `under-${randomUUID()}`, chainId: '8453', amount: '10' }));
    const before = await tokenBalance(stack.info, 8453, 'USDC', customer);
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '4');
    const { payment, seen } = await waitForStatus(api, created.id, 'payment_refunded');
    assert.ok(seen.includes('payment_refunded'));
    assert.ok(!seen.includes('payment_payin_completed'), `never payin_completed: ${seen.join(' → ')}`);
    assert.equal(payment.source.amountReceived, '4');
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), before, 'refund restored the customer balance');
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', created.source.receiverAddress), 0n);
    assert.equal(payment.destination.txHash, null);
  });

  it('a payin in the wrong token bounces and is refunded in that token', async () => {
    const created = await createPayment(api, key, paymentBody({ orderId: `wrong-${randomUUID()}`, chainId: '8453', amount: '5' }));
    const before = await tokenBalance(stack.info, 8453, 'USDT', customer);
    await customerTransfer(stack.info, 8453, 'USDT', created.source.receiverAddress, '5');
    await waitForStatus(api, created.id, 'payment_refunded');
    assert.equal(await tokenBalance(stack.info, 8453, 'USDT', customer), before);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDT', created.source.receiverAddress), 0n);
  });

  it('an overpayment settles the payment and refunds the excess', async () => {
    const created = await createPayment(api, key, paymentBody({ orderId: `over-${randomUUID()}`, chainId: '8453', amount: '7' }));
    const customerBefore = await tokenBalance(stack.info, 8453, 'USDC', customer);
    const merchantBefore = await tokenBalance(stack.info, 8453, 'USDC', merchant);
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '9.5');
    const { payment } = await waitForStatus(api, created.id, 'payment_completed');
    assert.equal(payment.source.amountReceived, '9.5');
    // The excess refund runs alongside the payout; wait for the deposit address to be empty.
    for (let i = 0; i < 50 && (await tokenBalance(stack.info, 8453, 'USDC', created.source.receiverAddress)) > 0n; i++) await delay(200);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', created.source.receiverAddress), 0n);
    assert.equal(customerBefore - (await tokenBalance(stack.info, 8453, 'USDC', customer)), units('7'), 'customer paid exactly the amount');
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', merchant)) - merchantBefore, units('7') - feeOf(units('7')));
  });

  it('an unpaid payment expires, and a payin after expiry is refunded', async () => {
    const shortLived = await startExtraApi(stack, services, { paymentTtlSeconds: 3 });
    try {
      const created = await createPayment(shortLived.paymentApiUrl, key, paymentBody({ orderId: `exp-${randomUUID()}`, chainId: '8453', amount: '3' }));
      await waitForStatus(api, created.id, 'payment_expired', 30_000);
      const before = await tokenBalance(stack.info, 8453, 'USDC', customer);
      await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '3');
      const { seen } = await waitForStatus(api, created.id, 'payment_refunded');
      assert.ok(!seen.includes('payment_payin_completed'));
      assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), before);
      const [payin] = await listPayins({ knex: services.knex, paymentId: created.id });
      assert.equal(payin?.disposition, 'refund');
    } finally {
      await shortLived.close();
    }
  });

  it('a reorg that removes the payin before its confirmations never completes the payin', async () => {
    const rpcUrl = stack.info.chains.find((c) => c.chainId === 8453)!.rpcUrl;
    const created = await createPayment(api, key, paymentBody({ orderId: `reorg-${randomUUID()}`, chainId: '8453', amount: '6' }));
    // Stop interval mining so the payin's block is the head: 1 confirmation of the 2 required.
    await devnetRpc(rpcUrl, 'evm_setIntervalMining', [0]);
    let payinTx: string;
    try {
      const snapshot = await devnetRpc(rpcUrl, 'evm_snapshot', []);
      payinTx = await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '6');
      await waitForStatus(api, created.id, 'payment_started', 30_000);
      assert.equal(await devnetRpc(rpcUrl, 'evm_revert', [snapshot]), true);
    } finally {
      await devnetRpc(rpcUrl, 'evm_setIntervalMining', [500]);
    }
    const { seen } = await waitForStatus(api, created.id, 'payment_unpaid', 30_000);
    // Blocks keep coming; the vanished payin must never be confirmed.
    const later: PaymentStatus[] = [];
    for (let i = 0; i < 15; i++) {
      later.push((await getPayment(api, created.id)).status);
      await delay(200);
    }
    assert.ok(![...seen, ...later].includes('payment_payin_completed'), `statuses: ${[...seen, ...later].join(' → ')}`);
    const payins = await listPayins({ knex: services.knex, paymentId: created.id });
    assert.deepEqual(payins.map((p) => [p.tx_hash, p.status]), [[payinTx, 'dropped']]);

    // The payment is still payable after the reorg.
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '6');
    const { payment } = await waitForStatus(api, created.id, 'payment_completed');
    assert.notEqual(payment.source.txHash, payinTx);
  });
});
