/**
 * Opening (issue 38, "Around it"): the CCTP message from Iris was not checked against our own burn. Here the devnet's
 * Iris answers our burn with other messages, signed by the attesters all the same (an Iris compromised or
 * impersonated): a doubled amount, then a mint to someone else. Neither is minted; the payment waits in
 * payment_bridging, flagged `AwaitingOperator=bridge_late` once past its protocol's time, and completes with one mint
 * of the burn's own message once Iris answers it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Interface, parseUnits, Wallet } from 'ethers';
import { MESSAGE_TRANSMITTER_V2_ABI } from '../../chains/bridges/cctp';
import { addressToBytes32 } from '../../chains/bridges/tx';
import type { PaymentStatus } from '../../domain/payment';
import type { Stack } from '../../tools/stack/stack';
import { paymentWorkflowId } from '../../workflows/ids';
import { AwaitingOperatorKey } from '../../workflows/search-attributes';
import { holdTreasuryFloat } from '../support/float';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { bridgeTxs, bridgeTxsAfterApproval } from '../support/bridge-txs';
import { customerTransfer, providerFor, tokenBalance } from '../support/chain';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

const [SOURCE, DESTINATION] = [42161, 8453];
const transmitter = new Interface(MESSAGE_TRANSMITTER_V2_ABI);

describe('attack: a CCTP message from Iris that is not our burn', function () {
  this.timeout(300_000);
  let stack: Stack;
  let services: StackServices;
  let merchant: TestMerchant;
  let releaseFloat: (() => Promise<void>) | undefined;
  const payout = Wallet.createRandom().address;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex, { payout: { address: payout, chainId: DESTINATION, tokenSymbol: 'USDC' } });
    // Base's float is set aside: the payment bridges its own funds.
    releaseFloat = await holdTreasuryFloat(stack, services, merchant, DESTINATION, 'USDC');
  });
  after(async () => {
    await releaseFloat?.();
    stack?.devnets.evm.bridges.attestationService.answerWith(undefined);
    await services?.close();
  });

  const iris = () => stack.devnets.evm.bridges.attestationService;
  const received = async (fromBlock: number) => {
    const [, destination] = stack.devnets.evm.bridges.cctp.chains;
    return providerFor(stack.info, DESTINATION).getLogs({ address: destination.messageTransmitter, fromBlock, toBlock: 'latest', topics: [transmitter.getEvent('MessageReceived')!.topicHash] });
  };

  it('a forged amount or mint recipient is refused and nothing is minted; the late transfer is flagged, then completes on the real message', async () => {
    const api = stack.info.paymentApiUrl;
    const attacker = Wallet.createRandom().address;
    const mintsFrom = await providerFor(stack.info, DESTINATION).getBlockNumber();
    iris().answerWith(({ message, body }) => ({ message, body: body && { ...body, amount: body.amount * 2n } }));

    const created = await createPayment(api, merchant.ordersKey, paymentBody({ orderId: `forged-iris-${randomUUID()}`, chainId: String(SOURCE), tokenSymbol: 'USDC', amount: '20' }));
    await customerTransfer(stack.info, SOURCE, 'USDC', created.source.receiverAddress, '20');
    await eventually('the burn to be mined', 180_000, async () => (await bridgeTxs(services.knex, created.id)).find((t) => t.purpose === 'bridge burn' && t.status === 'confirmed'), 500);
    const handle = services.client.workflow.getHandle(paymentWorkflowId(created.id));
    const awaiting = async () => (await handle.describe()).typedSearchAttributes.get(AwaitingOperatorKey);

    const watch = async (ms: number) => {
      const statuses = new Set<PaymentStatus>();
      for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 500))) statuses.add((await getPayment(api, created.id)).status);
      return [...statuses];
    };
    // Iris attests twice the amount burned: refused, so the payment waits in bridging and nothing is minted.
    assert.deepEqual(await watch(6_000), ['payment_bridging']);
    // Then a mint of the burned amount to someone else's address.
    iris().answerWith(({ message, body }) => ({ message, body: body && { ...body, mintRecipient: addressToBytes32(attacker) } }));
    assert.deepEqual(await watch(6_000), ['payment_bridging']);
    // Past twice the devnet's expected 5 s, the run asks an operator to look.
    await eventually('AwaitingOperator=bridge_late', 60_000, async () => ((await awaiting()) === 'bridge_late' ? true : undefined), 500);
    assert.equal((await bridgeTxs(services.knex, created.id)).filter((t) => t.purpose === 'bridge mint').length, 0, 'no mint was signed');
    assert.deepEqual(await received(mintsFrom), [], 'no message was received on the destination');
    assert.equal(await tokenBalance(stack.info, DESTINATION, 'USDC', attacker), 0n);

    // Iris answers the burn's own message: minted once, the merchant paid, the flag gone.
    iris().answerWith(undefined);
    await waitForStatus(api, created.id, 'payment_completed', 180_000);
    const txs = await bridgeTxsAfterApproval(services.knex, created.id);
    assert.deepEqual(txs.map((t) => t.purpose), ['bridge burn', 'bridge mint']);
    assert.deepEqual((await received(mintsFrom)).map((l) => l.transactionHash), [txs[1]!.tx_hash], 'exactly one message received, our mint');
    const paid = parseUnits('20', 6) - (parseUnits('20', 6) * 50n) / 10_000n;
    assert.equal(await tokenBalance(stack.info, DESTINATION, 'USDC', payout), paid);
    assert.equal(await awaiting(), undefined);
  });
});
