import assert from 'node:assert/strict';
import type { PaymentResource } from '../../api/serializers/payment';
import type { Stack } from '../../tools/stack/stack';
import { assertErrorEnvelope, countPayments, uniqueOrderId } from '../api/helpers';
import { bearer, createKey, login, register, registerBody } from '../merchant/helpers';
import { paymentBody } from '../support/api';
import { request } from '../support/http';
import { connectServices, type StackServices } from '../support/services';
import { newMerchant } from '../support/merchant';
import { getStack } from '../support/stack';

/**
 * Opening 1 (issue 8): a customer who knows the app id pre-creates the merchant's next order id without a key, at a
 * price of their choosing, so the merchant's own create is answered with the customer's payment.
 */
describe('attack: orderId squatting through the keyless create', function () {
  this.timeout(120_000);
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

  const keyless = (appId: string, orderId: string, amount: string) => request(`${api}/payments`, { body: { ...paymentBody({ orderId, amount }), appId } });
  const keyed = (key: string, orderId: string, amount: string) => request(api, { headers: { 'x-api-key': key }, body: paymentBody({ orderId, amount }) });

  it("a keyless create of order X at a low price never answers the merchant's keyed create of X at 25.00", async () => {
    const shop = await newMerchant(stack, services.knex, { keylessPayments: true });
    const orderId = uniqueOrderId('squat');
    // The attacker's cheapest try is below the minimum payment, and refused outright.
    const dust = await keyless(shop.appId, orderId, '0.01');
    assert.equal(dust.status, 400, dust.text);
    // At the minimum it is a payment, marked keyless, in the keyless namespace.
    const squat = await keyless(shop.appId, orderId, '1');
    assert.equal(squat.status, 201, squat.text);
    const squatted = squat.body as PaymentResource;
    assert.equal(squatted.keyless, true);

    const merchant = await keyed(shop.ordersKey, orderId, '25.00');
    assert.equal(merchant.status, 201, `the merchant's create makes its own payment: ${merchant.text}`);
    const own = merchant.body as PaymentResource;
    assert.notEqual(own.id, squatted.id);
    assert.equal(own.keyless, false);
    assert.equal(own.source.amount, '25');
    assert.notEqual(own.source.receiverAddress, squatted.source.receiverAddress);

    // The merchant's re-send and its read by order find its own payment, never the squatter's.
    const again = await keyed(shop.ordersKey, orderId, '25');
    assert.equal(again.status, 200, again.text);
    assert.equal((again.body as PaymentResource).id, own.id);
    const byOrder = await request(`${api}/payments/order/${shop.appId}/${orderId}`, { headers: { 'x-api-key': shop.ordersKey } });
    assert.equal(byOrder.status, 200, byOrder.text);
    assert.equal((byOrder.body as PaymentResource).id, own.id);

    // The squatter can't change the merchant's payment either: a keyless re-send with other terms is a conflict.
    const retry = await keyless(shop.appId, orderId, '25');
    assert.equal(retry.status, 409, retry.text);
    assert.equal(assertErrorEnvelope(retry).error, 'idempotency_conflict');
    assert.equal(await countPayments(services.knex, { app_id: shop.appId, order_id: orderId }), 2);
  });

  it('a new app takes no keyless creates until its developer switches them on, and off again', async () => {
    const session = await login(stack.info.merchantApiUrl, stack.info.mailSinkUrl!);
    const app = await register(stack.info.merchantApiUrl, session.token, registerBody());
    const { key } = await createKey(stack.info.merchantApiUrl, session.token, app.appId);
    const orderId = uniqueOrderId('squat-new');

    const refused = await keyless(app.appId, orderId, '1');
    assert.equal(refused.status, 403, refused.text);
    assert.equal(assertErrorEnvelope(refused).error, 'keyless_payments_disabled');
    assert.equal(await countPayments(services.knex, { app_id: app.appId }), 0, 'nothing was created');
    assert.equal((await keyed(key, orderId, '25')).status, 201, 'keyed creates work');

    const settings = (body: unknown) => request(`${stack.info.merchantApiUrl}/apps/${app.appId}`, { method: 'PATCH', headers: bearer(session.token), body });
    const on = await settings({ keylessPayments: true });
    assert.equal(on.status, 200, on.text);
    assert.equal((on.body as { keylessPayments: boolean }).keylessPayments, true);
    const allowed = await keyless(app.appId, orderId, '1');
    assert.equal(allowed.status, 201, allowed.text);
    assert.equal((allowed.body as PaymentResource).keyless, true);

    const off = await settings({ keylessPayments: false });
    assert.equal((off.body as { keylessPayments: boolean }).keylessPayments, false);
    assert.equal((await keyless(app.appId, uniqueOrderId('squat-off'), '1')).status, 403);
    const bad = await settings({ keylessPayments: 'yes' });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(assertErrorEnvelope(bad).details?.[0]?.path, 'keylessPayments');
  });
});
