/**
 * The TON adapter against the TON devnet (the TVM emulator behind a toncenter front): deposit addresses, payin
 * detection of TON and USDT, sweeps that deploy the deposit wallet, treasury payouts, and address forms.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mnemonicToPrivateKey } from '@ton/crypto';
import { Address, toNano } from '@ton/ton';
import { startTonDevnet, type TonDevnet } from '../../tools/devnets/ton';
import type { ChainAction, DepositAccounts } from '../../chains/family';
import { chainRegistrySchema } from '../../chains/registry';
import { ton } from '../../chains/ton';
import { RecentReads } from '../../chains/recent-reads';
import { TonAdapter } from '../../chains/ton/adapter';
import { storedMessageSeqno } from '../../chains/ton/wallets';
import type { TonChainConfig } from '../../chains/ton/config';
import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';
import type { DetectedPayin } from '../../domain/payins';
import { eventually } from '../support/poll';
import { payJetton, payTon, payTonOutputs, tonPayer, type TonPayer } from '../support/ton';

describe('TON adapter on the TON devnet', function () {
  this.timeout(300_000);
  let devnet: TonDevnet;
  let adapter: TonAdapter;
  let customer: TonPayer;
  let usdt: string;

  before(async () => {
    // The devnet enforces no rate limit: paced as toncenter's Advanced plan allows.
    devnet = await startTonDevnet({ port: 0, blockTimeMs: 400 });
    const treasuryKey = await mnemonicToPrivateKey(devnet.treasury.mnemonic);
    const registry = chainRegistrySchema.parse({
      chains: [{ family: 'ton', chainId: 607, name: 'TON (devnet)', rpcUrl: devnet.endpoint, requestsPerSecond: 100, confirmations: 1, finalityDepth: 1, tokens: { USDT: { address: devnet.jettons.USDT.master, decimals: 6 } }, nativeCurrency: { symbol: 'TON', decimals: 9 } }],
    });
    adapter = new TonAdapter(registry.chains[0] as TonChainConfig, { depositSeed: randomBytes(32), treasurySecretKey: treasuryKey.secretKey });
    customer = await tonPayer(devnet.endpoint, devnet.customer.mnemonic);
    usdt = adapter.config.tokens.USDT!.address;
  });

  after(async () => {
    adapter?.destroy();
    await devnet?.stop();
  });

  /** The deposits' accounts as the watcher records them in PostgreSQL, kept in memory here. */
  function depositAccounts(deposits: Array<{ paymentId: string; tokenAddress: string }>): DepositAccounts {
    const pending = deposits.map((d) => ({ address: adapter.depositAddress(d.paymentId), tokenAddress: d.tokenAddress }));
    const recorded = new Map<string, { address: string; tokenAddress: string }>();
    return {
      unrecorded: () => Promise.resolve(pending.splice(0)),
      record: (list) => {
        for (const d of list) for (const a of d.accounts) recorded.set(a.account, { address: d.address, tokenAddress: a.tokenAddress });
        return Promise.resolve();
      },
      find: (accounts) => Promise.resolve(new Map(accounts.flatMap((a) => (recorded.has(a) ? [[a, recorded.get(a)!] as const] : [])))),
    };
  }

  /** Scans from the start until `match` finds a payin, as the watcher's repeated scans would. */
  async function detect(deposits: Array<{ paymentId: string; tokenAddress: string }>, match: (p: DetectedPayin) => boolean): Promise<DetectedPayin> {
    const accounts = depositAccounts(deposits);
    let fromBlock = 1;
    return eventually('the payin in a scan', 60_000, async () => {
      const toBlock = await adapter.head();
      const payins = await adapter.scanPayins({ fromBlock, toBlock, accounts, heartbeat: () => undefined });
      fromBlock = toBlock + 1;
      return payins.find(match);
    });
  }

  /** Signs with the treasury's current seqno, broadcasts, and waits until the transaction is mined. */
  async function execute(action: ChainAction): Promise<{ succeeded: boolean; txHash: string; rawTx: string }> {
    const prepared = await adapter.prepare(action);
    const signed = await prepared.sign(prepared.chainPendingNonce);
    await adapter.broadcast(signed);
    await adapter.broadcast(signed); // a second broadcast of the same bytes is harmless
    const check = await eventually('the transaction mined', 60_000, async () => {
      const found = await adapter.checkTx([signed.txHash], 1, { action, rawTx: signed.rawTx, nonce: prepared.chainPendingNonce });
      return found.state === 'mined' ? found : undefined;
    });
    return { succeeded: check.succeeded, txHash: signed.txHash, rawTx: signed.rawTx };
  }

  it('derives one deposit address per payment, raw and stable', () => {
    const id = randomUUID();
    assert.equal(adapter.depositAddress(id), adapter.depositAddress(id));
    assert.notEqual(adapter.depositAddress(id), adapter.depositAddress(randomUUID()));
    assert.match(adapter.depositAddress(id), /^0:[0-9a-f]{64}$/);
  });

  it('normalizes raw and user-friendly addresses and refuses malformed ones', () => {
    const address = Address.parse(devnet.customer.address);
    const raw = address.toRawString();
    for (const form of [raw, raw.toUpperCase().replace('0X', '0x'), address.toString(), address.toString({ bounceable: false }), address.toString({ urlSafe: false })]) {
      assert.equal(ton.addresses.normalize(form), raw, form);
    }
    const friendly = address.toString();
    const badChecksum = friendly.slice(0, -1) + (friendly.endsWith('A') ? 'B' : 'A');
    for (const bad of ['', '0:abc', `1:${raw.slice(2)}`, badChecksum, friendly.slice(1), '0x' + 'ab'.repeat(20), 'EQ' + 'A'.repeat(46)]) {
      assert.equal(ton.addresses.normalize(bad), null, bad);
    }
  });

  it('detects TON paid with a comment, sweeps it to the treasury (deploying the deposit wallet), and pays out', async () => {
    const paymentId = randomUUID();
    const deposit = adapter.depositAddress(paymentId);
    await payTon(customer, deposit, toNano('1.5'), 'order 42');
    const payin = await detect([{ paymentId, tokenAddress: NATIVE_TOKEN_ADDRESS }], (p) => p.to === deposit);
    assert.equal(payin.amountUnits, toNano('1.5').toString());
    assert.equal(payin.from, Address.parse(devnet.customer.address).toRawString());
    assert.equal(payin.tokenAddress, NATIVE_TOKEN_ADDRESS);
    const check = await adapter.checkPayin(payin, 1);
    assert.equal(check.state, 'confirmed');

    const treasuryBefore = await adapter.balanceOf(adapter.treasuryAddress(), NATIVE_TOKEN_ADDRESS);
    const sweep = await execute({ kind: 'sweep', paymentId, tokenAddress: NATIVE_TOKEN_ADDRESS, to: adapter.treasuryAddress(), amountUnits: payin.amountUnits });
    assert.equal(sweep.succeeded, true);
    // Mined means landed: the deposit kept only what its own fees left of the gas kept for them, at once.
    const left = await adapter.balanceOf(deposit, NATIVE_TOKEN_ADDRESS);
    assert.ok(left > 0n && left < toNano('0.004'), `the deposit kept ${left}`);
    // The sweep's gas comes back with the payin, less the fees of the transactions involved.
    const gained = (await adapter.balanceOf(adapter.treasuryAddress(), NATIVE_TOKEN_ADDRESS)) - treasuryBefore;
    assert.ok(gained > toNano('1.48') && gained < toNano('1.5'), `the treasury gained ${gained}`);

    const merchant = adapter.depositAddress(randomUUID()); // any fresh, undeployed address
    assert.equal((await execute({ kind: 'transfer', tokenAddress: NATIVE_TOKEN_ADDRESS, to: merchant, amountUnits: toNano('1.2').toString() })).succeeded, true);
    assert.equal(await adapter.balanceOf(merchant, NATIVE_TOKEN_ADDRESS), toNano('1.2'), 'mined means the merchant holds it');
  });

  it('detects a USDT jetton transfer (not its notification), sweeps it onward, and pays USDT out of the treasury', async () => {
    const paymentId = randomUUID();
    const deposit = adapter.depositAddress(paymentId);
    await payJetton(customer, usdt, deposit, 5_000_000n);
    const deposits = [{ paymentId, tokenAddress: usdt }];
    const payin = await detect(deposits, (p) => p.to === deposit && p.tokenAddress === usdt);
    assert.deepEqual({ token: payin.tokenAddress, amount: payin.amountUnits, from: payin.from }, { token: usdt, amount: '5000000', from: Address.parse(devnet.customer.address).toRawString() });
    assert.equal((await adapter.checkPayin(payin, 1)).state, 'confirmed');

    const refundTo = adapter.depositAddress(randomUUID());
    const treasury = adapter.treasuryAddress();
    const coins = (owner: string) => adapter.balanceOf(owner, NATIVE_TOKEN_ADDRESS);
    // The payin's notification (1 nanoton along) reaches the deposit wallet after the jetton wallet's transfer.
    await eventually('the notification delivered', 30_000, async () => ((await coins(deposit)) > 0n ? true : undefined));
    const before = { treasury: await coins(treasury), deposit: await coins(deposit) };
    const sweep = await execute({ kind: 'sweep', paymentId, tokenAddress: usdt, to: refundTo, amountUnits: '5000000' });
    assert.equal(sweep.succeeded, true);
    // Its native effects, read along its message chain (gas sent to the deposit, the jetton wallets' fees, the excess
    // back): each account's TON moved by them.
    const effects = await adapter.nativeEffects(sweep);
    const net = (owner: string) => effects.changes.filter((c) => c.address === owner).reduce((sum, c) => sum + c.deltaUnits, 0n) - effects.fees.filter((f) => f.address === owner).reduce((sum, f) => sum + f.units, 0n);
    assert.equal(net(treasury), (await coins(treasury)) - before.treasury, 'the treasury: its fees, the gas sent along, the excess back');
    assert.equal(net(deposit), (await coins(deposit)) - before.deposit, 'the deposit wallet: the gas it kept less its fees');
    assert.equal(await adapter.balanceOf(refundTo, usdt), 5_000_000n, 'mined means the recipient holds it');
    assert.equal(await adapter.balanceOf(deposit, usdt), 0n);

    const merchant = adapter.depositAddress(randomUUID());
    assert.equal((await execute({ kind: 'transfer', tokenAddress: usdt, to: merchant, amountUnits: '2500000' })).succeeded, true);
    assert.equal(await adapter.balanceOf(merchant, usdt), 2_500_000n, 'mined means the merchant holds it');
  });

  it('finds a treasury transaction behind more than two pages of newer ones, from a process that has read none of them', async () => {
    const merchant = adapter.depositAddress(randomUUID());
    const action: ChainAction = { kind: 'transfer', tokenAddress: NATIVE_TOKEN_ADDRESS, to: merchant, amountUnits: toNano('0.05').toString() };
    const payout = await execute(action);
    // 120 payments into the treasury: its 120 newest transactions are not the payout's.
    const treasury = adapter.treasuryAddress();
    await payTonOutputs(customer, Array.from({ length: 120 }, () => ({ to: treasury, nanotons: toNano('0.01') })));
    const newer = await eventually('the treasury to take the 120 payments', 60_000, async () => {
      const txs = await customer.client.getTransactions(Address.parse(treasury), { limit: 121, archival: true });
      const index = txs.findIndex((tx) => tx.inMessage?.info.type === 'external-in');
      return index >= 120 ? index : undefined;
    });
    assert.ok(newer >= 120, `${newer} treasury transactions after the payout`);

    const fresh = new TonAdapter(adapter.config, { treasurySecretKey: (await mnemonicToPrivateKey(devnet.treasury.mnemonic)).secretKey });
    try {
      const seqno = storedMessageSeqno(payout.rawTx)!;
      const check = await fresh.checkTx([payout.txHash], 1, { action, rawTx: payout.rawTx, nonce: seqno });
      assert.equal(check.state, 'mined');
      assert.equal(check.state === 'mined' && check.succeeded, true);
      assert.equal(await fresh.broadcast({ txHash: payout.txHash, rawTx: payout.rawTx }), 'known', 'a message the chain has is known, not refused');
      const effects = await fresh.nativeEffects(payout);
      assert.ok(effects.changes.some((c) => c.address === merchant && c.deltaUnits === toNano('0.05')), 'the merchant received the payout');
      // Another message of the same seqno is not on chain: the read stops at the seqno's transaction.
      assert.deepEqual(await fresh.checkTx(['00'.repeat(32)], 1, { action, rawTx: payout.rawTx, nonce: seqno }), { state: 'unmined' });
    } finally {
      fresh.destroy();
    }
  });

  it('a message found expired is checked on the chain as it is now: one that landed after a shared page was read is mined, never signed again', async () => {
    // A process whose reads stay shared for a minute: the treasury page it reads before the payout lands stays its
    // answer unless the expiry's read drops it.
    const shared = new TonAdapter(adapter.config, { treasurySecretKey: (await mnemonicToPrivateKey(devnet.treasury.mnemonic)).secretKey }, new RecentReads(60_000));
    try {
      const action: ChainAction = { kind: 'transfer', tokenAddress: NATIVE_TOKEN_ADDRESS, to: adapter.depositAddress(randomUUID()), amountUnits: toNano('0.02').toString() };
      const prepared = await shared.prepare(action);
      const signed = await prepared.sign(prepared.chainPendingNonce);
      const sent = { action, rawTx: signed.rawTx, nonce: prepared.chainPendingNonce };
      assert.deepEqual(await shared.checkTx([signed.txHash], 1, sent), { state: 'unmined' }, 'not sent yet');
      await shared.broadcast(signed);
      await eventually('the payout mined, as another process reads it', 60_000, async () => ((await adapter.checkTx([signed.txHash], 1, sent)).state === 'mined' ? true : undefined));

      const stored = { rawTx: signed.rawTx, txHash: signed.txHash, signer: adapter.treasuryAddress(), nonce: prepared.chainPendingNonce, validUntil: signed.validUntil ?? null };
      assert.equal(await shared.expiry.canLand(stored), false, 'its seqno is taken');
      const check = await shared.checkTx([signed.txHash], 1, sent);
      assert.equal(check.state, 'mined', 'the check after the expiry sees the message that took the seqno');
      assert.equal(check.state === 'mined' && check.succeeded, true);
    } finally {
      shared.destroy();
    }
  });

  it('builds ton://transfer links wallets take: non-bounceable recipient, jetton master for tokens', () => {
    const deposit = adapter.depositAddress(randomUUID());
    const friendly = Address.parse(deposit).toString({ bounceable: false, urlSafe: true });
    assert.equal(adapter.paymentUri({ address: deposit, tokenAddress: NATIVE_TOKEN_ADDRESS, amountUnits: '1500000000' }), `ton://transfer/${friendly}?amount=1500000000`);
    const master = Address.parse(usdt).toString({ urlSafe: true, bounceable: true });
    assert.equal(adapter.paymentUri({ address: deposit, tokenAddress: usdt, amountUnits: '5000000' }), `ton://transfer/${friendly}?jetton=${master}&amount=5000000`);
  });
});
