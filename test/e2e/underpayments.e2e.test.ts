import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parseUnits } from 'ethers';
import type { PaymentResource } from '../../api/serializers/payment';
import { updateAppSettings } from '../../db/queries/merchants';
import { listPayins } from '../../db/queries/payins';
import { formatUnits } from '../../domain/money';
import type { Stack } from '../../tools/stack/stack';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer, tokenBalance } from '../support/chain';
import { request } from '../support/http';
import { assertAppReconciled } from '../support/ledger';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

const units = (amount: string) => parseUnits(amount, 6);

describe('underpayments end to end on the devnet: paying the rest, the app’s tolerance, accept as paid', function () {
  this.timeout(180_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
  });
  after(async () => services?.close());

  const pay = async (shop: TestMerchant, amount: string) => createPayment(api, shop.ordersKey, paymentBody({ orderId: `under-${randomUUID()}`, chainId: '8453', amount }));

  /** Waits until the payment's run counted `count` payins (confirmed, of the payment's token). */
  const counted = (paymentId: string, count: number) =>
    eventually(`${count} payin(s) of ${paymentId} to be confirmed`, 120_000, async () => ((await listPayins({ knex: services.knex, paymentId })).filter((p) => p.status === 'confirmed').length >= count ? true : undefined));

  /** The merchant got what arrived less the fee, the payment says so, and the app's books balance. */
  async function assertPaidOut(shop: TestMerchant, payment: PaymentResource, arrived: string, before: bigint) {
    const expected = units(arrived) - units(payment.source.fee);
    assert.equal(payment.destination.amount, formatUnits(expected, 6), 'the payout shown is what arrived less the fee');
    assert.equal((await tokenBalance(stack.info, 8453, 'USDC', shop.payout.address)) - before, expected, 'the merchant received what arrived less the fee');
    assert.equal(payment.source.amountReceived, arrived);
    await assertAppReconciled(services, shop.appId);
  }

  it('an underpaid payment waits for the rest; paying the rest completes it', async () => {
    const shop = await newMerchant(stack, services.knex);
    const created = await pay(shop, '10');
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '6');
    await counted(created.id, 1);
    assert.equal((await getPayment(api, created.id)).status, 'payment_started', 'short of the amount, it still collects');
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '4');
    const { payment } = await waitForStatus(api, created.id, 'payment_completed', 90_000);
    assert.equal(payment.source.amountReceived, '10');
  });

  it('within the app’s tolerance, a short payment completes and pays out what arrived less the fee', async () => {
    const shop = await newMerchant(stack, services.knex);
    await updateAppSettings({ knex: services.knex, appId: shop.appId, settings: { underpayment_tolerance_bps: 100 } });
    const before = await tokenBalance(stack.info, 8453, 'USDC', shop.payout.address);
    const created = await pay(shop, '10');
    // 0.95% short, as an exchange that takes its fee out of the amount leaves it.
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '9.905');
    const { payment } = await waitForStatus(api, created.id, 'payment_completed', 90_000);
    await assertPaidOut(shop, payment, '9.905', before);
  });

  it('accept as paid: only an Admin key of the app, only with a confirmed payin, then the payment completes with what arrived', async () => {
    const shop = await newMerchant(stack, services.knex);
    const other = await newMerchant(stack, services.knex);
    const before = await tokenBalance(stack.info, 8453, 'USDC', shop.payout.address);
    const created = await pay(shop, '10');
    const accept = (key: string) => request<{ error?: string; status?: string }>(`${api}/${created.id}/accept`, { method: 'POST', headers: { 'x-api-key': key } });

    const unpaid = await accept(shop.adminKey);
    assert.deepEqual([unpaid.status, unpaid.body.error], [409, 'conflict'], 'nothing arrived: nothing to accept');
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, '7.5');
    await counted(created.id, 1);
    assert.deepEqual([(await accept(shop.ordersKey)).status, (await accept(other.adminKey)).status], [403, 404]);
    const accepted = await accept(shop.adminKey);
    assert.equal(accepted.status, 200, accepted.text);

    const { payment } = await waitForStatus(api, created.id, 'payment_completed', 90_000);
    await assertPaidOut(shop, payment, '7.5', before);
    const again = await accept(shop.adminKey);
    assert.deepEqual([again.status, again.body.error], [409, 'conflict'], 'a completed payment is not accepted again');
  });
});
