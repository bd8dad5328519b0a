/**
 * A rebalance's bridge steps move money only on the rebalance row's terms: whoever can start a `rebalance-<id>` run
 * or call its activities cannot move another amount, to another chain, of another token, or after it ended.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { intentKeys, type TransferRequest } from '../../domain/chain-txs';
import { assertTransferOnTerms, TransferRefused } from '../../services/money-terms';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';

const [ARBITRUM, BASE] = [42161, 8453];

describe('attacks on rebalance terms', function () {
  this.timeout(300_000);
  let services: StackServices;
  let id: string;
  let burn: TransferRequest;

  before(async function () {
    this.timeout(300_000);
    services = await connectServices(await getStack());
    id = randomUUID();
    // Routed from Arbitrum's USDT (no USDT rebalance runs in these tests' other files at once).
    await services.knex('rebalances').insert({ id, token_symbol: 'USDT', from_chain_id: ARBITRUM, to_chain_id: BASE, amount_units: '5000000', status: 'bridging' });
    burn = {
      intentKey: intentKeys.rebalanceBurn(id), paymentId: null, chainId: ARBITRUM, tokenAddress: services.chains.registry.token(ARBITRUM, 'USDT').address,
      recipient: '0x0000000000000000000000000000000000000001', amountUnits: '5000000', from: 'bridge-burn',
    };
  });
  after(async () => {
    await services?.knex('rebalances').where({ id }).delete();
    await services?.close();
  });

  const refused = (request: TransferRequest, reason: RegExp) => assert.rejects(assertTransferOnTerms(services, request), (err: unknown) => err instanceof TransferRefused && reason.test(err.message));

  it('the rebalance’s own steps pass: approval and start on the source chain, mint of its amount on the destination', async () => {
    await assertTransferOnTerms(services, burn);
    await assertTransferOnTerms(services, { ...burn, intentKey: intentKeys.rebalanceApprove(id), from: 'bridge-approve', tokenAddress: null, amountUnits: null });
    await assertTransferOnTerms(services, { ...burn, intentKey: intentKeys.rebalanceMint(id), from: 'bridge-mint', chainId: BASE, tokenAddress: services.chains.registry.token(BASE, 'USDT').address });
  });

  it('refuses another amount, chain, token, step, or a payment’s key', async () => {
    await refused({ ...burn, amountUnits: '5000001' }, /amount differs/);
    await refused({ ...burn, chainId: BASE }, /chain differs/);
    await refused({ ...burn, tokenAddress: services.chains.registry.token(ARBITRUM, 'USDC').address }, /token differs/);
    await refused({ ...burn, from: 'bridge-mint' }, /bridge step of no payment/);
    await refused({ ...burn, paymentId: randomUUID() }, /bridge step of no payment/);
    await refused({ ...burn, intentKey: intentKeys.rebalanceBurn(randomUUID()) }, /does not exist/);
  });

  it('refuses every step once the rebalance has ended', async () => {
    await services.knex('rebalances').where({ id }).update({ status: 'completed' });
    await refused(burn, /rebalance is completed/);
  });
});
