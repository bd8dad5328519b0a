/**
 * The Tron adapter against the Tron devnet started as TronGrid serves production traffic: every request must carry
 * a valid `TRON-PRO-API-KEY`. The key comes from the chains file; without it the devnet refuses the adapter as
 * TronGrid does. A transfer out of a deposit is topped up with what its call burns (read from the chain) and what it
 * did not burn goes back to the treasury; a payout lands for the receiver (its Transfer event names the merchant).
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { TronAdapter, type TronKeys } from '../../chains/tron/adapter';
import { depositAccountXpub, parseDepositAccountXpub } from '../../chains/tron/deposits';
import type { TronChainConfig } from '../../chains/tron/config';
import { chainRegistrySchema } from '../../chains/registry';
import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';
import type { ChainAction, SignedChainTx } from '../../chains/family';
import { startTronDevnet, type TronDevnet } from '../../tools/devnets/tron';
import { newTronAddress } from '../support/tron';
import { eventually } from '../support/poll';

const KEY = 'payrail-trongrid-key';

/** A worker's Tron keys: the treasury's, and a fresh deposit seed with its account's xpub. */
function tronKeys(treasuryPrivateKey: string): TronKeys {
  const depositSeed = randomBytes(32);
  return { treasuryPrivateKey, depositSeed, depositXpub: parseDepositAccountXpub(depositAccountXpub(depositSeed))! };
}

