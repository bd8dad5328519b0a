/**
 * Rebalancing on the devnet: a treasury's float set aside below its low mark is refilled from the other chain's
 * treasury in one bridge transfer (CCTP v2 for USDC, OFT for USDT) by the rebalancer's own run; a payment paid out
 * there while it is short waits (`AwaitingOperator=treasury_short`) and completes after the refill; the ledger books
 * the send, the receipt and the bridge's fee, and reconcile balances.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { RebalanceRow } from '../../db/tables';
import { isNativeToken } from '../../domain/payment';
import { readTreasuryFloats } from '../../services/treasury-float';
import { isFailure, reconcileLedger } from '../../services/ledger';
import { describeFloats } from '../../services/float-report';
import { FloatTransferNotFound, recordManualFloatTransfer } from '../../services/float-transfers';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { paymentWorkflowId, rebalanceWorkflowId } from '../../workflows/ids';
import { AwaitingOperatorKey } from '../../workflows/search-attributes';
import { waitForStatus } from '../support/api';
import { checkFloats, holdTreasuryFloat } from '../support/float';
import { request } from '../support/http';
import { assertAppReconciled } from '../support/ledger';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { newStellarUsdcAccount, stellarCustomerPayment, stellarPayment } from '../support/stellar';
import { newTronAddress, tronCustomerTransfer, tronTransfer } from '../support/tron';
import type { OrderCreated } from '../legacy/helpers';

const [ARBITRUM, BASE] = [42161, 8453];

describe('rebalancing the treasuries on the devnet (CCTP v2, OFT)', function () {
  this.timeout(600_000);
  let stack: Stack;
  let services: StackServices;
  let merchant: TestMerchant;
  const releases: Array<() => Promise<void>> = [];

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    merchant = await newMerchant(stack, services.knex);
  });
  after(async () => {
    for (const release of releases) await release();
    await services?.close();
  });

  const floatOf = async (chainId: number, symbol: string) => {
    const float = (await readTreasuryFloats(services)).find((f) => f.chainId === chainId && f.symbol === symbol);
    assert.ok(float, `the float of ${symbol} on chain ${chainId} is read`);
    return float;
  };

  /** Sets the float aside (below its low mark), asks the rebalancer to look, and returns the rebalance once completed. */
  async function drainAndRefill(symbol: 'USDC' | 'USDT', beforeRefill?: () => Promise<void>): Promise<RebalanceRow> {
    releases.push(await holdTreasuryFloat(stack, services, merchant, BASE, symbol));
    const short = await floatOf(BASE, symbol);
    assert.ok(short.floatUnits < short.lowUnits, `the float is below its low mark: ${short.floatUnits} < ${short.lowUnits}`);
    await beforeRefill?.();
    await checkFloats(services);
    const opened = await eventually(`a ${symbol} rebalance to Base opened`, 30_000, async () =>
      (await services.knex<RebalanceRow>('rebalances').where({ token_symbol: symbol, to_chain_id: BASE }).orderBy('created_at', 'desc').first()) ?? undefined,
    );
    assert.equal(opened.from_chain_id, ARBITRUM);
    assert.equal(BigInt(opened.amount_units), short.highUnits - short.floatUnits, 'the difference up to the high mark, in one transfer');
    // Asked again while it is bridging: no second rebalance of the route or to the short treasury.
    await checkFloats(services);
    const done = await eventually(`the ${symbol} rebalance completed`, 240_000, async () => {
      const row = await services.knex<RebalanceRow>('rebalances').where({ id: opened.id }).first();
      assert.notEqual(row?.status, 'failed');
      return row?.status === 'completed' ? row : undefined;
    }, 1_000);
    assert.equal(Number((await services.knex('rebalances').where({ token_symbol: symbol, to_chain_id: BASE }).count<{ count: string }[]>('* as count'))[0]!.count), 1);
    // Its waits run in its workflow task, as a payment's do: its tasks have 30 s, not the server's 10 s.
    const run = await services.client.workflow.getHandle(rebalanceWorkflowId(opened.id)).describe();
    assert.equal(Number(run.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds), 30, 'the rebalance runs with a 30 s workflow task timeout');
    const refilled = await floatOf(BASE, symbol);
    assert.ok(refilled.floatUnits >= refilled.lowUnits, `the float is back above its low mark: ${refilled.floatUnits} ≥ ${refilled.lowUnits}`);
    return done;
  }

  /** The rebalance's ledger rows: the send on the source chain, the receipt and the bridge's fee on Base, adding up. */
  async function assertBooked(rebalance: RebalanceRow) {
    const entries = await services.knex('ledger_entries').where('ref', 'like', `%${rebalance.id}`).select<Array<{ ref: string; chain_id: number; debit_account: string; credit_account: string; amount_units: string; payment_id: string | null }>>();
    const sent = entries.find((e) => e.ref === `tx:rebalance-burn:${rebalance.id}`);
    const received = entries.find((e) => e.debit_account === 'treasury' && e.credit_account === 'bridge');
    assert.ok(sent && received, `send and receipt booked: ${JSON.stringify(entries)}`);
    assert.deepEqual([sent.chain_id, sent.debit_account, sent.credit_account, sent.amount_units], [ARBITRUM, 'bridge', 'treasury', rebalance.amount_units]);
    assert.equal(received.chain_id, BASE);
    assert.equal(received.amount_units, rebalance.received_units);
    const fee = entries.find((e) => e.ref === `rebalance-fee:${rebalance.id}`);
    assert.equal(BigInt(received.amount_units) + BigInt(fee?.amount_units ?? 0), BigInt(rebalance.amount_units), 'what was sent arrived or was the bridge’s fee');
    assert.ok(entries.every((e) => e.payment_id === null), 'no payment’s');
    assert.ok(rebalance.quote, 'the quote is kept');
  }

  it('USDC: Base’s float below its mark is refilled from Arbitrum by one CCTP v2 transfer; a payment paid out meanwhile completes after the refill', async () => {
    let order: OrderCreated['order'] | undefined;
    const rebalance = await drainAndRefill('USDC', async () => {
      // A Tron payin paid out in USDC on Base: no bridge carries it, so it waits for the float.
      const res = await request(`${stack.info.legacyApiUrl}/v1/orders`, {
        headers: { token: merchant.ordersKey },
        body: { merchant_order_id: `rebalance-${randomUUID()}`, price_amount: 10, pay_currency: 'USDT_TRC20' },
      });
      assert.equal(res.status, 201, res.text);
      const orderId = (res.body as OrderCreated).order.id;
      // The order's payment may be created just after the order answers (its run creates it): read until it shows.
      order = await eventually(`order ${orderId}'s payment`, 60_000, async () => {
        const read = await request(`${stack.info.legacyApiUrl}/v1/orders/${orderId}`, { headers: { token: merchant.ordersKey } });
        const body = (read.body as { order: OrderCreated['order'] }).order;
        return body.pay_address && body.pay_amount && body.payment_id ? body : undefined;
      });
      await tronCustomerTransfer(stack.info, order.pay_address!, order.pay_amount!);
      const run = services.client.workflow.getHandle(paymentWorkflowId(order.payment_id!));
      await eventually('the payout waiting for the float (AwaitingOperator=treasury_short)', 360_000, async () =>
        ((await run.describe()).typedSearchAttributes.get(AwaitingOperatorKey) === 'treasury_short' ? true : undefined), 1_000);
    });
    assert.equal(rebalance.quote?.kind, 'cctp');
    await assertBooked(rebalance);
    const { seen } = await waitForStatus(stack.info.paymentApiUrl, order!.payment_id!, 'payment_completed', 120_000);
    assert.ok(!seen.includes('payment_bridging'), `paid from the refilled float: ${seen.join(' → ')}`);
    await assertAppReconciled(services, merchant.appId);
  });

  it('USDT: Base’s float below its mark is refilled from Arbitrum by one OFT transfer', async () => {
    const rebalance = await drainAndRefill('USDT');
    assert.equal(rebalance.quote?.kind, 'oft');
    await assertBooked(rebalance);
  });

  it('Tron’s USDT short: no bridge reaches it, so the need is raised (reconcile lists it) and nothing goes on chain; the operator’s transfer in is read from the chain and booked once', async () => {
    const tron = stackChain(stack.info, 'tron').chainId;
    const release = await holdTreasuryFloat(stack, services, merchant, tron, 'USDT');
    releases.push(release);
    await checkFloats(services);
    const needLine = await eventually('the need in reconcile', 30_000, async () =>
      (await describeFloats(services, await reconcileLedger(services))).find((l) => l.startsWith(`chain ${tron} needs `) && l.includes('USDT') && l.endsWith('REBALANCE NEEDED')),
    );
    assert.match(needLine, /operator's transfer/);
    assert.deepEqual(await services.knex('rebalances').where({ to_chain_id: tron }).select('id'), [], 'no rebalance: nothing signed');

    const treasury = services.chains.adapter(tron).treasuryAddress();
    const txHash = await tronCustomerTransfer(stack.info, treasury, '25');
    const legs = await eventually('the transfer confirmed and booked', 60_000, () => bookedWhenConfirmed(tron, txHash));
    assert.deepEqual(legs.map((l) => [l.symbol, l.direction, l.amountUnits]), [['USDT', 'in', '25000000']], 'the amount is the chain’s');
    await recordManualFloatTransfer(services, { chainId: tron, txHash });
    assert.equal(Number((await services.knex('ledger_entries').where('ref', 'like', `float-transfer:${tron}:%`).count<{ count: string }[]>('* as count'))[0]!.count), 1, 'booked once');
    await assert.rejects(recordManualFloatTransfer(services, { chainId: tron, txHash: '0'.repeat(64) }), FloatTransferNotFound);
    // A leg out of the treasury (to the exchange that carries it) is read and booked too: the scan leaves the
    // treasury's own transfers out, the transaction's own read does not.
    const out = await tronTransfer(stack.info, { address: treasury, privateKey: stack.env.TRON_TREASURY_PRIVATE_KEY! }, newTronAddress(), '5');
    const outLegs = await eventually('the transfer out confirmed and booked', 60_000, () => bookedWhenConfirmed(tron, out));
    assert.deepEqual(outLegs.map((l) => [l.symbol, l.direction, l.amountUnits]), [['USDT', 'out', '5000000']]);
    const tronTreasury = (await reconcileLedger(services)).accounts.find((a) => a.kind === 'treasury' && a.chainId === tron && !isNativeToken(a.tokenAddress));
    assert.equal(tronTreasury?.difference, 0n, 'the treasury equals its books with both legs booked');
    await release();
  });

  it('Stellar’s treasury: an operator’s transfer in and one out, read from the transaction’s payments (not the receiving account’s), each booked once', async () => {
    const stellar = stackChain(stack.info, 'stellar').chainId;
    const treasury = services.chains.adapter(stellar).treasuryAddress();
    const into = await stellarCustomerPayment(stack.info, { account: treasury, memo: null }, '7');
    const inLegs = await eventually('the transfer in confirmed and booked', 60_000, () => bookedWhenConfirmed(stellar, into));
    assert.deepEqual(inLegs.map((l) => [l.symbol, l.direction, l.amountUnits]), [['USDC', 'in', '70000000']]);
    const out = await stellarPayment(stack.info, stack.env.STELLAR_TREASURY_SECRET!, { account: await newStellarUsdcAccount(stack.info), memo: null }, '2');
    const outLegs = await eventually('the transfer out confirmed and booked', 60_000, () => bookedWhenConfirmed(stellar, out));
    assert.deepEqual(outLegs.map((l) => [l.symbol, l.direction, l.amountUnits]), [['USDC', 'out', '20000000']]);
    await recordManualFloatTransfer(services, { chainId: stellar, txHash: out });
    assert.equal(Number((await services.knex('ledger_entries').where('ref', 'like', `float-transfer:${stellar}:%`).count<{ count: string }[]>('* as count'))[0]!.count), 2, 'each leg booked once');
    // Other files' Stellar payouts and refunds may be on their way from this treasury: compared once none is.
    const stellarTreasury = await eventually('the Stellar treasury settled', 60_000, async () =>
      (await reconcileLedger(services)).accounts.find((a) => a.kind === 'treasury' && a.chainId === stellar && !isNativeToken(a.tokenAddress) && !a.inFlight));
    assert.equal(stellarTreasury.difference, 0n, 'the treasury equals its books with both legs booked');
  });

  /** Books the transfer once it is confirmed (undefined until then, for `eventually`). */
  const bookedWhenConfirmed = (chainId: number, txHash: string) =>
    recordManualFloatTransfer(services, { chainId, txHash }).catch((err: unknown) => {
      if (err instanceof FloatTransferNotFound) return undefined;
      throw err;
    });

  it('reconcile balances afterwards: every treasury equals the ledger, no rebalance bridging', async () => {
    // Every treasury the rebalances moved is settled and equal to its books (other files' open payments may keep
    // their own deposits in flight; reconcile lists those, never fails them).
    const treasuries = (r: Awaited<ReturnType<typeof reconcileLedger>>) => r.accounts.filter((a) => a.kind === 'treasury' && !isNativeToken(a.tokenAddress) && (a.chainId === BASE || a.chainId === ARBITRUM));
    const result = await eventually('the treasuries settled', 120_000, async () => {
      const r = await reconcileLedger(services);
      return treasuries(r).some((a) => a.inFlight) ? undefined : r;
    }, 1_000);
    // Tokens only: on this shared stack other files move the native coin behind Payrail's back (reorgs by snapshot,
    // the treasury's own key), which the reconcile-theft file proves reconcile names; the rebalances move tokens.
    const differing = result.accounts.filter((a) => !isNativeToken(a.tokenAddress) && isFailure(a)).map((a) => `${a.kind} ${a.address} of chain ${a.chainId} ${a.tokenAddress}: ${a.difference}`);
    assert.deepEqual(differing, []);
    assert.ok(treasuries(result).length >= 4 && treasuries(result).every((a) => a.difference === 0n), 'Base’s and Arbitrum’s USDC and USDT treasuries equal their books');
    assert.deepEqual(await services.knex('rebalances').where({ status: 'bridging' }).select('id'), []);
    const floats = await describeFloats(services, result);
    assert.ok(floats.some((l) => l.startsWith('chain 8453 treasury float USDC: ')), floats.join('\n'));
    assert.ok(floats.some((l) => l.startsWith('USDC across ') && l.includes('in flight by rebalance 0.0 USDC')), floats.join('\n'));
  });
});
