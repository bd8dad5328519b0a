/**
 * Payin identity and the chain watcher's cursor end to end (real API, Temporal, PostgreSQL, hardhat): a multisend
 * of two equal transfers to one deposit address is two payins, and terminating the watcher in the middle of a
 * stream of payins loses none.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createSolanaRpc } from '@solana/kit';
import { Contract, Wallet, parseUnits } from 'ethers';
import { erc20Abi } from '../../chains/evm/contracts';
import { listPayins } from '../../db/queries/payins';
import { findChainCursor } from '../../db/queries/chain-cursors';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { ensureBackgroundWorkflows } from '../../workers/background';
import { chainWatcherWorkflowId, paymentWorkflowId } from '../../workflows/ids';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer, evmChain, providerFor, tokenAddress, tokenBalance } from '../support/chain';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { newMerchant } from '../support/merchant';
import { getStack } from '../support/stack';

const units = (amount: string) => parseUnits(amount, 6);
/** FEE_BPS=50 in the test stack. */
const afterFee = (amount: bigint) => amount - (amount * 50n) / 10_000n;

describe('payins end to end: multisend and a watcher terminated mid-stream', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let key: string;
  let merchant: string;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    const shop = await newMerchant(stack, services.knex);
    key = shop.ordersKey;
    merchant = shop.payout.address;
  });
  after(async () => services?.close());

  it("each family's adapter reads a block's time as its node has it (the detection-lag histogram's clock)", async () => {
    const evm = services.chains.adapter(8453);
    const evmHead = await evm.head();
    assert.equal(await evm.blockTime(evmHead), (await providerFor(stack.info, 8453).getBlock(evmHead))!.timestamp);
    const solana = services.chains.adapter(Number(stackChain(stack.info, 'solana').chainId));
    const slot = await solana.head();
    const time = await solana.blockTime(slot);
    assert.equal(time, Number(await createSolanaRpc(stackChain(stack.info, 'solana').rpcUrl).getBlockTime(BigInt(slot)).send()));
    assert.ok(time !== null && Math.abs(time - Date.now() / 1000) < 600, `slot ${slot} at ${time}: a recent Unix time in seconds`);
    const ton = services.chains.adapter(services.chains.registry.chains.find((c) => c.family === 'ton')!.chainId);
    const seqno = await ton.head();
    const tonTime = await ton.blockTime(seqno);
    assert.ok(tonTime !== null && Math.abs(tonTime - Date.now() / 1000) < 600, `masterchain block ${seqno} at ${tonTime}: a recent Unix time in seconds`);
  });

  it('a multisend of two equal transfers in one transaction: one pays the payment, the other is refunded', async () => {
    const amount = '5';
    const created = await createPayment(api, key, paymentBody({ orderId: `multisend-${randomUUID()}`, chainId: '8453', amount }));
    const chain = evmChain(stack.info, 8453);
    const customer = new Wallet(stack.info.customer.evm.privateKey, providerFor(stack.info, 8453));
    const usdc = new Contract(tokenAddress(stack.info, 8453, 'USDC'), erc20Abi, customer);
    const multiSend = new Contract(chain.multiSend, ['function send(address token, address[] recipients, uint256[] amounts)'], customer);
    const [customerBefore, merchantBefore] = await Promise.all([tokenBalance(stack.info, 8453, 'USDC', customer.address), tokenBalance(stack.info, 8453, 'USDC', merchant)]);

    await ((await usdc.getFunction('approve')(chain.multiSend, units('10'))) as { wait(): Promise<unknown> }).wait();
    const sent = (await multiSend.getFunction('send')(await usdc.getAddress(), [created.source.receiverAddress, created.source.receiverAddress], [units(amount), units(amount)])) as {
      hash: string;
      wait(): Promise<unknown>;
    };
    await sent.wait();

    const { payment } = await waitForStatus(api, created.id, 'payment_completed', 120_000);
    // The second transfer is the run's to refund after the payout: it is recorded once its own confirmation came.
    const payins = await eventually('two payins, one per transfer log, each with what it was for', 60_000, async () => {
      const rows = await listPayins({ knex: services.knex, paymentId: created.id });
      return rows.length === 2 && rows.every((p) => p.disposition !== null) ? rows : undefined;
    });
    assert.deepEqual(new Set(payins.map((p) => p.tx_hash)), new Set([sent.hash]));
    assert.notEqual(payins[0]!.log_index, payins[1]!.log_index);
    assert.deepEqual(payins.map((p) => p.disposition).sort(), ['payment', 'refund']);
    assert.equal(payment.source.amountReceived, amount, 'the payment counts one of them');

    // On chain: the merchant got amount − fee, the customer got the second transfer back, the deposit is empty. The
    // refund and the sweep are the run's own steps after the payout: they may land after the payment reads completed.
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', merchant), merchantBefore + afterFee(units(amount)));
    await eventually('the customer to hold all but one transfer again (the second one refunded)', 60_000, async () =>
      (await tokenBalance(stack.info, 8453, 'USDC', customer.address)) === customerBefore - units(amount) ? true : undefined,
    );
    await eventually('the deposit address to be empty (the first transfer swept)', 60_000, async () =>
      (await tokenBalance(stack.info, 8453, 'USDC', created.source.receiverAddress)) === 0n ? true : undefined,
    );
  });

  it('terminating the chain watcher in the middle of a stream of payins loses none: its successor resumes from the stored cursor', async () => {
    const watcher = services.client.workflow.getHandle(chainWatcherWorkflowId(8453));
    const payments = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createPayment(api, key, paymentBody({ orderId: `stream-${i}-${randomUUID()}`, chainId: '8453', amount: `${i + 1}` }))),
    );
    const stream = (async () => {
      for (const p of payments) await customerTransfer(stack.info, 8453, 'USDC', p.source.receiverAddress, p.source.amount);
    })();
    // Terminate the watcher while payins are still being sent, and keep it down for a few blocks.
    await eventually('the first payins of the stream to be mined', 60_000, async () => ((await tokenBalance(stack.info, 8453, 'USDC', payments[1]!.source.receiverAddress)) > 0n ? true : undefined));
    const cursorAtStop = await findChainCursor({ knex: services.knex, chainId: 8453 });
    await watcher.terminate('test: the watcher dies mid-stream');
    await stream;
    assert.equal((await watcher.describe()).status.name, 'TERMINATED');

    // A restart (a new deployment's worker does this) starts a fresh watcher, which reads the cursor from PostgreSQL.
    await ensureBackgroundWorkflows(services.client, stack.config.temporal.taskQueue, services.chains.registry);
    for (const p of payments) {
      await waitForStatus(api, p.id, 'payment_completed', 120_000);
      const run = services.client.workflow.getHandle(paymentWorkflowId(p.id));
      await eventually(`payment-${p.id} Completed in Temporal`, 5_000, async () => ((await run.describe()).status.name === 'COMPLETED' ? true : undefined));
    }
    const cursorAfter = await findChainCursor({ knex: services.knex, chainId: 8453 });
    assert.ok(cursorAtStop && cursorAfter && cursorAfter.blockNumber > cursorAtStop.blockNumber, 'the new watcher moved the stored cursor on');
    assert.equal((await watcher.describe()).status.name, 'RUNNING', 'a new run of the watcher is running');
  });
});
