import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { concat, Interface, keccak256, parseUnits, Wallet } from 'ethers';
import { fetchCctpAttestation, buildReceiveMessage, MESSAGE_TRANSMITTER_V2_ABI, TOKEN_MESSENGER_V2_ABI, type CctpRoute } from '../../chains/bridges/cctp';
import { listPaymentStatusEvents } from '../../db/queries/payments';
import { irisClient } from '../../services/bridges';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { bridgeTxs, bridgeTxsAfterApproval } from '../support/bridge-txs';
import { customerTransfer, providerFor, tokenBalance } from '../support/chain';
import { eventually } from '../support/poll';
import { connectServices, startExtraApi, type StackServices } from '../support/services';
import { holdTreasuryFloat } from '../support/float';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { exited, spawnWorker } from '../support/worker';
import { paymentWorkflowId } from '../../workflows/ids';
import { AwaitingOperatorKey } from '../../workflows/search-attributes';

/** FEE_BPS=50 in the test stack. */
const payoutOf = (amount: string) => parseUnits(amount, 6) - (parseUnits(amount, 6) * 50n) / 10_000n;
const transmitter = new Interface(MESSAGE_TRANSMITTER_V2_ABI);
const messenger = new Interface(TOKEN_MESSENGER_V2_ABI);
const [SOURCE, DESTINATION] = [42161, 8453];

/**
 * Iris's address while Iris is down: it answers every request 503 (service unavailable) and counts the attestation
 * lookups of each burn transaction.
 */