describe('Tron adapter on a devnet that takes TronGrid’s API key', function () {
  this.timeout(300_000);
  let devnet: TronDevnet;
  let adapter: TronAdapter;
  let client: TronWeb;

  const config = (apiKey?: string): TronChainConfig =>
    chainRegistrySchema.parse({
      chains: [
        {
          family: 'tron', chainId: 195, name: 'Tron (devnet)', rpcUrl: devnet.fullHost, confirmations: 1, finalityDepth: 1, ...(apiKey ? { apiKey } : {}),
          feeLimitSun: Number(devnet.contractCallFeeSun) * 2, tokens: { USDT: { ...devnet.tokens.USDT } },
        },
      ],
    }).chains[0] as TronChainConfig;

  before(async function () {
    this.timeout(300_000);
    devnet = await startTronDevnet({ port: 0, blockTimeMs: 300, apiKeys: [KEY] });
    adapter = new TronAdapter(config(KEY), tronKeys(devnet.treasury.privateKey));
    client = new TronWeb({ fullHost: devnet.fullHost, headers: { 'TRON-PRO-API-KEY': KEY } });
  });
  after(async () => devnet?.stop());

  const usdt = (owner: string) => adapter.balanceOf(owner, devnet.tokens.USDT.address);
  // The full node's balance (getBalance reads the solidity node, some blocks behind).
  const trx = async (owner: string) => BigInt(await client.trx.getUnconfirmedBalance(owner));

  /** Signs the action, sends it until it is in a block, and reads it as the outbox does. */
  async function execute(action: ChainAction) {
    const prepared = await adapter.prepare(action);
    const signed: SignedChainTx = await prepared.sign(0);
    const check = await eventually('the transaction landed', 60_000, async () => {
      await adapter.broadcast(signed);
      const found = await adapter.checkTx([signed.txHash], 1, { action, rawTx: signed.rawTx, nonce: 0 });
      return found.state === 'mined' ? found : undefined;
    }, 300);
    return { check, signed, fuel: prepared.fuel };
  }

  it('sends the configured key as TRON-PRO-API-KEY; without it the devnet refuses the adapter, as TronGrid does', async () => {
    assert.ok((await adapter.head()) > 0);
    const keyless = new TronAdapter(config(), tronKeys(devnet.treasury.privateKey));
    await assert.rejects(keyless.head(), /401|ApiKey/);
    const res = await fetch(`${devnet.fullHost}/wallet/getnowblock`, { method: 'POST', headers: { 'TRON-PRO-API-KEY': 'not-a-key' } });
    assert.deepEqual([res.status, await res.json()], [401, { Error: 'ApiKey not exists' }]);
  });

  it('pays out landed for the receiver, and a transfer out of a deposit is topped up with its burn, the rest recovered', async () => {
    const merchant = newTronAddress();
    const payout = await execute({ kind: 'transfer', tokenAddress: devnet.tokens.USDT.address, to: merchant, amountUnits: '2500000' });
    assert.equal(payout.check.state === 'mined' && payout.check.succeeded, true);
    assert.equal(await usdt(merchant), 2_500_000n, 'landed means the merchant holds it');

    // A deposit that holds only tokens: the treasury funds it.
    const paymentId = randomUUID();
    const deposit = adapter.depositAddress(paymentId);
    await execute({ kind: 'transfer', tokenAddress: devnet.tokens.USDT.address, to: deposit, amountUnits: '4000000' });
    const refundTo = newTronAddress();
    const sweep = { kind: 'sweep' as const, paymentId, tokenAddress: devnet.tokens.USDT.address, to: refundTo, amountUnits: '4000000' };
    const cost = await adapter.estimateCost(sweep);
    assert.equal(cost.feeUnits, devnet.contractCallFeeSun, 'the estimate is what the devnet burns per call (its stand-in for energy)');
    const treasury = adapter.treasuryAddress();
    const before = { treasury: await trx(treasury), deposit: await trx(deposit) };
    const swept = await execute(sweep);
    assert.equal(swept.check.state === 'mined' && swept.check.succeeded, true);
    // Its native effects, read from the chain (the top-up's transaction with it): each account's TRX moved by them.
    const effects = await adapter.nativeEffects({ txHash: swept.signed.txHash, rawTx: swept.signed.rawTx });
    const net = (owner: string) => effects.changes.filter((c) => c.address === owner).reduce((sum, c) => sum + c.deltaUnits, 0n) - effects.fees.filter((f) => f.address === owner).reduce((sum, f) => sum + f.units, 0n);
    assert.deepEqual(effects.fees.find((f) => f.address === deposit), { address: deposit, units: devnet.contractCallFeeSun }, 'the deposit burnt its call');
    assert.equal(net(treasury), (await trx(treasury)) - before.treasury, 'the treasury: its top-up and the top-up’s fee');
    assert.equal(net(deposit), (await trx(deposit)) - before.deposit, 'the deposit: the top-up less its burn');
    assert.equal(await adapter.balanceOf(deposit, NATIVE_TOKEN_ADDRESS), await trx(deposit), 'balanceOf reads TRX');
    assert.equal(await usdt(refundTo), 4_000_000n);
    const topUp = BigInt(swept.fuel!.amountUnits);
    assert.ok(topUp > devnet.contractCallFeeSun && topUp <= devnet.contractCallFeeSun * 2n, `topped up with the burn and a margin (${topUp})`);
    const left = await trx(deposit);
    assert.equal(left, topUp - devnet.contractCallFeeSun, 'the deposit kept what the call did not burn');
    assert.equal(await adapter.balanceOf(deposit, NATIVE_TOKEN_ADDRESS), left, 'the adapter reads TRX as reconcile does');

    const recovery = await adapter.recovery(sweep, swept.signed);
    assert.deepEqual(recovery, { kind: 'sweep', paymentId, tokenAddress: NATIVE_TOKEN_ADDRESS, to: adapter.treasuryAddress(), amountUnits: left.toString() });
    const back = await execute(recovery);
    assert.equal(back.check.state === 'mined' && back.check.succeeded, true);
    assert.equal(await trx(deposit), 0n, 'nothing of the top-up stays at the deposit');
    assert.equal(await adapter.balanceOf(deposit, NATIVE_TOKEN_ADDRESS), 0n);

    // Landed means landed for this receiver: the same transaction read for another recipient did not.
    const elsewhere: ChainAction = { kind: 'transfer', tokenAddress: devnet.tokens.USDT.address, to: newTronAddress(), amountUnits: '2500000' };
    const other = await adapter.checkTx([payout.signed.txHash], 1, { action: elsewhere, rawTx: payout.signed.rawTx, nonce: 0 });
    assert.equal(other.state === 'mined' && other.succeeded, false);
  });
});
