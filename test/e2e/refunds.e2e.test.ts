import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { generateKeyPairSigner } from '@solana/kit';
import { Horizon, StrKey } from '@stellar/stellar-sdk';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { Wallet, parseUnits } from 'ethers';
import type { PaymentResource } from '../../api/serializers/payment';
import type { RefundResource } from '../../api/serializers/refund';
import { findChainTx } from '../../db/queries/chain-txs';
import { listPaymentLedgerEntries, sumAppReceivable } from '../../db/queries/ledger';
import { updateRefundCredit } from '../../db/queries/merchants';
import { listRefundsWithoutWorkflow } from '../../db/queries/refunds';
import { intentKeys } from '../../domain/chain-txs';
import { createLogger } from '../../lib/logger';
import { SecretBox } from '../../lib/secrets';
import { startOrphanedWorkflows } from '../../services/reconcile';
import { createRefund } from '../../services/refunds';
import { stackChain, type Stack } from '../../tools/stack/stack';
import type { refundWorkflow } from '../../workflows';
import { refundWorkflowId } from '../../workflows/ids';
import { refundFundedSignal } from '../../workflows/messages';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { customerTransfer, evmChain, tokenBalance } from '../support/chain';
import { request } from '../support/http';
import { assertAppReconciled } from '../support/ledger';
import { solanaCustomerTransfer, solanaTokenBalance } from '../support/solana';
import { newStellarUsdcAccount, stellarCustomerPayment, stellarDestination, stellarUsdcBalance } from '../support/stellar';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { connectServices, paymentRunEnded, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { eventually } from '../support/poll';

const units = (amount: string) => parseUnits(amount, 6);

describe('merchant refunds end to end on the devnet (real API, Temporal, PostgreSQL, hardhat)', function () {
  this.timeout(180_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let shop: TestMerchant;
  let otherShop: TestMerchant;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.paymentApiUrl;
    shop = await newMerchant(stack, services.knex);
    otherShop = await newMerchant(stack, services.knex);
  });
  after(async () => services?.close());

  /**
   * A payment of `amount` USDC on Base, paid by the devnet customer and completed, its run ended (its sweep landed):
   * a transfer into its deposit address is then a late payin, which may fund a refund.
   */
  async function completedPayment(amount: string, merchant = shop): Promise<PaymentResource> {
    const created = await createPayment(api, merchant.ordersKey, paymentBody({ orderId: `refund-${randomUUID()}`, chainId: '8453', amount }));
    await customerTransfer(stack.info, 8453, 'USDC', created.source.receiverAddress, amount);
    const { payment } = await waitForStatus(api, created.id, 'payment_completed', 90_000);
    await paymentRunEnded(services, payment.id);
    return payment;
  }

  type RefundAnswer = RefundResource & { error?: string; message?: string; details?: Array<{ path: string; message: string }> };
  const refund = (paymentId: string, body: unknown, options: { key?: string; idempotencyKey?: string | null } = {}) =>
    request<RefundAnswer>(`${api}/${paymentId}/refunds`, {
      headers: { 'x-api-key': options.key ?? shop.adminKey, ...(options.idempotencyKey === null ? {} : { 'idempotency-key': options.idempotencyKey ?? randomUUID() }) },
      body,
    });

  const listRefunds = async (paymentId: string, key = shop.adminKey) => request<{ data: RefundResource[] }>(`${api}/${paymentId}/refunds`, { headers: { 'x-api-key': key } });

  async function completedRefund(paymentId: string, refundId: string, key = shop.adminKey): Promise<RefundResource> {
    const run = services.client.workflow.getHandle<typeof refundWorkflow>(refundWorkflowId(refundId));
    assert.equal(await run.result(), 'completed');
    // Its waits run in its workflow task, as a payment's do: its tasks have 30 s, not the server's 10 s.
    assert.equal(Number((await run.describe()).raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds), 30, 'the refund runs with a 30 s workflow task timeout');
    const { body } = await listRefunds(paymentId, key);
    const found = body.data.find((r) => r.id === refundId);
    assert.ok(found, 'the refund is listed');
    return found;
  }

  it('a full refund to an address the merchant names lands on chain, is booked, and the payment becomes payment_refunded', async () => {
    const payment = await completedPayment('12.5');
    const customer = Wallet.createRandom().address;
    const created = await refund(payment.id, { address: customer.toLowerCase(), reason: 'customer changed their mind' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      { ...created.body, id: undefined, createdAt: undefined },
      { id: undefined, paymentId: payment.id, amount: '12.5', chainId: '8453', tokenSymbol: 'USDC', status: 'pending', reason: 'customer changed their mind', address: customer, claimUrl: null, funding: null, txHash: null, createdAt: undefined, completedAt: null },
    );

    const done = await completedRefund(payment.id, created.body.id);
    assert.equal(done.status, 'completed');
    assert.match(done.txHash ?? '', /^0x[0-9a-f]{64}$/);
    assert.ok(done.completedAt);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), units('12.5'), 'the customer received the whole payment');
    assert.equal((await waitForStatus(api, payment.id, 'payment_refunded', 10_000)).payment.status, 'payment_refunded');
    const booked = await listPaymentLedgerEntries({ knex: services.knex, paymentId: payment.id, kind: 'refund' });
    assert.deepEqual(
      booked.map((e) => [e.ref, e.debit_account, e.credit_account, e.amount_units]),
      [[`tx:merchant-refund:${done.id}`, 'external', 'treasury', units('12.5').toString()]],
    );
    // The treasury set the refund's amount aside before it was signed, and let it go once it was mined.
    const reservation = await services.knex('treasury_reservations').where({ intent_key: `merchant-refund:${done.id}` }).first<{ amount_units: string; released_at: Date | null } | undefined>();
    assert.equal(reservation?.amount_units, units('12.5').toString());
    assert.ok(reservation?.released_at, 'released once mined');
    await assertAppReconciled(services, shop.appId);
    // Nothing is left to refund.
    const again = await refund(payment.id, { address: customer });
    assert.deepEqual([again.status, again.body.error], [409, 'conflict'], again.text);
  });

  it('a partial refund, retried with its Idempotency-Key, sends one transaction; more than what is left is a 400', async () => {
    const payment = await completedPayment('20');
    const customer = Wallet.createRandom().address;
    const idempotencyKey = `partial-${randomUUID()}`;
    const body = { amount: '7.25', address: customer };
    const first = await refund(payment.id, body, { idempotencyKey });
    assert.equal(first.status, 201, first.text);
    const retried = await refund(payment.id, body, { idempotencyKey });
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.id, first.body.id, 'the same key and body return the same refund');
    const otherBody = await refund(payment.id, { ...body, amount: '7.5' }, { idempotencyKey });
    assert.equal(otherBody.status, 409, otherBody.text);
    assert.equal(otherBody.body.error, 'idempotency_conflict');

    const tooMuch = await refund(payment.id, { amount: '12.76', address: customer });
    assert.equal(tooMuch.status, 400, tooMuch.text);
    assert.equal(tooMuch.body.details?.[0]?.path, 'amount');
    assert.match(tooMuch.body.details?.[0]?.message ?? '', /12\.75 USDC/);

    await completedRefund(payment.id, first.body.id);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), units('7.25'));
    const tx = await findChainTx({ knex: services.knex, intentKey: intentKeys.merchantRefund(first.body.id) });
    assert.equal(tx?.status, 'confirmed');
    assert.deepEqual(tx?.replaced_tx_hashes, [], 'one transaction, never signed again');
    assert.equal((await getPayment(api, payment.id)).status, 'payment_completed', 'a partial refund leaves the payment completed');

    // The rest, by default.
    const rest = await refund(payment.id, { address: customer });
    assert.equal(rest.status, 201, rest.text);
    assert.equal(rest.body.amount, '12.75');
    await completedRefund(payment.id, rest.body.id);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), units('20'));
    await waitForStatus(api, payment.id, 'payment_refunded', 10_000);
    const { body: listed } = await listRefunds(payment.id);
    assert.deepEqual(listed.data.map((r) => [r.amount, r.status]), [['7.25', 'completed'], ['12.75', 'completed']]);
    await assertAppReconciled(services, shop.appId);
  });

  it('a refund whose run never started (the API stopped after recording it) is started by the reconciler and lands once', async () => {
    const payment = await completedPayment('3');
    const customer = Wallet.createRandom().address;
    const { taskQueue } = stack.config.temporal;
    // The API's refund service, stopped between recording the refund and starting its run.
    const stopped = { workflow: { start: () => Promise.reject(new Error('the API stopped before it started the run')) } } as unknown as Client;
    const log = createLogger('silent', 'test');
    const deps = { knex: services.knex, chains: services.chains, temporal: { client: stopped, taskQueue }, secretBox: new SecretBox(stack.env.PAYRAIL_SECRETS_KEY!), publicBaseUrl: stack.publicBaseUrl, refundClaimWindowDays: 30, log };
    await assert.rejects(createRefund(deps, shop.appId, payment.id, randomUUID(), { address: customer }), /the API stopped/);
    const [orphan] = (await listRefunds(payment.id)).body.data;
    assert.equal(orphan?.status, 'pending');
    await assert.rejects(services.client.workflow.getHandle(refundWorkflowId(orphan.id)).describe(), WorkflowNotFoundError);

    const reconciler = { knex: services.knex, temporal: { client: services.client, taskQueue }, log };
    assert.ok((await startOrphanedWorkflows(reconciler, { olderThanMs: 0 })) >= 1);
    await completedRefund(payment.id, orphan.id);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), units('3'), 'the customer received the refund');
    // Its run is recorded as started: the next round leaves it alone.
    const left = await listRefundsWithoutWorkflow({ knex: services.knex, olderThanMs: 0, limit: 100 });
    assert.ok(!left.some((r) => r.id === orphan.id));
    const tx = await findChainTx({ knex: services.knex, intentKey: intentKeys.merchantRefund(orphan.id) });
    assert.deepEqual([tx?.status, tx?.replaced_tx_hashes], ['confirmed', []], 'one transaction');
    await assertAppReconciled(services, shop.appId);
  });

  it('two concurrent refunds of the whole amount make one refund and one transaction', async () => {
    const payment = await completedPayment('5');
    const customer = Wallet.createRandom().address;
    const answers = await Promise.all([refund(payment.id, { address: customer }), refund(payment.id, { address: customer })]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 400], answers.map((a) => a.text).join(' / '));
    const made = answers.find((a) => a.status === 201)!.body;
    await completedRefund(payment.id, made.id);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), units('5'));
    const { body: listed } = await listRefunds(payment.id);
    assert.equal(listed.data.length, 1);
  });

  it('refuses what it must: an Orders key, another app’s key, no Idempotency-Key, a bad address, an unpaid payment', async () => {
    const payment = await completedPayment('2');
    const customer = Wallet.createRandom().address;
    const ordersKey = await refund(payment.id, { address: customer }, { key: shop.ordersKey });
    assert.deepEqual([ordersKey.status, ordersKey.body.error], [403, 'scope_insufficient']);
    const otherApp = await refund(payment.id, { address: customer }, { key: otherShop.adminKey });
    assert.deepEqual([otherApp.status, otherApp.body.error], [404, 'not_found']);
    assert.equal((await listRefunds(payment.id, otherShop.adminKey)).status, 404);
    const noKey = await refund(payment.id, { address: customer }, { idempotencyKey: null });
    assert.equal(noKey.status, 400, noKey.text);
    assert.equal(noKey.body.details?.[0]?.path, 'Idempotency-Key');
    const badAddress = await refund(payment.id, { address: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE' });
    assert.deepEqual([badAddress.status, badAddress.body.details?.[0]?.path], [400, 'address']);
    const zero = await refund(payment.id, { amount: '0', address: customer });
    assert.deepEqual([zero.status, zero.body.details?.[0]?.path], [400, 'amount']);

    const unpaid = await createPayment(api, shop.ordersKey, paymentBody({ orderId: `unpaid-${randomUUID()}`, chainId: '8453', amount: '3' }));
    const early = await refund(unpaid.id, { address: customer });
    assert.deepEqual([early.status, early.body.error], [409, 'conflict']);
    assert.deepEqual((await listRefunds(payment.id)).body.data, [], 'no refund was made by any refused request');
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), 0n);
  });

  it('a USDC payment on Solana is refunded by API to a Solana address, from the Solana treasury, and lands there', async () => {
    const chainId = String(stackChain(stack.info, 'solana').chainId);
    const created = await createPayment(api, shop.ordersKey, paymentBody({ orderId: `refund-sol-${randomUUID()}`, chainId, tokenSymbol: 'USDC', amount: '4' }));
    await solanaCustomerTransfer(stack.info, 'USDC', created.source.receiverAddress, '4');
    const { payment } = await waitForStatus(api, created.id, 'payment_completed', 90_000);
    const customer = (await generateKeyPairSigner()).address;
    const evmAddress = await refund(payment.id, { address: Wallet.createRandom().address });
    assert.deepEqual([evmAddress.status, evmAddress.body.details?.[0]?.path], [400, 'address'], 'an EVM address is not a Solana one');

    const made = await refund(payment.id, { amount: '2.5', address: customer });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual([made.body.chainId, made.body.tokenSymbol, made.body.address], [chainId, 'USDC', customer]);
    const done = await completedRefund(payment.id, made.body.id);
    assert.ok(done.txHash, 'the Solana signature');
    assert.equal(await solanaTokenBalance(stack.info, 'USDC', customer), units('2.5'), 'the customer received the refund on Solana');
    const tx = await findChainTx({ knex: services.knex, intentKey: intentKeys.merchantRefund(made.body.id) });
    assert.deepEqual([tx?.chain_id, tx?.status], [Number(chainId), 'confirmed'], 'sent on the source chain');
    await assertAppReconciled(services, shop.appId);
  });

  it('a USDC payment on Stellar is refunded to a muxed M… address (an exchange account and the memo id it credits by): it lands there with its id', async () => {
    const chain = stackChain(stack.info, 'stellar');
    const chainId = String(chain.chainId);
    const created = await createPayment(api, shop.ordersKey, paymentBody({ orderId: `refund-xlm-${randomUUID()}`, chainId, tokenSymbol: 'USDC', amount: '3' }));
    await stellarCustomerPayment(stack.info, stellarDestination(created.source.receiverAddress), '3');
    const { payment } = await waitForStatus(api, created.id, 'payment_completed', 90_000);
    const exchange = await newStellarUsdcAccount(stack.info);
    const memoId = 4_242_424_242n;
    const id = Buffer.alloc(8);
    id.writeBigUInt64BE(memoId);
    const muxed = StrKey.encodeMed25519PublicKey(Buffer.concat([StrKey.decodeEd25519PublicKey(exchange), id]));

    const made = await refund(payment.id, { address: muxed });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual([made.body.chainId, made.body.address, made.body.amount], [chainId, muxed, '3']);
    const done = await completedRefund(payment.id, made.body.id);
    assert.equal(await stellarUsdcBalance(stack.info, exchange), 30_000_000n, 'the exchange account holds the refund (7 decimals)');
    const horizon = new Horizon.Server(chain.rpcUrl, { allowHttp: true });
    const [sent] = (await horizon.payments().forTransaction(done.txHash!).call()).records as Array<{ to: string; to_muxed_id?: string }>;
    assert.deepEqual([sent?.to, sent?.to_muxed_id], [exchange, memoId.toString()], 'the payment carries the memo id the exchange credits by');
    // Booked from the Stellar treasury. (Reconcile scoped to one app cannot compare Stellar's deposits: they are the
    // receiving account every app shares.)
    const booked = await listPaymentLedgerEntries({ knex: services.knex, paymentId: payment.id, kind: 'refund' });
    assert.deepEqual(booked.map((e) => [e.chain_id, e.credit_account, e.amount_units]), [[chain.chainId, 'treasury', '30000000']]);
  });

  it('the app owes what it refunded: its next payout keeps it back (at most half of it), in the payment and the ledger; past its credit the merchant funds it at the deposit, and it is sent from there', async () => {
    const merchant = await newMerchant(stack, services.knex);
    const wallet = merchant.payout.address;
    const first = await completedPayment('10', merchant);
    const payout = units(first.destination.amount);
    const customer = Wallet.createRandom().address;
    const made = await refund(first.id, { amount: '4', address: customer }, { key: merchant.adminKey });
    assert.equal(made.status, 201, made.text);
    await completedRefund(first.id, made.body.id, merchant.adminKey);
    assert.equal(await sumAppReceivable({ knex: services.knex, appId: merchant.appId, chainId: 8453, tokenAddress: usdcOnBase() }), units('4'), 'the app owes the refund (same token: its amount)');

    const second = await completedPayment('10', merchant);
    assert.equal(units(second.destination.amount), payout - units('4'), 'the payout kept back what the app owed');
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', wallet), payout + payout - units('4'), 'the merchant holds both payouts less the refund');
    const netting = await listPaymentLedgerEntries({ knex: services.knex, paymentId: second.id, kind: 'netting' });
    assert.deepEqual(netting.map((e) => [e.ref, e.debit_account, e.credit_account, e.amount_units]), [[`netting:${second.id}`, 'merchant', 'receivable', units('4').toString()]]);
    const owed = await listPaymentLedgerEntries({ knex: services.knex, paymentId: first.id, kind: 'netting' });
    assert.deepEqual(owed.map((e) => [e.ref, e.debit_account, e.credit_account, e.amount_units]), [[`owed:${made.body.id}`, 'receivable', 'merchant', units('4').toString()]]);
    assert.equal(await sumAppReceivable({ knex: services.knex, appId: merchant.appId, chainId: 8453, tokenAddress: usdcOnBase() }), 0n, 'settled');

    // The operator allows this app 1 USDC of refunds owed: 0.5 is fronted by the treasury; 2 is past it, and waits
    // for the merchant to fund it at the payment's deposit address.
    await updateRefundCredit({ knex: services.knex, appId: merchant.appId, refundCredit: '1' });
    const third = await completedPayment('5', merchant);
    const past = await refund(third.id, { amount: '2', address: customer }, { key: merchant.adminKey });
    assert.equal(past.status, 201, past.text);
    assert.deepEqual([past.body.status, past.body.funding], ['pending', { address: third.source.receiverAddress, memo: null, amount: '2', txHash: null }], 'the funding address is the payment’s deposit');
    const within = await refund(third.id, { amount: '0.5', address: customer }, { key: merchant.adminKey });
    assert.equal(within.status, 201, within.text);
    assert.equal(within.body.funding, null, 'within the credit: the treasury fronts it');
    await completedRefund(third.id, within.body.id, merchant.adminKey);
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), units('4.5'), 'the funded refund waits; the fronted one landed');
    assert.equal((await listRefunds(third.id, merchant.adminKey)).body.data.find((r) => r.id === past.body.id)?.status, 'pending');

    // Too little is no funding: it goes back to its sender. Then 2.25 in one transfer funds it; the refund goes from
    // the deposit, and the 0.25 beyond it back to the sender.
    const short = await customerTransfer(stack.info, 8453, 'USDC', past.body.funding!.address, '1.5');
    const fundingTx = await customerTransfer(stack.info, 8453, 'USDC', past.body.funding!.address, '2.25');
    const funded = await completedRefund(third.id, past.body.id, merchant.adminKey);
    assert.deepEqual(funded.funding, { address: third.source.receiverAddress, memo: null, amount: '2', txHash: fundingTx });
    assert.equal(await tokenBalance(stack.info, 8453, 'USDC', customer), units('6.5'), 'the customer holds both refunds of this payment');
    // The short transfer's own late-payin run returns it, beside the refund's run.
    const booked = await eventually('the short transfer to be returned', 60_000, async () => {
      const entries = await listPaymentLedgerEntries({ knex: services.knex, paymentId: third.id, kind: 'refund' });
      return entries.length === 4 ? entries : undefined;
    });
    assert.deepEqual(
      booked.map((e) => [e.ref.replace(/:0x[0-9a-f]{64}:\d+$/, ':<payin>'), e.credit_account, e.amount_units]).sort(),
      [
        [`tx:funded-refund:${past.body.id}`, 'deposit', units('2').toString()],
        [`tx:merchant-refund:${within.body.id}`, 'treasury', units('0.5').toString()],
        ['tx:refund:8453:<payin>', 'deposit', units('0.25').toString()],
        ['tx:refund:8453:<payin>', 'deposit', units('1.5').toString()],
      ].sort(),
      'the funded refund and the excess leave the deposit; the short transfer went back whole',
    );
    const returned = booked.filter((e) => e.ref.startsWith('tx:refund:')).map((e) => e.ref.split(':')[3]).sort();
    assert.deepEqual(returned, [fundingTx, short].sort(), 'each goes back on its own transfer’s terms');
    const owedForThird = await listPaymentLedgerEntries({ knex: services.knex, paymentId: third.id, kind: 'netting' });
    assert.deepEqual(owedForThird.map((e) => e.ref), [`owed:${within.body.id}`], 'the app owes the fronted refund only');
    await assertAppReconciled(services, merchant.appId);
  });

  it('a Stellar refund past the credit shows the receiving account and the memo to fund it with; a wake-up without funding sends nothing; funded, it lands', async () => {
    const merchant = await newMerchant(stack, services.knex);
    await updateRefundCredit({ knex: services.knex, appId: merchant.appId, refundCredit: '0' });
    const chainId = String(stackChain(stack.info, 'stellar').chainId);
    const created = await createPayment(api, merchant.ordersKey, paymentBody({ orderId: `refund-xlm-funded-${randomUUID()}`, chainId, tokenSymbol: 'USDC', amount: '3' }));
    await stellarCustomerPayment(stack.info, stellarDestination(created.source.receiverAddress), '3');
    await waitForStatus(api, created.id, 'payment_completed', 90_000);
    await paymentRunEnded(services, created.id);
    const customer = await newStellarUsdcAccount(stack.info);

    const made = await refund(created.id, { amount: '1', address: customer }, { key: merchant.adminKey });
    assert.equal(made.status, 201, made.text);
    const { account, memo } = stellarDestination(created.source.receiverAddress);
    assert.deepEqual(made.body.funding, { address: account, memo, amount: '1', txHash: null }, 'the shared receiving account and the deposit’s memo');

    // A wake-up is no funding: the run reads the database again, finds none, and sends nothing.
    const run = services.client.workflow.getHandle<typeof refundWorkflow>(refundWorkflowId(made.body.id));
    await eventually('the refund to read its funding', 30_000, async () => ((await fundingReads(run)) >= 1 ? true : undefined));
    await run.signal(refundFundedSignal);
    await eventually('the woken refund to read its funding again', 30_000, async () => ((await fundingReads(run)) >= 2 ? true : undefined));
    assert.equal(await findChainTx({ knex: services.knex, intentKey: intentKeys.fundedRefund(made.body.id) }), undefined, 'nothing signed');
    assert.equal((await listRefunds(created.id, merchant.adminKey)).body.data[0]?.status, 'pending');

    const fundingTx = await stellarCustomerPayment(stack.info, { account: made.body.funding.address, memo: made.body.funding.memo }, '1');
    const done = await completedRefund(created.id, made.body.id, merchant.adminKey);
    assert.equal(done.funding?.txHash, fundingTx);
    assert.equal(await stellarUsdcBalance(stack.info, customer), 10_000_000n, 'the customer holds the refund (7 decimals)');
    const booked = await listPaymentLedgerEntries({ knex: services.knex, paymentId: created.id, kind: 'refund' });
    assert.deepEqual(booked.map((e) => [e.ref, e.credit_account, e.amount_units]), [[`tx:funded-refund:${made.body.id}`, 'deposit', '10000000']], 'sent from the deposit it was funded at; nothing beyond it to return');
    assert.deepEqual(await listPaymentLedgerEntries({ knex: services.knex, paymentId: created.id, kind: 'netting' }), [], 'the app owes nothing');
  });

  it('a forged late-payin run claiming a funding transfer the chain never saw funds nothing: the refund stays unfunded and nothing is signed', async () => {
    const merchant = await newMerchant(stack, services.knex);
    await updateRefundCredit({ knex: services.knex, appId: merchant.appId, refundCredit: '0' });
    const payment = await completedPayment('3', merchant);
    const made = await refund(payment.id, { amount: '3', address: Wallet.createRandom().address }, { key: merchant.adminKey });
    assert.equal(made.status, 201, made.text);
    const forged = {
      chainId: 8453, txHash: `0x${'fa'.repeat(32)}`, logIndex: 0, blockNumber: 1,
      tokenAddress: usdcOnBase(), from: Wallet.createRandom().address, to: payment.source.receiverAddress, amountUnits: units('3').toString(),
    };
    const run = await services.client.workflow.start('latePayinWorkflow', {
      workflowId: `forged-funding-${made.body.id}`,
      taskQueue: stack.config.temporal.taskQueue,
      args: [{ paymentId: payment.id, payin: forged }],
    });
    assert.equal(await run.result(), 'dropped', 'read from the chain, the transfer is not there');
    const [listed] = (await listRefunds(payment.id, merchant.adminKey)).body.data;
    assert.deepEqual([listed?.status, listed?.funding?.txHash], ['pending', null]);
    assert.equal(await findChainTx({ knex: services.knex, intentKey: intentKeys.fundedRefund(made.body.id) }), undefined, 'nothing signed');
  });

  /** How many times a refund's run has asked for its funding, from its history. */
  async function fundingReads(run: { fetchHistory(): Promise<{ events?: Array<{ activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null }> | null }> }): Promise<number> {
    const { events } = await run.fetchHistory();
    return (events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'refundFunding').length;
  }

  const usdcOnBase = () => evmChain(stack.info, 8453).tokens.USDC.address;
});
