/**
 * The money path attacked on the real stack (API, Temporal, PostgreSQL, hardhat devnets): fake-token and dust
 * front-runs, forged signals and workflow starts, an empty treasury, a payout stuck under a too-low fee and a nonce
 * taken by another transaction of the treasury key. Each must leave the payment paid (or waiting) and lose nothing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { Contract, Wallet, parseUnits } from 'ethers';
import { devnetRpc } from '../../tools/devnets/evm/devnet';
import { erc20Abi } from '../../chains/evm/contracts';
import { findChainTx } from '../../db/queries/chain-txs';
import { findPaymentById } from '../../db/queries/payments';
import { listPayins } from '../../db/queries/payins';
import { intentKeys } from '../../domain/chain-txs';
import type { DetectedPayin } from '../../domain/payins';
import type { Stack } from '../../tools/stack/stack';
import { listQuarantinedTransfers } from '../../services/ledger';
import { latePayinWorkflowId, paymentWorkflowId, refundWorkflowId } from '../../workflows/ids';
import { payinDetectedSignal, retryChainStepSignal } from '../../workflows/messages';
import { AwaitingOperatorKey } from '../../workflows/search-attributes';
import { bearer, login } from '../merchant/helpers';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { request } from '../support/http';
import { customerTransfer, deployFakeStablecoin, providerFor, signCustomerTransfer, tokenAddress, tokenBalance } from '../support/chain';
import { eventually } from '../support/poll';
import { connectServices, paymentRunEnded, type StackServices } from '../support/services';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';

const CHAIN = 8453;
const units = (amount: string) => parseUnits(amount, 6);
/** What the merchant is paid for a payment, as its terms say. */
const payoutOf = (payment: { destination: { amount: string } }) => units(payment.destination.amount);

