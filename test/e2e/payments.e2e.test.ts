import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Interface, parseUnits } from 'ethers';
import type { PaymentResource } from '../../api/serializers/payment';
import { devnetRpc } from '../../tools/devnets/evm/devnet';
import { erc20Abi } from '../../chains/evm/contracts';
import { findChainCursor } from '../../db/queries/chain-cursors';
import { listPayins } from '../../db/queries/payins';
import { listPaymentStatusEvents } from '../../db/queries/payments';
import type { PaymentStatus } from '../../domain/payment';
import type { Stack } from '../../tools/stack/stack';
import { latePayinWorkflowId, paymentWorkflowId } from '../../workflows/ids';
import type { LatePayinOutcome } from '../../workflows/types';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { bridgeTxsAfterApproval } from '../support/bridge-txs';
import { customerTransfer, providerFor, signCustomerTransfer, tokenBalance } from '../support/chain';
import { eventually } from '../support/poll';
import { connectServices, startExtraApi, type StackServices } from '../support/services';
import { holdTreasuryFloat } from '../support/float';
import { newMerchant } from '../support/merchant';
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
    const shop = await newMerchant(stack, services.knex);
    key = shop.ordersKey;
    merchant = shop.payout.address;
    customer = stack.info.customer.evm.address;
  });
  after(async () => services?.close());

  /** The payment's run ended with the payment: Temporal shows it Completed within 5 s of its terminal status. */
  async function assertRunCompleted(paymentId: string, status: PaymentStatus) {
    const handle = services.client.workflow.getHandle(paymentWorkflowId(paymentId));
    await eventually(`payment-${paymentId} to be Completed in Temporal`, 5_000, async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : undefined));
    assert.equal(await handle.result(), status);
  }

  /**
   * A payin of `amount` USDC on Base into the deposit address of a closed payment: refunded to the customer by its
   * own `late-payin-<chain>-<tx>-<logIndex>` workflow, which Temporal shows Completed. Returns the statuses seen.
   */
  async function assertLatePayinRefunded(payment: PaymentResource, amount: string, until: PaymentStatus): Promise<PaymentStatus[]> {
    const before = await tokenBalance(stack.info, 8453, 'USDC', customer);
    const txHash = await customerTransfer(stack.info, 8453, 'USDC', payment.source.receiverAddress, amount);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), before - units(amount));
    const row = await eventually(`the late payin ${txHash} to be recorded`, 30_000, async () =>
      (await listPayins({ knex: services.knex, paymentId: payment.id })).find((p) => p.tx_hash === txHash),
    );
    const late = services.client.workflow.getHandle(latePayinWorkflowId({ chainId: 8453, txHash, logIndex: row.log_index }));
    assert.equal((await late.describe()).type, 'latePayinWorkflow');
    assert.equal<LatePayinOutcome>(await late.result(), 'refunded');
    assert.equal((await late.describe()).status.name, 'COMPLETED');
    const { seen } = await waitForStatus(api, payment.id, until, 30_000);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), before, 'the late payin went back to the customer');
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', payment.source.receiverAddress), 0n, 'nothing left at the deposit address');
    const refunded = (await listPayins({ knex: services.knex, paymentId: payment.id })).find((p) => p.tx_hash === txHash);
    assert.deepEqual([refunded?.status, refunded?.disposition], ['confirmed', 'refund']);
    return seen;
  }

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
    // The run ends once the sweep landed (behind the payment, which does not wait for it).
    await assertRunCompleted(created.id, 'payment_completed');
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', created.source.receiverAddress), 0n, 'deposit address swept');
  });

  it('a payin to a completed payment is refunded by a late-payin workflow; the payment stays completed', async () => {
    const created = await createPayment(api, key, paymentBody({ orderId: `late-done-${randomUUID()}`, chainId: '8453', amount: '2' }));
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '2');
    const { payment } = await waitForStatus(api, created.id, 'payment_completed');
    await assertRunCompleted(created.id, 'payment_completed');

    const seen = await assertLatePayinRefunded(payment, '1.5', 'payment_completed');
    assert.deepEqual(seen, ['payment_completed']);
    const after = await getPayment(api, created.id);
    assert.deepEqual(after, payment, 'the completed payment is unchanged, field for field');
  });

  it('cross chain, Base\'s float short: pays on Arbitrum, bridges through CCTP v2, and pays out on Base', async () => {
    const releaseFloat = await holdTreasuryFloat(stack, services, await newMerchant(stack, services.knex), 8453, 'USDC');
    try {
      const amount = '40';
      const before = await tokenBalance(stack.info, 8453, 'USDC', merchant);
      const created = await createPayment(api, key, paymentBody({ orderId: `cross-${randomUUID()}`, chainId: '42161', amount }));
      assert.equal(created.source.chainId, '42161');
      assert.equal(created.destination.chainId, '8453');
      await customerTransfer(stack.info, 42161, 'USDC', created.source.receiverAddress, amount);

      const { payment, seen } = await waitForStatus(api, created.id, 'payment_completed');
      assert.ok(seen.includes('payment_bridging'), `the payment bridged its own funds: ${seen.join(' → ')}`);
      const expected = units(amount) - feeOf(units(amount));
      assert.equal((await tokenBalance(stack.info, 8453, 'USDC', merchant)) - before, expected);
      await assertPayoutOnChain(payment.destination.txHash!, expected);
      // USDC goes through CCTP v2: the burn on Arbitrum, the mint (receiveMessage) on Base. The approval comes
      // before them only for the first payment bridged: the treasury grants the bridge a standing allowance.
      const steps = (await bridgeTxsAfterApproval(services.knex, created.id)).map((tx) => [tx.purpose, tx.chain_id, tx.status]);
      assert.deepEqual(steps, [
        ['bridge burn', 42161, 'confirmed'],
        ['bridge mint', 8453, 'confirmed'],
      ]);
    } finally {
      await releaseFloat();
    }
  });

  it('payins of the payment token add up: 4 then 6 USDC pay a payment of 10', async () => {
    const created = await createPayment(api, key, paymentBody({ orderId: `topup-${randomUUID()}`, chainId: '8453', amount: '10' }));
    const before = await tokenBalance(stack.info, 8453, 'USDC', merchant);
    const first = await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '4');
    // The first payin is confirmed and counted, and the payment still waits for the rest.
    await eventually('the first payin to be confirmed', 30_000, async () =>
      (await listPayins({ knex: services.knex, paymentId: created.id })).find((p) => p.tx_hash === first && p.status === 'confirmed'),
    );
    assert.equal((await getPayment(api, created.id)).status, 'payment_started');
    const second = await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '6');

    const { payment, seen } = await waitForStatus(api, created.id, 'payment_completed');
    assertFollows(seen, HAPPY_PATH);
    assert.equal(payment.source.amountReceived, '10');
    assert.equal(payment.source.txHash, second, 'the payin that completed the amount');
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', merchant)) - before, units('10') - feeOf(units('10')));
    const payins = await listPayins({ knex: services.knex, paymentId: created.id });
    assert.deepEqual(payins.map((p) => [p.tx_hash, p.status, p.disposition]), [
      [first, 'confirmed', 'payment'],
      [second, 'confirmed', 'payment'],
    ]);
  });

  it('an underpayment waits until expiry, then bounces and the customer gets every token back', async () => {
    const shortLived = await startExtraApi(stack, services, { paymentTtlSeconds: 20 });
    try {
      const created = await createPayment(shortLived.paymentApiUrl, key, paymentBody({ orderId: `under-${randomUUID()}`, chainId: '8453', amount: '10' }));
      const before = await tokenBalance(stack.info, 8453, 'USDC', customer);
      const payinTx = await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '4');
      const { seen: waiting } = await waitForStatus(api, created.id, 'payment_started', 15_000);
      const { payment, seen } = await waitForStatus(api, created.id, 'payment_refunded');
      assertFollows([...waiting, ...seen], ['payment_unpaid', 'payment_started', 'payment_bounced', 'payment_refunded']);
      // An underpayment may still be topped up: it bounces only once the payment expired.
      assert.ok(Date.now() >= Date.parse(created.expiresAt), `refunded at ${new Date().toISOString()}, before expiry at ${created.expiresAt}`);
      assert.equal(payment.source.amountReceived, '4');
      assert.equal(payment.source.txHash, payinTx);
      assert.equal(payment.destination.txHash, null);
      assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), before, 'refund restored the customer balance');
      assert.equal(await tokenBalance(stack.info, 8453, 'USDC', created.source.receiverAddress), 0n);
      const payins = await listPayins({ knex: services.knex, paymentId: created.id });
      assert.deepEqual(payins.map((p) => [p.tx_hash, p.status, p.disposition]), [[payinTx, 'confirmed', 'refund']]);
      await assertRunCompleted(created.id, 'payment_refunded');
    } finally {
      await shortLived.close();
    }
  });

  it('a payin in another token is refunded in that token and does not bounce the payment, which can still be paid', async () => {
    const created = await createPayment(api, key, paymentBody({ orderId: `wrong-${randomUUID()}`, chainId: '8453', amount: '5' }));
    const before = await tokenBalance(stack.info, 8453, 'USDT', customer);
    const wrongTx = await customerTransfer(stack.info, 8453, 'USDT', created.source.receiverAddress, '5');
    await eventually('the USDT payin to be refunded', 60_000, async () =>
      (await tokenBalance(stack.info, 8453, 'USDT', customer)) === before ? true : undefined,
    );
    assert.equal(await tokenBalance(stack.info, 8453, 'USDT', created.source.receiverAddress), 0n);
    const [wrong] = await listPayins({ knex: services.knex, paymentId: created.id });
    assert.deepEqual([wrong?.tx_hash, wrong?.disposition], [wrongTx, 'refund']);
    const open = await getPayment(api, created.id);
    assert.equal(open.status, 'payment_unpaid', 'the payment is still open, neither bounced nor started');
    assert.deepEqual([open.source.amountReceived, open.source.txHash], [null, null]);

    const payinTx = await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '5');
    const { payment, seen } = await waitForStatus(api, created.id, 'payment_completed');
    assertFollows(seen, HAPPY_PATH);
    assert.equal(payment.source.txHash, payinTx);
    assert.equal(payment.source.amountReceived, '5');
  });

  it('an overpayment settles the payment and refunds the excess', async () => {
    const created = await createPayment(api, key, paymentBody({ orderId: `over-${randomUUID()}`, chainId: '8453', amount: '7' }));
    const customerBefore = await tokenBalance(stack.info, 8453, 'USDC', customer);
    const merchantBefore = await tokenBalance(stack.info, 8453, 'USDC', merchant);
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '9.5');
    const { payment } = await waitForStatus(api, created.id, 'payment_completed');
    assert.equal(payment.source.amountReceived, '9.5');
    // The excess refund lands before the payment completes; the sweep of the amount lands behind it.
    await eventually('the deposit address to be empty (the amount swept, the excess refunded)', 60_000, async () =>
      (await tokenBalance(stack.info, 8453, 'USDC', created.source.receiverAddress)) === 0n ? true : undefined,
    );
    assert.equal(customerBefore - (await tokenBalance(stack.info, 8453, 'USDC', customer)), units('7'), 'customer paid exactly the amount');
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', merchant)) - merchantBefore, units('7') - feeOf(units('7')));
  });

  it('an unpaid payment expires and its run ends; a payin after expiry is refunded by a late-payin workflow', async () => {
    const shortLived = await startExtraApi(stack, services, { paymentTtlSeconds: 3 });
    try {
      const created = await createPayment(shortLived.paymentApiUrl, key, paymentBody({ orderId: `exp-${randomUUID()}`, chainId: '8453', amount: '3' }));
      const { payment } = await waitForStatus(api, created.id, 'payment_expired', 30_000);
      await assertRunCompleted(created.id, 'payment_expired');

      const seen = await assertLatePayinRefunded(payment, '3', 'payment_refunded');
      assertFollows(seen, ['payment_expired', 'payment_bounced', 'payment_refunded']);
      assert.ok(!seen.includes('payment_payin_completed'));
    } finally {
      await shortLived.close();
    }
  });

  it('a reorg that removes the payin before its confirmations never completes the payin; the same transfer re-included pays', async () => {
    const rpcUrl = stack.info.chains.find((c) => c.chainId === 8453)!.rpcUrl;
    const created = await createPayment(api, key, paymentBody({ orderId: `reorg-${randomUUID()}`, chainId: '8453', amount: '6' }));
    const transfer = await signCustomerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '6');
    // Stop interval mining so the payin's block is the head: 1 confirmation of the 2 required.
    await devnetRpc(rpcUrl, 'evm_setIntervalMining', [0]);
    try {
      const snapshot = await devnetRpc(rpcUrl, 'evm_snapshot', []);
      await transfer.send();
      await waitForStatus(api, created.id, 'payment_started', 30_000);
      assert.equal(await devnetRpc(rpcUrl, 'evm_revert', [snapshot]), true);
    } finally {
      await devnetRpc(rpcUrl, 'evm_setIntervalMining', [500]);
    }
    await waitForStatus(api, created.id, 'payment_unpaid', 30_000);
    // Blocks keep coming; the vanished payin must never be confirmed. Once the chain watcher has scanned past the
    // depth at which it would have been final, every status the payment entered is on record, and none is the payin's.
    const head = await providerFor(stack.info, 8453).getBlockNumber();
    const finalityDepth = services.chains.registry.chain(8453).finalityDepth;
    await eventually('the chain watcher to scan past the vanished payin\'s finality', 30_000, async () =>
      ((await findChainCursor({ knex: services.knex, chainId: 8453 }))?.blockNumber ?? 0) > head + finalityDepth ? true : undefined,
    );
    const entered = (await listPaymentStatusEvents({ knex: services.knex, paymentId: created.id })).map((e) => e.status);
    assert.ok(!entered.includes('payment_payin_completed'), `statuses entered: ${entered.join(' → ')}`);
    assert.equal((await getPayment(api, created.id)).status, 'payment_unpaid');
    const dropped = await listPayins({ knex: services.knex, paymentId: created.id });
    assert.deepEqual(dropped.map((p) => [p.tx_hash, p.status, p.disposition]), [[transfer.hash, 'dropped', null]]);

    // The dropped transaction comes back (same identity): the payment takes it and is paid.
    await transfer.send();
    const { payment } = await waitForStatus(api, created.id, 'payment_completed');
    assert.equal(payment.source.txHash, transfer.hash);
    const payins = await listPayins({ knex: services.knex, paymentId: created.id });
    assert.deepEqual(payins.map((p) => [p.tx_hash, p.status, p.disposition]), [[transfer.hash, 'confirmed', 'payment']]);
  });
});
