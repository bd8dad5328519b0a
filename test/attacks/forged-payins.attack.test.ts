/**
 * Forged payins on Solana, TON, Tron and Stellar, on the real stack (API, Temporal, PostgreSQL, the families'
 * devnets): an attacker who can signal a payment's run, or start a late-payin run, names an unrelated transaction (a
 * real payin of another payment), an inflated amount and himself as its sender. The chain is read again by the
 * payin's identity, so the forgery is dropped: nothing is counted, swept, paid out or refunded, no balance moves,
 * and the payment completes only when it is really paid.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { findPaymentById } from '../../db/queries/payments';
import { listPayins } from '../../db/queries/payins';
import type { DetectedPayin } from '../../domain/payins';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { latePayinWorkflowId, paymentWorkflowId } from '../../workflows/ids';
import { payinDetectedSignal, paymentStateQuery } from '../../workflows/messages';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { PAYIN_FAMILIES, newFamilyApp, type FamilyApp } from '../support/payin-families';
import { eventually } from '../support/poll';
import { connectServices, paymentRunEnded, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

/** FEE_BPS=50 in the test stack. */
const afterFee = (units: bigint) => units - (units * 50n) / 10_000n;

for (const family of PAYIN_FAMILIES) {
  describe(`forged payins on ${family.name}`, function () {
    this.timeout(300_000);
    let stack: Stack;
    let services: StackServices;
    let app: FamilyApp;

    before(async function () {
      this.timeout(300_000);
      stack = await getStack();
      services = await connectServices(stack);
      app = await newFamilyApp(stack, family);
    });
    after(async () => services?.close());

    const units = (amount: string) => BigInt(amount) * 10n ** BigInt(family.decimals);
    const chainTxsOf = async (paymentId: string) => Number((await services.knex('chain_txs').where({ payment_id: paymentId }).count<Array<{ count: string }>>('* as count'))[0]!.count);

    it(`${family.name}: a forged payinDetected signal and forged late-payin starts (an unrelated transaction, an inflated amount, the attacker as sender) move nothing; the payment completes only when paid`, async () => {
      const { info } = stack;
      const api = info.paymentApiUrl;
      const chainId = family.chainId(info);
      const { taskQueue } = stack.config.temporal;
      // A signal names a deposit as the chain watcher does: in its stored form (the API shows each family's wallet form).
      const storedDeposit = async (paymentId: string) => (await findPaymentById({ knex: services.knex, id: paymentId }))!.deposit_address;
      const create = (amount: string) => createPayment(api, app.ordersKey, paymentBody({ orderId: `forged-${randomUUID()}`, chainId: String(chainId), tokenSymbol: family.symbol, amount }));

      // The unrelated transaction: another payment's real payin, paid and settled.
      const decoy = await create('2');
      await family.pay(info, decoy.source.receiverAddress, '2');
      await waitForStatus(api, decoy.id, 'payment_completed', 180_000);
      // Its run ends after its sweep (and, on Tron, the fees sent along going back): its transactions are all stored.
      await paymentRunEnded(services, decoy.id);
      const [row] = await listPayins({ knex: services.knex, paymentId: decoy.id });
      assert.ok(row, 'the decoy’s payin is recorded');
      const realPayin: DetectedPayin = {
        chainId,
        txHash: row.tx_hash,
        logIndex: row.log_index,
        blockNumber: Number(row.block_number),
        tokenAddress: decoy.source.tokenAddress,
        from: row.sender_address,
        to: await storedDeposit(decoy.id),
        amountUnits: units('2').toString(),
      };

      const victim = await create('5');
      const attacker = await family.newWallet(info);
      // Stellar's deposits are memos of one receiving account, which holds every deposit's funds until it is swept.
      const holder = (deposit: string) => (family.name === 'Stellar' ? stackChain(info, 'stellar').receivingAccount : deposit);
      const balances = () => Promise.all([attacker, app.payout, holder(victim.source.receiverAddress), holder(decoy.source.receiverAddress)].map((owner) => family.balance(info, owner)));
      const before = await balances();
      const decoyTxs = await chainTxsOf(decoy.id);
      const inflated = units('50').toString();
      const forged: DetectedPayin = { ...realPayin, from: attacker, to: await storedDeposit(victim.id), tokenAddress: victim.source.tokenAddress, amountUnits: inflated };

      // Straight to the payment's run, as the chain watcher hands payins over (a signal-with-start wakes the delayed run).
      await services.client.workflow.signalWithStart('paymentWorkflow', {
        workflowId: paymentWorkflowId(victim.id),
        taskQueue,
        args: [{ paymentId: victim.id, expiresAt: victim.expiresAt }],
        signal: payinDetectedSignal,
        signalArgs: [forged],
      });
      const run = services.client.workflow.getHandle(paymentWorkflowId(victim.id));
      await eventually('the run to drop the forged payin', 120_000, async () =>
        (await run.query(paymentStateQuery)).payins.some((p) => p.txHash === forged.txHash && p.state === 'dropped') ? true : undefined,
      );
      await waitForStatus(api, victim.id, 'payment_unpaid', 30_000);

      // Late-payin runs started by the attacker: the decoy's real payin claimed as his and inflated, and the
      // unrelated transaction claimed as a late payin into the victim's deposit.
      const late = (paymentId: string, payin: DetectedPayin) =>
        services.client.workflow.execute('latePayinWorkflow', { workflowId: `${latePayinWorkflowId(payin)}-forged-${randomUUID()}`, taskQueue, args: [{ paymentId, payin }] });
      assert.equal(await late(decoy.id, { ...realPayin, from: attacker, amountUnits: inflated }), 'dropped');
      assert.equal(await late(victim.id, forged), 'dropped');

      assert.equal(await chainTxsOf(victim.id), 0, 'nothing swept, paid out or refunded for the victim');
      assert.equal(await chainTxsOf(decoy.id), decoyTxs, 'no refund of the decoy’s payin');
      assert.deepEqual(await balances(), before, 'the attacker, the merchant, the deposit and the decoy’s deposit hold what they held');
      assert.equal(before[0], 0n, 'the attacker holds nothing');
      const [decoyPayin] = await listPayins({ knex: services.knex, paymentId: decoy.id });
      assert.deepEqual([decoyPayin?.status, decoyPayin?.disposition, decoyPayin?.sender_address], [row.status, row.disposition, row.sender_address], 'the decoy’s payin record is untouched');
      assert.equal((await waitForStatus(api, victim.id, 'payment_unpaid', 5_000)).payment.status, 'payment_unpaid');

      // Paid for real, the payment completes, on what it was paid.
      await family.pay(info, victim.source.receiverAddress, '5');
      const { payment } = await waitForStatus(api, victim.id, 'payment_completed', 180_000);
      assert.equal(payment.source.amountReceived, '5');
      assert.equal(await family.balance(info, app.payout), before[1]! + afterFee(units('5')), 'the merchant is paid once, what was paid less the fee');
      assert.equal(await family.balance(info, attacker), 0n);
    });
  });
}