describe('attacks on the money path', function () {
  this.timeout(300_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let shop: TestMerchant;
  let key: string;
  let merchant: string;
  let rpcUrl: string;
  let treasury: Wallet;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    shop = await newMerchant(stack, services.knex);
    key = shop.ordersKey;
    merchant = shop.payout.address;
    rpcUrl = stack.info.chains.find((c) => c.chainId === CHAIN)!.rpcUrl;
    treasury = new Wallet(stack.env.TREASURY_PRIVATE_KEY!, providerFor(stack.info, CHAIN));
  });
  after(async () => services?.close());

  const newPayment = (tag: string, amount: string, tokenSymbol = 'USDC') =>
    createPayment(api, key, paymentBody({ orderId: `${tag}-${randomUUID()}`, chainId: String(CHAIN), tokenSymbol, amount }));

  /** Stops block production: transactions wait in the mempool until `mine` (or `resumeMining`). */
  const freezeMining = async () => {
    await devnetRpc(rpcUrl, 'evm_setAutomine', [false]);
    await devnetRpc(rpcUrl, 'evm_setIntervalMining', [0]);
  };
  const resumeMining = async () => {
    await devnetRpc(rpcUrl, 'evm_setAutomine', [true]);
    await devnetRpc(rpcUrl, 'evm_setIntervalMining', [500]);
  };
  const mine = () => devnetRpc(rpcUrl, 'hardhat_mine', ['0x1']);

  /** Mines block by block (the payin reaching finality) until the payment's payout is signed, then leaves it unmined. */
  async function frozenUntilPayoutSigned(paymentId: string) {
    await freezeMining();
    return eventually('the payout to be signed', 120_000, async () => {
      const payout = await findChainTx({ knex: services.knex, intentKey: intentKeys.payout(paymentId) });
      if (payout?.sent_at_block) return payout;
      // Final: the payout is being signed; a block more would mine it.
      if ((await findPaymentById({ knex: services.knex, id: paymentId }))?.status !== 'payment_payout_started') await mine();
      return undefined;
    }, 300);
  }

  it('a fake-token Transfer event to the deposit address before the real payment: quarantined, the payment completes', async () => {
    const payment = await newPayment('fake-token', '5');
    const fake = await deployFakeStablecoin(stack.info, CHAIN);
    const sendFake = (amount: string) => fake.send(payment.source.receiverAddress, amount);
    const before = await sendFake('5');
    const merchantBefore = await tokenBalance(stack.info, CHAIN, 'USDC', merchant);

    await customerTransfer(stack.info, CHAIN, 'USDC', payment.source.receiverAddress, '5');
    const { payment: done, seen } = await waitForStatus(api, payment.id, 'payment_completed', 120_000);
    assert.ok(!seen.includes('payment_bounced') && !seen.includes('payment_refunded'), seen.join(' → '));
    assert.equal((await tokenBalance(stack.info, CHAIN, 'USDC', merchant)) - merchantBefore, payoutOf(done));

    // Sent again once the payment is paid (the late-payin window): still only quarantined, no refund run.
    const after = await sendFake('7');
    const quarantined = await eventually('both fake transfers to be quarantined', 60_000, async () => {
      const rows = await listQuarantinedTransfers({ knex: services.knex }, payment.id);
      return rows.length === 2 ? rows : undefined;
    });
    assert.deepEqual(
      quarantined.map((q) => [q.chainId, q.tokenAddress, q.txHash, q.amountUnits]),
      [[CHAIN, fake.address.toLowerCase(), before, units('5').toString()], [CHAIN, fake.address.toLowerCase(), after, units('7').toString()]],
    );
    const payins = await listPayins({ knex: services.knex, paymentId: payment.id });
    assert.deepEqual(payins.map((p) => p.disposition), ['payment'], 'the fake token is never a payin');
    const latePayinRun = services.client.workflow.getHandle(latePayinWorkflowId({ chainId: CHAIN, txHash: after, logIndex: quarantined[1]!.logIndex }));
    await assert.rejects(latePayinRun.describe(), (err: Error) => err.name === 'WorkflowNotFoundError', 'no late-payin run refunds it');
    assert.equal((await getPayment(api, payment.id, key)).status, 'payment_completed', 'the status never moves');
    const fakeAtDeposit = (await new Contract(fake.address, erc20Abi, providerFor(stack.info, CHAIN)).getFunction('balanceOf')(payment.source.receiverAddress)) as bigint;
    assert.equal(fakeAtDeposit, units('12'), 'no treasury gas spent returning it');

    // The merchant sees them on the payment's dashboard page.
    const session = await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!, shop.developerEmail);
    const page = await request<{ quarantined: Array<{ tokenAddress: string; amountUnits: string; txHash: string }> }>(
      `${stack.info.merchantApiUrl}/apps/${shop.appId}/payments/${payment.id}`,
      { headers: bearer(session.token) },
    );
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(page.body.quarantined.map((q) => [q.tokenAddress, q.amountUnits, q.txHash]), quarantined.map((q) => [q.tokenAddress, q.amountUnits, q.txHash]));
  });

  it('a 1-unit USDC transfer before the real payment: counted, never bounces it; the dust excess is held, not refunded at a loss', async () => {
    const payment = await newPayment('dust', '5');
    const customer = stack.info.customer.evm.address;
    const [merchantBefore, customerBefore] = await Promise.all([tokenBalance(stack.info, CHAIN, 'USDC', merchant), tokenBalance(stack.info, CHAIN, 'USDC', customer)]);
    await customerTransfer(stack.info, CHAIN, 'USDC', payment.source.receiverAddress, '0.000001');
    await waitForStatus(api, payment.id, 'payment_started', 60_000);
    await customerTransfer(stack.info, CHAIN, 'USDC', payment.source.receiverAddress, '5');

    const { payment: done, seen } = await waitForStatus(api, payment.id, 'payment_completed', 120_000);
    assert.ok(!seen.includes('payment_bounced'), seen.join(' → '));
    assert.equal((await tokenBalance(stack.info, CHAIN, 'USDC', merchant)) - merchantBefore, payoutOf(done));
    assert.equal(customerBefore - (await tokenBalance(stack.info, CHAIN, 'USDC', customer)), units('5.000001'));
    const payins = await listPayins({ knex: services.knex, paymentId: payment.id });
    // Held on record either way: the completing payin's excess when the dust counted first, else the dust itself
    // (both confirm at the same head when the second is mined right after the first; they count in the order they confirm).
    assert.deepEqual(payins.map((p) => p.held_units).sort(), ['0', '1'], 'the 1-unit excess is held, on record');
    await paymentRunEnded(services, payment.id);
    assert.equal(await tokenBalance(stack.info, CHAIN, 'USDC', payment.source.receiverAddress), 1n, 'the held dust stays at the deposit address');
    assert.equal(await findChainTx({ knex: services.knex, intentKey: intentKeys.refund(`${CHAIN}:${payins[1]!.tx_hash}:${payins[1]!.log_index}`) }), undefined, 'no refund signed');
  });

  it('forged signals and forged workflow starts move no money', async () => {
    const payment = await newPayment('forged', '4');
    const attacker = Wallet.createRandom().address;
    const handle = services.client.workflow.getHandle(paymentWorkflowId(payment.id));
    const forgedPayin = (overrides: Partial<DetectedPayin>): DetectedPayin => ({
      chainId: CHAIN,
      txHash: `0x${'ab'.repeat(32)}`,
      logIndex: 0,
      blockNumber: 1,
      tokenAddress: tokenAddress(stack.info, CHAIN, 'USDC'),
      from: attacker,
      to: payment.source.receiverAddress,
      amountUnits: units('4').toString(),
      ...overrides,
    });
    // A payin into another address, and one into the deposit address that the chain never saw. The run waits out
    // its start delay (until a payin or its expiry), which a plain signal leaves as it is: the attacker's first
    // signal waits in its history, and a signal-with-start, as the chain watcher sends, wakes the run with both.
    await handle.signal(payinDetectedSignal, forgedPayin({ to: attacker, txHash: `0x${'cd'.repeat(32)}` }));
    await services.client.workflow.signalWithStart('paymentWorkflow', {
      workflowId: paymentWorkflowId(payment.id),
      taskQueue: stack.config.temporal.taskQueue,
      args: [{ paymentId: payment.id }],
      signal: payinDetectedSignal,
      signalArgs: [forgedPayin({})],
    });
    await eventually('the forged payin to be found missing on chain', 60_000, async () =>
      (await listPayins({ knex: services.knex, paymentId: payment.id })).some((p) => p.status === 'dropped') ? true : undefined,
    );
    // The forged payin is never counted: the payment is back to unpaid, nothing was swept.
    await waitForStatus(api, payment.id, 'payment_unpaid', 30_000);
    assert.equal(await findChainTx({ knex: services.knex, intentKey: intentKeys.sweep(payment.id) }), undefined);

    const merchantBefore = await tokenBalance(stack.info, CHAIN, 'USDC', merchant);
    const payinTx = await customerTransfer(stack.info, CHAIN, 'USDC', payment.source.receiverAddress, '4');
    const { payment: done } = await waitForStatus(api, payment.id, 'payment_completed', 120_000);
    assert.equal((await tokenBalance(stack.info, CHAIN, 'USDC', merchant)) - merchantBefore, payoutOf(done));
    await paymentRunEnded(services, payment.id);
    const [real] = (await listPayins({ knex: services.knex, paymentId: payment.id })).filter((p) => p.tx_hash === payinTx);
    const realPayin = forgedPayin({ txHash: payinTx, logIndex: real!.log_index, blockNumber: Number(real!.block_number), from: stack.info.customer.evm.address });
    const txsBefore = await services.knex('chain_txs').where({ payment_id: payment.id }).count<{ count: string }[]>('* as count');
    const treasuryBefore = await tokenBalance(stack.info, CHAIN, 'USDC', treasury.address);

    // A second payment run for the settled payment, with forged terms in its input, fed the real payin…
    const { taskQueue } = stack.config.temporal;
    const forgedRun = await services.client.workflow.signalWithStart('paymentWorkflow', {
      workflowId: `${paymentWorkflowId(payment.id)}-forged`,
      taskQueue,
      args: [{ paymentId: payment.id, amountUnits: units('4000').toString(), receiverAddress: attacker } as { paymentId: string }],
      signal: payinDetectedSignal,
      signalArgs: [realPayin],
    });
    // …and a late-payin run claiming the real payin was the attacker's, for more than it was.
    const forgedLate = await services.client.workflow.start('latePayinWorkflow', {
      workflowId: `${latePayinWorkflowId(realPayin)}-forged`,
      taskQueue,
      args: [{ paymentId: payment.id, payin: { ...realPayin, from: attacker } }],
    });
    assert.equal(await forgedLate.result(), 'counted_by_payment');
    await eventually('the forged payment run to close', 120_000, async () => ((await forgedRun.describe()).status.name !== 'RUNNING' ? true : undefined));

    const txsAfter = await services.knex('chain_txs').where({ payment_id: payment.id }).count<{ count: string }[]>('* as count');
    assert.deepEqual(txsAfter, txsBefore, 'no transaction signed for the forged runs');
    assert.equal(await tokenBalance(stack.info, CHAIN, 'USDC', attacker), 0n);
    assert.equal(await tokenBalance(stack.info, CHAIN, 'USDC', treasury.address), treasuryBefore);
    assert.equal((await tokenBalance(stack.info, CHAIN, 'USDC', merchant)) - merchantBefore, payoutOf(done), 'the merchant was paid once');
  });

  it('an empty treasury: the payout waits, visibly, in payment_payout_started, and completes once the treasury is funded', async () => {
    const usdc = new Contract(tokenAddress(stack.info, CHAIN, 'USDC'), erc20Abi, treasury);
    const vault = Wallet.createRandom().connect(treasury.provider);
    const float = await tokenBalance(stack.info, CHAIN, 'USDC', treasury.address);
    await ((await usdc.getFunction('transfer')(vault.address, float)) as { wait(): Promise<unknown> }).wait();
    try {
      // Paid in USDT, paid out in USDC: the sweep of the payin does not refill the payout token.
      const payment = await newPayment('treasury-empty', '3', 'USDT');
      const merchantBefore = await tokenBalance(stack.info, CHAIN, 'USDC', merchant);
      await customerTransfer(stack.info, CHAIN, 'USDT', payment.source.receiverAddress, '3');
      await waitForStatus(api, payment.id, 'payment_payout_started', 120_000);
      const handle = services.client.workflow.getHandle(paymentWorkflowId(payment.id));
      await eventually('the run to show it waits for treasury funds', 60_000, async () =>
        (await handle.describe()).typedSearchAttributes.get(AwaitingOperatorKey) === 'treasury_short' ? true : undefined,
      );
      assert.equal(await tokenBalance(stack.info, CHAIN, 'USDC', merchant), merchantBefore);
      assert.equal((await getPayment(api, payment.id)).status, 'payment_payout_started', 'never bounced for our own liquidity');

      await ((await treasury.sendTransaction({ to: vault.address, value: parseUnits('1', 18) })).wait());
      await ((await usdc.connect(vault).getFunction('transfer')(treasury.address, float)) as { wait(): Promise<unknown> }).wait();
      // The operator who funded the treasury tells the run to look again now, rather than at its next recheck.
      await handle.signal(retryChainStepSignal);
      const { payment: done } = await waitForStatus(api, payment.id, 'payment_completed', 180_000);
      assert.equal((await tokenBalance(stack.info, CHAIN, 'USDC', merchant)) - merchantBefore, payoutOf(done));
      assert.equal((await handle.describe()).typedSearchAttributes.get(AwaitingOperatorKey), undefined);
    } finally {
      const left = await tokenBalance(stack.info, CHAIN, 'USDC', vault.address);
      if (left > 0n) await ((await usdc.connect(vault).getFunction('transfer')(treasury.address, left)) as { wait(): Promise<unknown> }).wait();
    }
  });

  it('a merchant refund racing a payout for the last tokens of the treasury: it waits, visibly, instead of one of them reverting', async () => {
    const usdc = new Contract(tokenAddress(stack.info, CHAIN, 'USDC'), erc20Abi, treasury);
    // Paid in USDC on Base and settled (its sweep included): the refund goes back from the Base treasury's USDC.
    const refunded = await newPayment('race-refunded', '3');
    await customerTransfer(stack.info, CHAIN, 'USDC', refunded.source.receiverAddress, '3');
    await waitForStatus(api, refunded.id, 'payment_completed', 120_000);
    await paymentRunEnded(services, refunded.id);
    // The treasury keeps 4 USDC: enough for the next payout or for the refund, not for both.
    const vault = Wallet.createRandom().connect(treasury.provider);
    await ((await treasury.sendTransaction({ to: vault.address, value: parseUnits('1', 18) })).wait());
    const kept = await tokenBalance(stack.info, CHAIN, 'USDC', treasury.address) - units('4');
    await ((await usdc.getFunction('transfer')(vault.address, kept)) as { wait(): Promise<unknown> }).wait();
    try {
      // Paid in USDT, paid out in USDC: its payout is reserved and signed, and stays unmined.
      const paidOut = await newPayment('race-paid-out', '3', 'USDT');
      await customerTransfer(stack.info, CHAIN, 'USDT', paidOut.source.receiverAddress, '3');
      await frozenUntilPayoutSigned(paidOut.id);
      const customer = Wallet.createRandom().address;
      const created = await request<{ id: string }>(`${api}/${refunded.id}/refunds`, { headers: { 'x-api-key': shop.adminKey, 'idempotency-key': randomUUID() }, body: { address: customer } });
      assert.equal(created.status, 201, created.text);
      const run = services.client.workflow.getHandle(refundWorkflowId(created.body.id));
      await eventually('the refund to wait for the treasury', 60_000, async () => ((await run.describe()).typedSearchAttributes.get(AwaitingOperatorKey) === 'treasury_short' ? true : undefined));
      assert.ok(!(await findChainTx({ knex: services.knex, intentKey: intentKeys.merchantRefund(created.body.id) })), 'nothing signed against tokens the payout holds');

      await resumeMining();
      await waitForStatus(api, paidOut.id, 'payment_completed', 120_000);
      await ((await usdc.connect(vault).getFunction('transfer')(treasury.address, kept)) as { wait(): Promise<unknown> }).wait();
      await run.signal(retryChainStepSignal);
      assert.equal(await run.result(), 'completed');
      assert.equal(await tokenBalance(stack.info, CHAIN, 'USDC', customer), units('3'));
      for (const intentKey of [intentKeys.payout(paidOut.id), intentKeys.merchantRefund(created.body.id)]) {
        assert.equal((await findChainTx({ knex: services.knex, intentKey }))?.status, 'confirmed', `${intentKey} mined, not reverted`);
      }
    } finally {
      await resumeMining();
      const left = await tokenBalance(stack.info, CHAIN, 'USDC', vault.address);
      if (left > 0n) await ((await usdc.connect(vault).getFunction('transfer')(treasury.address, left)) as { wait(): Promise<unknown> }).wait();
    }
  });

  it('a payout stuck under a too-low fee is replaced at its nonce with higher fees and mined once', async () => {
    const payment = await newPayment('stuck-fee', '2');
    const merchantBefore = await tokenBalance(stack.info, CHAIN, 'USDC', merchant);
    // Frozen right after the payin's block, far from finality: however fast settlement goes, the payout is caught signed.
    await customerTransfer(stack.info, CHAIN, 'USDC', payment.source.receiverAddress, '2');
    let original: string;
    try {
      original = (await frozenUntilPayoutSigned(payment.id)).tx_hash;
      // The base fee jumps far above what the payout was signed with; blocks keep coming without it.
      await devnetRpc(rpcUrl, 'hardhat_setNextBlockBaseFeePerGas', [`0x${parseUnits('500', 'gwei').toString(16)}`]);
      await eventually('the payout to be replaced and mined', 120_000, async () => {
        await mine();
        const row = await findChainTx({ knex: services.knex, intentKey: intentKeys.payout(payment.id) });
        return row?.status === 'confirmed' ? row : undefined;
      }, 500);
    } finally {
      await resumeMining();
    }
    const { payment: done } = await waitForStatus(api, payment.id, 'payment_completed', 120_000);
    const row = (await findChainTx({ knex: services.knex, intentKey: intentKeys.payout(payment.id) }))!;
    assert.notEqual(row.tx_hash, original, 'a replacement was mined');
    assert.ok(row.replaced_tx_hashes.includes(original));
    assert.equal(await providerFor(stack.info, CHAIN).getTransactionReceipt(original), null, 'the stuck transaction never mined');
    assert.equal((await tokenBalance(stack.info, CHAIN, 'USDC', merchant)) - merchantBefore, payoutOf(done), 'paid once');
  });

  it('a nonce taken by another transaction of the treasury key: the payout is re-planned at a new nonce, never taken as mined', async () => {
    const payment = await newPayment('nonce-taken', '2');
    const merchantBefore = await tokenBalance(stack.info, CHAIN, 'USDC', merchant);
    // Frozen right after the payin's block, far from finality: however fast settlement goes, the payout is caught signed.
    await customerTransfer(stack.info, CHAIN, 'USDC', payment.source.receiverAddress, '2');
    let original: string;
    try {
      const signed = await frozenUntilPayoutSigned(payment.id);
      original = signed.tx_hash;
      // Someone with the treasury key (an operator's manual transfer) sends another transaction at that nonce.
      const taker = await treasury.sendTransaction({
        to: treasury.address,
        value: 0n,
        nonce: Number(signed.nonce),
        maxFeePerGas: BigInt(signed.max_fee_per_gas!) * 3n,
        maxPriorityFeePerGas: BigInt(signed.max_priority_fee_per_gas!) * 3n,
      });
      await mine();
      assert.equal((await taker.wait())?.status, 1);
    } finally {
      await resumeMining();
    }
    const { payment: done } = await waitForStatus(api, payment.id, 'payment_completed', 120_000);
    const row = (await findChainTx({ knex: services.knex, intentKey: intentKeys.payout(payment.id) }))!;
    assert.ok(row.replaced_tx_hashes.includes(original));
    assert.notEqual(row.tx_hash, original);
    assert.equal(await providerFor(stack.info, CHAIN).getTransactionReceipt(original), null);
    assert.equal((await tokenBalance(stack.info, CHAIN, 'USDC', merchant)) - merchantBefore, payoutOf(done), 'paid once');
  });

  it('a reorg deeper than the confirmations but before finality: no payout is released on the vanished payin', async () => {
    const payment = await newPayment('deep-reorg', '3');
    const merchantBefore = await tokenBalance(stack.info, CHAIN, 'USDC', merchant);
    const transfer = await signCustomerTransfer(stack.info, CHAIN, 'USDC', payment.source.receiverAddress, '3');
    // Blocks only when mined here: the payin gets 3 blocks (confirmations: 2, finality: 4), then vanishes.
    await devnetRpc(rpcUrl, 'evm_setIntervalMining', [0]);
    try {
      const snapshot = await devnetRpc(rpcUrl, 'evm_snapshot', []);
      await transfer.send();
      await mine();
      await waitForStatus(api, payment.id, 'payment_payin_completed', 60_000);
      await mine();
      assert.equal(await devnetRpc(rpcUrl, 'evm_revert', [snapshot]), true);
    } finally {
      await resumeMining();
    }
    const { seen } = await waitForStatus(api, payment.id, 'payment_unpaid', 60_000);
    assert.deepEqual(seen.slice(-2), ['payment_payin_completed', 'payment_unpaid']);
    assert.equal(await findChainTx({ knex: services.knex, intentKey: intentKeys.sweep(payment.id) }), undefined, 'nothing swept');
    assert.equal(await findChainTx({ knex: services.knex, intentKey: intentKeys.payout(payment.id) }), undefined, 'no payout released');
    assert.equal(await tokenBalance(stack.info, CHAIN, 'USDC', merchant), merchantBefore);

    await transfer.send();
    const { payment: done } = await waitForStatus(api, payment.id, 'payment_completed', 120_000);
    assert.equal((await tokenBalance(stack.info, CHAIN, 'USDC', merchant)) - merchantBefore, payoutOf(done));
  });

  it('after the attacks, `npm run reconcile` of the merchant\'s app finds every unit paid in accounted for, in the ledger and on chain', async () => {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'scripts/reconcile.ts', '--app', shop.appId], { env: { ...process.env, ...stack.env } });
    console.log(stdout);
    assert.match(stdout, /chain 8453 deposit 0x[0-9a-fA-F]{40} USDC: ledger [\d.]+, on chain [\d.]+ — ok/);
    // The fake token at its deposit address: its transfers on record as quarantined, never payins.
    assert.match(stdout, /chain 8453 deposit 0x[0-9a-fA-F]{40} 0x[0-9a-f]{40}: ledger 12000000, on chain 12000000 \(quarantined: an asset nobody configured, never counted\) — ok/);
    assert.doesNotMatch(stdout, /DIFFERENCE|treasury/, 'an app\'s reconcile compares its deposit addresses, never the shared treasury');
    assert.match(stdout, /reconciled: \d+ accounts — ok/);
  });
});