async function irisDown(irisUrl: string) {
  const lookups = new Map<string, number>();
  const server = createServer((req, res) => {
    const txHash = new URL(req.url ?? '/', irisUrl).searchParams.get('transactionHash')?.toLowerCase();
    if (txHash) lookups.set(txHash, (lookups.get(txHash) ?? 0) + 1);
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"service unavailable"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(new URL(irisUrl).port), '127.0.0.1', resolve);
  });
  return {
    lookupsOf: (txHash: string) => lookups.get(txHash.toLowerCase()) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('cross-chain payments through CCTP v2 and LayerZero OFT on the devnet', function () {
  this.timeout(240_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let key: string;
  let merchant: string;
  let releaseFloat: (() => Promise<void>) | undefined;
  let shop: TestMerchant;
  const children: ChildProcess[] = [];

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    shop = await newMerchant(stack, services.knex);
    key = shop.ordersKey;
    merchant = shop.payout.address;
    // Base's float is set aside: every payment of this file bridges its own funds.
    releaseFloat = await holdTreasuryFloat(stack, services, shop, DESTINATION, 'USDC');
  });
  after(async () => {
    await releaseFloat?.();
    for (const child of children) child.kill('SIGKILL');
    await stack?.devnets.evm.bridges.attestationService.start();
    await services?.close();
  });

  const cctpRoute = (): CctpRoute => {
    const [source, destination] = stack.devnets.evm.bridges.cctp.chains;
    return { source, destination, irisBaseUrl: stack.devnets.evm.bridges.cctp.irisUrl, finality: 'fast' };
  };

  /** Pays `amount` of `symbol` on Arbitrum to a new payment paid out in USDC on Base; returns it once completed. */
  async function payAcross(symbol: 'USDC' | 'USDT', amount: string, paymentApiUrl = api) {
    const created = await createPayment(paymentApiUrl, key, paymentBody({ orderId: `bridge-${randomUUID()}`, chainId: String(SOURCE), tokenSymbol: symbol, amount }));
    assert.equal(created.destination.chainId, String(DESTINATION));
    const before = await tokenBalance(stack.info, DESTINATION, 'USDC', merchant);
    await customerTransfer(stack.info, SOURCE, symbol, created.source.receiverAddress, amount);
    return { created, before, paidAt: Date.now() };
  }

  async function assertMerchantPaid(before: bigint, amount: string) {
    assert.equal((await tokenBalance(stack.info, DESTINATION, 'USDC', merchant)) - before, payoutOf(amount));
  }

  /** CCTP messages received (minted) on the destination since `fromBlock`. */
  async function receivedMessages(fromBlock: number) {
    const [, destination] = stack.devnets.evm.bridges.cctp.chains;
    return providerFor(stack.info, DESTINATION).getLogs({
      address: destination.messageTransmitter, fromBlock, toBlock: 'latest', topics: [transmitter.getEvent('MessageReceived')!.topicHash],
    });
  }

  /** One USDC payment through CCTP to completion, shared by the tests that look at its burn. */
  let cctpPayment: Promise<{ paymentId: string; before: bigint; mintsFrom: number; seconds: number }> | undefined;
  const paidThroughCctp = () =>
    (cctpPayment ??= (async () => {
      const mintsFrom = await providerFor(stack.info, DESTINATION).getBlockNumber();
      const { created, before, paidAt } = await payAcross('USDC', '40');
      await waitForStatus(api, created.id, 'payment_completed', 180_000);
      return { paymentId: created.id, before, mintsFrom, seconds: (Date.now() - paidAt) / 1000 };
    })());
  const cctpBurnTx = async () => {
    const burn = (await bridgeTxs(services.knex, (await paidThroughCctp()).paymentId)).find((t) => t.purpose === 'bridge burn');
    assert.ok(burn, 'the CCTP payment burned');
    return burn.tx_hash;
  };

  it('USDC: burned on Arbitrum, attested by Iris, minted to the treasury on Base, the merchant paid, completed', async () => {
    const { paymentId, before, mintsFrom, seconds } = await paidThroughCctp();
    console.log(`      CCTP v2: payin mined → payment_completed in ${seconds.toFixed(1)} s`);
    await assertMerchantPaid(before, '40');
    const created = { id: paymentId };

    const txs = await bridgeTxsAfterApproval(services.knex, created.id);
    assert.deepEqual(txs.map((t) => [t.purpose, t.chain_id, t.status]), [
      ['bridge burn', SOURCE, 'confirmed'],
      ['bridge mint', DESTINATION, 'confirmed'],
    ]);
    const bridged = payoutOf('40');
    const burnReceipt = await providerFor(stack.info, SOURCE).getTransactionReceipt(txs[0]!.tx_hash);
    const burn = burnReceipt!.logs.map((l) => messenger.parseLog(l)).find((e) => e?.name === 'DepositForBurn');
    assert.equal(burn?.args.amount, bridged);
    assert.equal(burn?.args.minFinalityThreshold, 1000n, 'a fast transfer, as configured');
    const mintReceipt = await providerFor(stack.info, DESTINATION).getTransactionReceipt(txs[1]!.tx_hash);
    const minted = mintReceipt!.logs.map((l) => messenger.parseLog(l)).find((e) => e?.name === 'MintAndWithdraw');
    assert.equal(minted?.args.mintRecipient, stack.devnets.evm.treasury.address, 'minted to the destination treasury');
    assert.equal((minted?.args.amount as bigint) + (minted?.args.feeCollected as bigint), bridged);
    assert.ok((minted?.args.feeCollected as bigint) <= (burn?.args.maxFee as bigint), 'the fee stayed within maxFee');
    assert.equal((await receivedMessages(mintsFrom)).length, 1, 'one message received on Base');
  });

  it('the destination refuses the same CCTP message a second time (nonce used)', async () => {
    const attested = await fetchCctpAttestation(cctpRoute(), { txHash: await cctpBurnTx(), messageIndex: 0 }, { get: irisClient(true) });
    if (attested.status !== 'complete') return assert.fail('Iris has no attestation for the burn');
    const replay = buildReceiveMessage(cctpRoute(), attested);
    // From the treasury, the message's only allowed caller, so the nonce check is what refuses it.
    await assert.rejects(
      providerFor(stack.info, DESTINATION).call({ ...replay, from: stack.devnets.evm.treasury.address }),
      /Nonce already used/,
    );
  });

  it('the destination refuses a CCTP message with a forged attestation', async () => {
    const attested = await fetchCctpAttestation(cctpRoute(), { txHash: await cctpBurnTx(), messageIndex: 0 }, { get: irisClient(true) });
    if (attested.status !== 'complete') return assert.fail('Iris has no attestation for the burn');
    // A fresh message (another nonce) signed by keys that are not the devnet's attesters.
    const forgedMessage = concat([attested.message.slice(0, 2 + 12 * 2), keccak256('0x01'), `0x${attested.message.slice(2 + 44 * 2)}`]);
    const forgers = [Wallet.createRandom(), Wallet.createRandom()].sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
    const forged = concat(forgers.map((w) => w.signingKey.sign(keccak256(forgedMessage)).serialized));
    await assert.rejects(
      providerFor(stack.info, DESTINATION).call({ ...buildReceiveMessage(cctpRoute(), { message: forgedMessage, attestation: forged }), from: stack.devnets.evm.treasury.address }),
      /Invalid signature: not attester/,
    );
  });

  it('USDT: sent through the OFT (locked on Arbitrum, minted on Base), delivered by LayerZero, the merchant paid, completed', async () => {
    const [, baseOft] = stack.devnets.evm.bridges.oft.chains;
    const treasuryUsdtBefore = await tokenBalance(stack.info, DESTINATION, 'USDT', stack.devnets.evm.treasury.address);
    const { created, before, paidAt } = await payAcross('USDT', '15');
    // Bridged USDT refills Base's USDT, not the USDC the merchant is paid in: once it is sent, the operator tops the
    // USDC float up (here: lets go of the hold) and the payout waiting for it goes out.
    await eventually('the OFT send', 180_000, async () => (await bridgeTxs(services.knex, created.id)).find((t) => t.purpose === 'bridge send' && t.status === 'confirmed'));
    await releaseFloat!();
    try {
      await waitForStatus(api, created.id, 'payment_completed', 180_000);
    } finally {
      releaseFloat = await holdTreasuryFloat(stack, services, shop, DESTINATION, 'USDC');
    }
    console.log(`      LayerZero OFT: payin mined → payment_completed in ${((Date.now() - paidAt) / 1000).toFixed(1)} s`);
    await assertMerchantPaid(before, '15');

    const txs = await bridgeTxsAfterApproval(services.knex, created.id);
    assert.deepEqual(txs.map((t) => [t.purpose, t.chain_id, t.status]), [['bridge send', SOURCE, 'confirmed']]);
    assert.equal(
      (await tokenBalance(stack.info, DESTINATION, 'USDT', stack.devnets.evm.treasury.address)) - treasuryUsdtBefore,
      payoutOf('15'),
      `the OFT (${baseOft.oft}) delivered the bridged USDT to the treasury on Base`,
    );
  });

  it('waits in payment_bridging while the attestation service is down, flagged AwaitingOperator=bridge_late past its time, and completes once it is back', async () => {
    const { created, before } = await payAcross('USDC', '12');
    const awaiting = async () => (await services.client.workflow.getHandle(paymentWorkflowId(created.id)).describe()).typedSearchAttributes.get(AwaitingOperatorKey);
    // Iris goes away once it has quoted the transfer (the first bridge transaction, approval or burn, is signed on
    // the quote), before the burn can be attested. Read from the outbox: the run's history shows its local steps
    // only when their workflow task completes, which with local chain waits is after the burn has landed.
    await eventually('the bridge quote', 120_000, async () => ((await bridgeTxs(services.knex, created.id)).length > 0 ? true : undefined), 50);
    await stack.devnets.evm.bridges.attestationService.stop();
    const iris = await irisDown(stack.devnets.evm.bridges.attestationService.url);
    try {
      const burn = await eventually('the burn to be mined', 60_000, async () =>
        (await bridgeTxs(services.knex, created.id)).find((t) => t.purpose === 'bridge burn' && t.status === 'confirmed'));
      // The burn is on chain and nothing can attest it: the payment stays where it is for as long as Iris is away,
      // seen after the payment has looked for the attestation, and been refused, several times.
      await eventually('three lookups of the burn refused', 60_000, () => Promise.resolve(iris.lookupsOf(burn.tx_hash) >= 3 ? true : undefined));
      assert.equal((await getPayment(api, created.id)).status, 'payment_bridging');
      const entered = (await listPaymentStatusEvents({ knex: services.knex, paymentId: created.id })).map((e) => e.status);
      assert.equal(entered.at(-1), 'payment_bridging', `statuses entered: ${entered.join(' → ')}`);
      assert.equal((await bridgeTxs(services.knex, created.id)).filter((t) => t.purpose === 'bridge mint').length, 0);
      // The devnet expects a CCTP transfer in 5 s: past twice that, the run asks an operator to look.
      await eventually('AwaitingOperator=bridge_late', 60_000, async () => ((await awaiting()) === 'bridge_late' ? true : undefined), 500);
    } finally {
      await iris.close();
      await stack.devnets.evm.bridges.attestationService.start();
    }
    await waitForStatus(api, created.id, 'payment_completed', 180_000);
    await assertMerchantPaid(before, '12');
    assert.deepEqual((await bridgeTxsAfterApproval(services.knex, created.id)).map((t) => t.purpose), ['bridge burn', 'bridge mint']);
    assert.equal(await awaiting(), undefined, 'the flag ends with the wait');
  });

  it('two payments bridging at once both burn and mint: one standing allowance, not two approvals that overwrite each other', async () => {
    // Paid one right after the other (one customer's nonces), so both reach their approval steps together.
    const paid = [await payAcross('USDC', '7'), await payAcross('USDC', '7')] as const;
    for (const { created } of paid) await waitForStatus(api, created.id, 'payment_completed', 180_000);
    for (const { created } of paid) {
      assert.deepEqual((await bridgeTxsAfterApproval(services.knex, created.id)).map((t) => [t.purpose, t.status]), [['bridge burn', 'confirmed'], ['bridge mint', 'confirmed']]);
    }
    assert.equal((await tokenBalance(stack.info, DESTINATION, 'USDC', merchant)) - paid[0].before, 2n * payoutOf('7'), 'the merchant was paid for both');
  });

  it('a worker killed right after broadcasting the burn: the restarted worker mints once, the payment completes', async () => {
    const taskQueue = `bridge-crash-${randomUUID()}`;
    const extra = await startExtraApi(stack, services, { taskQueue });
    try {
      const doomed = spawnWorker(stack, taskQueue, { PAYRAIL_FAULT_CRASH_AFTER_BROADCAST: 'bridge burn' });
      children.push(doomed);
      const burnsFrom = await providerFor(stack.info, SOURCE).getBlockNumber();
      const mintsFrom = await providerFor(stack.info, DESTINATION).getBlockNumber();
      const { created, before } = await payAcross('USDC', '9', extra.paymentApiUrl);

      assert.equal(await exited(doomed), 'SIGKILL', 'the worker died right after broadcasting the burn');
      assert.equal((await getPayment(extra.paymentApiUrl, created.id)).status, 'payment_bridging');
      assert.deepEqual((await bridgeTxsAfterApproval(services.knex, created.id)).map((t) => t.purpose), ['bridge burn']);

      children.push(spawnWorker(stack, taskQueue));
      await waitForStatus(extra.paymentApiUrl, created.id, 'payment_completed', 180_000);
      await assertMerchantPaid(before, '9');

      const txs = await bridgeTxsAfterApproval(services.knex, created.id);
      assert.deepEqual(txs.map((t) => t.purpose), ['bridge burn', 'bridge mint']);
      const [source] = stack.devnets.evm.bridges.cctp.chains;
      const burns = await providerFor(stack.info, SOURCE).getLogs({
        address: source.tokenMessenger, fromBlock: burnsFrom, toBlock: 'latest', topics: [messenger.getEvent('DepositForBurn')!.topicHash],
      });
      assert.deepEqual(burns.map((l) => l.transactionHash), [txs[0]!.tx_hash], 'exactly one burn on Arbitrum');
      const mints = await receivedMessages(mintsFrom);
      assert.deepEqual(mints.map((l) => l.transactionHash), [txs[1]!.tx_hash], 'exactly one mint on Base');
    } finally {
      await extra.close();
    }
  });
});
