import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { keyPairFromSeed, mnemonicToPrivateKey, sha256_sync, type KeyPair } from '@ton/crypto';
import {
  Address, Cell, JettonMaster, SendMode, TonClient, WalletContractV4, WalletContractV5R1, beginCell, comment, external, internal,
  storeMessage, toNano,
  type MessageRelaxed, type OpenedContract, type Transaction,
} from '@ton/ton';
import { startTonDevnet, type TonDevnet } from '../../tools/devnets/ton';

const USDT = (whole: bigint, micro = 0n) => whole * 1_000_000n + micro;
const OP_JETTON_TRANSFER = 0x0f8a7ea5;
const OP_INTERNAL_TRANSFER = 0x178d4519;
const OP_TRANSFER_NOTIFICATION = 0x7362d09c;
const OP_EXCESSES = 0xd53276db;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(100);
  }
}

type Wallet = OpenedContract<WalletContractV4> | OpenedContract<WalletContractV5R1>;

/** Signs and sends one transfer, then waits until the wallet's seqno shows it was included. */
async function transfer(wallet: Wallet, key: KeyPair, messages: MessageRelaxed[], sendMode = SendMode.PAY_GAS_SEPARATELY): Promise<void> {
  const seqno = await wallet.getSeqno();
  await wallet.sendTransfer({ seqno, secretKey: key.secretKey, messages, sendMode });
  await waitFor(`seqno ${seqno + 1} of ${wallet.address.toString()}`, async () => ((await wallet.getSeqno()) > seqno ? true : undefined));
}

/** A deposit wallet as the payment service derives it: a key from a seed, never deployed before its first sweep. */
function depositWallet(label: string): { key: KeyPair; contract: WalletContractV4 } {
  const key = keyPairFromSeed(sha256_sync(`payrail-ton-devnet-test/${label}`));
  return { key, contract: WalletContractV4.create({ workchain: 0, publicKey: key.publicKey }) };
}

function jettonTransferBody(args: { amount: bigint; to: Address; responseTo: Address; forwardTon: bigint; text?: string }): Cell {
  return beginCell()
    .storeUint(OP_JETTON_TRANSFER, 32)
    .storeUint(0, 64)
    .storeCoins(args.amount)
    .storeAddress(args.to)
    .storeAddress(args.responseTo)
    .storeBit(false) // no custom payload
    .storeCoins(args.forwardTon)
    .storeMaybeRef(args.text === undefined ? null : comment(args.text))
    .endCell();
}

/** Reads a TEP-74 forward payload (Either Cell ^Cell) as a text comment. */
function forwardComment(slice: ReturnType<Cell['beginParse']>): string | null {
  const payload = slice.loadBit() ? slice.loadRef().beginParse() : slice;
  if (payload.remainingBits < 32 || payload.loadUint(32) !== 0) return null;
  return payload.loadStringTail();
}

function commentOf(tx: Transaction): string | null {
  const body = tx.inMessage?.body.beginParse();
  if (!body || body.remainingBits < 32 || body.loadUint(32) !== 0) return null;
  return body.loadStringTail();
}

function internalSource(tx: Transaction): Address | undefined {
  const info = tx.inMessage?.info;
  return info?.type === 'internal' ? info.src : undefined;
}

function internalValue(tx: Transaction): bigint {
  const info = tx.inMessage?.info;
  return info?.type === 'internal' ? info.value.coins : 0n;
}

describe('TON devnet: toncenter v2 over @ton/sandbox, used through TonClient', function () {
  this.timeout(120_000);
  let dir: string;
  let stateFile: string;
  let devnet: TonDevnet;
  let client: TonClient;
  let usdt: OpenedContract<JettonMaster>;
  let treasuryKey: KeyPair;
  let customerKey: KeyPair;
  let treasury: OpenedContract<WalletContractV5R1>;
  let customer: OpenedContract<WalletContractV5R1>;

  async function connect(): Promise<void> {
    client = new TonClient({ endpoint: devnet.endpoint });
    usdt = client.open(JettonMaster.create(Address.parse(devnet.jettons.USDT.master)));
    treasuryKey = await mnemonicToPrivateKey(devnet.treasury.mnemonic);
    customerKey = await mnemonicToPrivateKey(devnet.customer.mnemonic);
    treasury = client.open(WalletContractV5R1.create({ workchain: 0, publicKey: treasuryKey.publicKey }));
    customer = client.open(WalletContractV5R1.create({ workchain: 0, publicKey: customerKey.publicKey }));
  }

  const start = async () => {
    devnet = await startTonDevnet({ port: 0, stateFile, blockTimeMs: 200, logFile: join(dir, 'ton-devnet.log') });
    await connect();
  };

  /** A REST call the way toncenter serves them beside /jsonRPC. */
  async function rest(method: string, query: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
    const url = new URL(devnet.endpoint.replace(/jsonRPC$/, method));
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const res = await fetch(url);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /** USDT balance through the minter's get_wallet_address and the wallet's get_wallet_data. */
  async function usdtBalance(owner: Address): Promise<{ wallet: Address; balance: bigint; deployed: boolean }> {
    const wallet = await usdt.getWalletAddress(owner);
    const data = await client.runMethodWithError(wallet, 'get_wallet_data');
    if (data.exit_code !== 0) return { wallet, balance: 0n, deployed: false };
    const balance = data.stack.readBigNumber();
    assert.ok(data.stack.readAddress().equals(owner), 'get_wallet_data owner');
    assert.ok(data.stack.readAddress().equals(usdt.address), 'get_wallet_data master');
    return { wallet, balance, deployed: true };
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ton-devnet-'));
    stateFile = join(dir, 'ton-devnet.json');
    await start();
  });

  after(async () => {
    await devnet?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the funded wallets, their USDT and a masterchain that moves', async () => {
    const customerState = await client.getContractState(customer.address);
    assert.equal(customerState.state, 'active');
    assert.equal(customerState.balance, toNano('10000'));
    assert.equal(customerState.lastTransaction, null, 'the customer has sent nothing yet');
    const info = await rest('getWalletInformation', { address: devnet.customer.address });
    assert.equal(info.status, 200);
    assert.deepEqual(
      { ok: info.body.ok, ...(info.body.result as Record<string, unknown>), last_transaction_id: undefined },
      { ok: true, wallet: true, balance: '10000000000000', extra_currencies: [], account_state: 'active', wallet_type: 'wallet v5 r1', seqno: 0, wallet_id: 2147483409, last_transaction_id: undefined },
    );

    assert.equal(await treasury.getSeqno(), 1, 'the treasury signed the genesis mint');
    const treasuryBalance = await client.getBalance(treasury.address);
    assert.ok(treasuryBalance < toNano('1000000') && treasuryBalance > toNano('999999'), `treasury balance ${treasuryBalance}`);

    const jetton = await usdt.getJettonData();
    assert.equal(jetton.totalSupply, USDT(1_010_000n));
    assert.ok(jetton.adminAddress.equals(treasury.address));
    assert.equal(devnet.jettons.USDT.decimals, 6);
    const customerUsdt = await usdtBalance(customer.address);
    assert.equal(customerUsdt.balance, USDT(10_000n));
    assert.ok(customerUsdt.deployed);
    assert.equal((await usdtBalance(treasury.address)).balance, USDT(1_000_000n));

    const first = await client.getMasterchainInfo();
    assert.equal(first.workchain, -1);
    assert.equal(first.initSeqno, 0);
    const later = await waitFor('two more masterchain blocks', async () => {
      const now = await client.getMasterchainInfo();
      return now.latestSeqno >= first.latestSeqno + 2 ? now : undefined;
    });
    assert.ok(later.latestSeqno > first.latestSeqno);
  });

  it('answers in toncenter\'s envelope on REST and JSON-RPC, errors included', async () => {
    const balance = await rest('getAddressBalance', { address: devnet.customer.address });
    assert.deepEqual(balance, { status: 200, body: { ok: true, result: '10000000000000' } });
    const state = await rest('getAddressState', { address: Address.parse(devnet.customer.address).toRawString() });
    assert.deepEqual(state.body, { ok: true, result: 'active' });
    const bad = await rest('getAddressInformation', { address: 'not-an-address' });
    assert.deepEqual(bad, { status: 416, body: { ok: false, error: 'Incorrect address', code: 416 } });

    const rpc = await fetch(devnet.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'seven', method: 'getConsensusBlock', params: {} }),
    });
    const body = (await rpc.json()) as { ok: boolean; id: string; jsonrpc: string; result: { consensus_block: number; timestamp: number } };
    assert.equal(rpc.status, 200);
    assert.equal(body.ok, true);
    assert.equal(body.id, 'seven');
    assert.equal(body.jsonrpc, '2.0');
    assert.ok(body.result.consensus_block > 0 && body.result.timestamp > 1_600_000_000);

    const unknown = await fetch(devnet.endpoint, { method: 'POST', body: JSON.stringify({ id: 1, method: 'noSuchMethod', params: {} }) });
    assert.equal(unknown.status, 422);
    assert.deepEqual(await unknown.json(), { ok: false, error: 'Unknown method', code: 422, jsonrpc: '2.0', id: 1 });

    // sendBocReturnHash answers with the hash of the message it queued.
    const seqno = await customer.getSeqno();
    const signed = customer.createTransfer({ seqno, secretKey: customerKey.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY, messages: [internal({ to: treasury.address, value: toNano('0.1') })] });
    const message = beginCell().store(storeMessage(external({ to: customer.address, body: signed }))).endCell();
    const sent = await fetch(devnet.endpoint.replace(/jsonRPC$/, 'sendBocReturnHash'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ boc: message.toBoc().toString('base64') }),
    });
    const receipt = (await sent.json()) as { ok: boolean; result: { '@type': string; hash: string; hash_norm: string } };
    assert.equal(receipt.ok, true);
    assert.equal(receipt.result['@type'], 'raw.extMessageInfo');
    assert.equal(receipt.result.hash, message.hash().toString('base64'));
    const included = await waitFor('the transfer sent with sendBocReturnHash', async () => {
      const [tx] = await client.getTransactions(customer.address, { limit: 1 });
      return tx && tx.inMessage?.info.type === 'external-in' ? tx : undefined;
    });
    assert.ok(beginCell().store(storeMessage(included.inMessage!)).endCell().hash().equals(message.hash()));

    // A transfer signed with the wrong key is refused at sendBoc, as a liteserver refuses it.
    const forged = customer.createTransfer({ seqno: seqno + 1, secretKey: treasuryKey.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY, messages: [] });
    await assert.rejects(customer.send(forged), /status code 500/);
    assert.equal(await customer.getSeqno(), seqno + 1);
  });

  it('sends TON with a comment to a fresh address; the transactions land in consecutive blocks', async () => {
    const fresh = new Address(0, sha256_sync('ton-devnet-test/fresh-address'));
    const before = await client.getMasterchainInfo();
    await transfer(customer, customerKey, [internal({ to: fresh, value: toNano('1.5'), bounce: false, body: 'order 42' })]);
    const [payin] = await waitFor('the payin at the fresh address', async () => {
      const txs = await client.getTransactions(fresh, { limit: 10 });
      return txs.length > 0 ? txs : undefined;
    });
    assert.ok(payin);
    assert.ok(internalSource(payin)?.equals(customer.address));
    assert.equal(internalValue(payin), toNano('1.5'));
    assert.equal(commentOf(payin), 'order 42');
    const state = await client.getContractState(fresh);
    assert.equal(state.state, 'uninitialized');
    assert.equal(state.balance, toNano('1.5'));

    const raw = await rest('getTransactions', { address: fresh.toString(), limit: '1' });
    const [rawTx] = (raw.body.result as { in_msg: { message: string; msg_data: { '@type': string } }; utime: number }[]);
    assert.equal(rawTx?.in_msg.message, 'order 42');
    assert.equal(rawTx?.in_msg.msg_data['@type'], 'msg.dataText');

    const [sent] = await client.getTransactions(customer.address, { limit: 1 });
    assert.ok(sent);
    const out = [...sent.outMessages.values()][0];
    assert.ok(out?.info.type === 'internal');
    assert.ok(payin.lt > sent.lt && payin.now >= sent.now);
    const located = await client.tryLocateResultTx(customer.address, fresh, out.info.createdLt.toString());
    assert.ok(located.hash().equals(payin.hash()));
    const source = await client.tryLocateSourceTx(customer.address, fresh, out.info.createdLt.toString());
    assert.ok(source.hash().equals(sent.hash()));

    // Scan the blocks the way a block watcher does: masterchain seqno → shard blocks → their transactions.
    const after = await client.getMasterchainInfo();
    const where = new Map<string, number>();
    for (let seqno = before.latestSeqno + 1; seqno <= after.latestSeqno; seqno++) {
      for (const shard of await client.getWorkchainShards(seqno)) {
        for (const tx of await client.getShardTransactions(shard.workchain, shard.seqno, shard.shard)) where.set(tx.hash, seqno);
      }
    }
    const sentBlock = where.get(sent.hash().toString('base64'));
    assert.ok(sentBlock !== undefined, 'the customer transaction is in a scanned block');
    assert.equal(where.get(payin.hash().toString('base64')), sentBlock + 1, 'the internal message is delivered in the next block');
    const header = await rest('getBlockHeader', { workchain: '0', shard: '-9223372036854775808', seqno: String(sentBlock) });
    const { gen_utime, start_lt, end_lt } = header.body.result as { gen_utime: number; start_lt: string; end_lt: string };
    assert.equal(gen_utime, sent.now);
    assert.ok(BigInt(start_lt) < sent.lt && sent.lt <= BigInt(end_lt));
    const byTime = await rest('lookupBlock', { workchain: '-1', shard: '-9223372036854775808', unixtime: String(payin.now) });
    assert.ok((byTime.body.result as { seqno: number }).seqno >= sentBlock + 1);
  });

  it('sweeps a native TON payin from a fresh deposit wallet, deployed by its first message', async () => {
    const deposit = depositWallet('ton-payin-1');
    const wallet = client.open(deposit.contract);
    await transfer(customer, customerKey, [internal({ to: wallet.address, value: toNano('2'), bounce: false, body: 'ton payment' })]);
    await waitFor('the payin', async () => ((await client.getBalance(wallet.address)) === toNano('2') ? true : undefined));
    assert.equal((await client.getContractState(wallet.address)).state, 'uninitialized');

    const sweep = [internal({ to: treasury.address, value: 0n, bounce: false, body: 'sweep' })];
    const body = wallet.createTransfer({ seqno: 0, secretKey: deposit.key.secretKey, messages: sweep, sendMode: SendMode.CARRY_ALL_REMAINING_BALANCE });
    const fee = await client.estimateExternalMessageFee(wallet.address, { body, initCode: deposit.contract.init.code, initData: deposit.contract.init.data, ignoreSignature: true });
    assert.equal(fee['@type'], 'query.fees');
    assert.ok(fee.source_fees.gas_fee > 0 && fee.source_fees.in_fwd_fee > 0 && fee.source_fees.fwd_fee > 0, JSON.stringify(fee));

    await transfer(wallet, deposit.key, sweep, SendMode.CARRY_ALL_REMAINING_BALANCE);
    const state = await client.getContractState(wallet.address);
    assert.equal(state.state, 'active');
    assert.equal(state.balance, 0n);
    const received = await waitFor('the sweep at the treasury', async () => {
      const txs = await client.getTransactions(treasury.address, { limit: 5 });
      return txs.find((tx) => internalSource(tx)?.equals(wallet.address));
    });
    assert.equal(commentOf(received), 'sweep');
    const swept = internalValue(received);
    assert.ok(swept < toNano('2') && swept > toNano('1.99'), `swept ${swept}`);
  });

  it('detects a USDT payin with a comment at a fresh deposit, then deploys the deposit on its first sweep to the treasury', async () => {
    const deposit = depositWallet('usdt-payin-1');
    const wallet = client.open(deposit.contract);
    const customerUsdt = await usdtBalance(customer.address);
    const treasuryUsdt = await usdtBalance(treasury.address);
    const depositUsdt = await usdtBalance(wallet.address);
    assert.equal(depositUsdt.deployed, false, 'the deposit has no jetton wallet yet');
    assert.equal((await client.getContractState(wallet.address)).state, 'uninitialized');

    const amount = USDT(25n, 500_000n);
    const forwardTon = toNano('0.02');
    await transfer(customer, customerKey, [internal({
      to: customerUsdt.wallet,
      value: toNano('0.1'),
      body: jettonTransferBody({ amount, to: wallet.address, responseTo: customer.address, forwardTon, text: 'payment 7f3a' }),
    })]);

    // Detection 1: the incoming internal_transfer on the deposit's jetton wallet.
    const incoming = await waitFor('the internal_transfer at the deposit jetton wallet', async () => {
      const [tx] = await client.getTransactions(depositUsdt.wallet, { limit: 1 });
      return tx;
    });
    const transferIn = incoming.inMessage!.body.beginParse();
    assert.equal(transferIn.loadUint(32), OP_INTERNAL_TRANSFER);
    transferIn.loadUintBig(64);
    assert.equal(transferIn.loadCoins(), amount);
    assert.ok(transferIn.loadAddress().equals(customer.address), 'sender is the customer');
    assert.ok(transferIn.loadMaybeAddress()?.equals(customer.address), 'excess goes back to the customer');
    assert.equal(transferIn.loadCoins(), forwardTon);
    assert.equal(forwardComment(transferIn), 'payment 7f3a');
    assert.ok(internalSource(incoming)?.equals(customerUsdt.wallet), 'sent by the customer\'s own jetton wallet');

    // Detection 2: the transfer_notification at the (still undeployed) deposit address.
    const notification = await waitFor('the transfer_notification at the deposit', async () => {
      const [tx] = await client.getTransactions(wallet.address, { limit: 1 });
      return tx;
    });
    const note = notification.inMessage!.body.beginParse();
    assert.equal(note.loadUint(32), OP_TRANSFER_NOTIFICATION);
    note.loadUintBig(64);
    assert.equal(note.loadCoins(), amount);
    assert.ok(note.loadAddress().equals(customer.address));
    assert.equal(forwardComment(note), 'payment 7f3a');
    assert.ok(internalSource(notification)?.equals(depositUsdt.wallet));
    assert.equal(internalValue(notification), forwardTon);

    const received = await usdtBalance(wallet.address);
    assert.ok(received.wallet.equals(depositUsdt.wallet) && received.deployed);
    assert.equal(received.balance, amount);
    assert.equal((await usdtBalance(customer.address)).balance, customerUsdt.balance - amount);
    assert.equal((await client.getContractState(wallet.address)).state, 'uninitialized');

    // Sweep: the treasury pays the gas, the deposit's first external message deploys it and moves the jettons on.
    await transfer(treasury, treasuryKey, [internal({ to: wallet.address, value: toNano('0.1'), bounce: false })]);
    await waitFor('gas at the deposit', async () => ((await client.getBalance(wallet.address)) >= toNano('0.1') ? true : undefined));
    await transfer(wallet, deposit.key, [internal({
      to: depositUsdt.wallet,
      value: toNano('0.05'),
      body: jettonTransferBody({ amount, to: treasury.address, responseTo: treasury.address, forwardTon: 0n }),
    })]);
    assert.equal((await client.getContractState(wallet.address)).state, 'active');
    const swept = await waitFor('the USDT at the treasury', async () => {
      const now = await usdtBalance(treasury.address);
      return now.balance === treasuryUsdt.balance + amount ? now : undefined;
    });
    assert.ok(swept.wallet.equals(treasuryUsdt.wallet));
    assert.equal((await usdtBalance(wallet.address)).balance, 0n);
    const [arrival] = await client.getTransactions(treasuryUsdt.wallet, { limit: 1 });
    assert.ok(arrival && internalSource(arrival)?.equals(depositUsdt.wallet));
    // The last hop: the treasury's jetton wallet returns the unused TON to the response address.
    await waitFor('the excess back at the treasury', async () => {
      const [tx] = await client.getTransactions(treasury.address, { limit: 1 });
      const body = tx?.inMessage?.body.beginParse();
      return tx && internalSource(tx)?.equals(treasuryUsdt.wallet) && body?.loadUint(32) === OP_EXCESSES ? tx : undefined;
    });
  });

  it('pages getTransactions by lt and hash', async () => {
    const all = await client.getTransactions(treasury.address, { limit: 100 });
    assert.ok(all.length >= 4, `treasury has ${all.length} transactions`);
    for (let i = 1; i < all.length; i++) {
      assert.ok(all[i - 1]!.lt > all[i]!.lt && all[i - 1]!.now >= all[i]!.now, 'newest first');
    }
    const paged: Transaction[] = [];
    let page = await client.getTransactions(treasury.address, { limit: 2 });
    while (page.length > 0) {
      paged.push(...page);
      const last = page[page.length - 1]!;
      page = await client.getTransactions(treasury.address, { limit: 2, lt: last.lt.toString(), hash: last.hash().toString('base64') });
    }
    assert.deepEqual(paged.map((tx) => tx.hash().toString('hex')), all.map((tx) => tx.hash().toString('hex')));

    const third = all[2]!;
    const inclusive = await client.getTransactions(treasury.address, { limit: 1, lt: third.lt.toString(), hash: third.hash().toString('base64'), inclusive: true });
    assert.ok(inclusive[0]?.hash().equals(third.hash()));
    const newer = await client.getTransactions(treasury.address, { limit: 100, to_lt: third.lt.toString() });
    assert.deepEqual(newer.map((tx) => tx.lt), [all[0]!.lt, all[1]!.lt]);
    const one = await client.getTransaction(treasury.address, third.lt.toString(), third.hash().toString('base64'));
    assert.ok(one?.hash().equals(third.hash()));
  });

  it('keeps balances, jettons and history across a restart with its state file', async () => {
    const seqnoBefore = (await client.getMasterchainInfo()).latestSeqno;
    const before = {
      treasury: await client.getBalance(treasury.address),
      customer: await client.getBalance(customer.address),
      customerUsdt: (await usdtBalance(customer.address)).balance,
      history: (await client.getTransactions(treasury.address, { limit: 100 })).map((tx) => tx.hash().toString('hex')),
      customerSeqno: await customer.getSeqno(),
    };
    await devnet.stop();
    await start();

    const info = await client.getMasterchainInfo();
    assert.ok(info.latestSeqno >= seqnoBefore, `seqno ${info.latestSeqno} continues from ${seqnoBefore}`);
    assert.deepEqual({
      treasury: await client.getBalance(treasury.address),
      customer: await client.getBalance(customer.address),
      customerUsdt: (await usdtBalance(customer.address)).balance,
      history: (await client.getTransactions(treasury.address, { limit: 100 })).map((tx) => tx.hash().toString('hex')),
      customerSeqno: await customer.getSeqno(),
    }, before);

    // The restored chain keeps producing blocks and accepts new transfers on top of the old state.
    await transfer(customer, customerKey, [internal({ to: treasury.address, value: toNano('1'), body: 'after restart' })]);
    const received = await waitFor('the post-restart transfer', async () => {
      const [tx] = await client.getTransactions(treasury.address, { limit: 1 });
      return tx && commentOf(tx) === 'after restart' ? tx : undefined;
    });
    assert.ok(received.lt > BigInt(0) && (await client.getMasterchainInfo()).latestSeqno > seqnoBefore);
  });

  it('reads the state and last transaction of 10,000 addresses in batches', async () => {
    const addresses = Array.from({ length: 10_000 }, (_, i) => new Address(0, sha256_sync(`ton-devnet-test/scan/${i}`)));
    const funded = addresses.filter((_, i) => i % 40 === 0);
    await transfer(customer, customerKey, funded.map((to) => internal({ to, value: toNano('0.05'), bounce: false })));
    const fundedRaw = new Set(funded.map((a) => `0:${a.hash.toString('hex').toUpperCase()}`));

    // toncenter v3 accountStates: up to 1,000 addresses per call; 200 keeps the query string near 16 KB.
    type V3Account = { address: string; balance: string; status: string; last_transaction_lt: string | null; last_transaction_hash: string | null };
    const scanV3 = async (batch: number, parallel: number): Promise<V3Account[]> => {
      const batches: Address[][] = [];
      for (let i = 0; i < addresses.length; i += batch) batches.push(addresses.slice(i, i + batch));
      const found: V3Account[] = [];
      const worker = async () => {
        for (let next = batches.shift(); next; next = batches.shift()) {
          const url = new URL(`${devnet.apiV3}/accountStates`);
          for (const a of next) url.searchParams.append('address', a.toRawString());
          url.searchParams.set('include_boc', 'false');
          const res = await fetch(url);
          assert.equal(res.status, 200);
          found.push(...((await res.json()) as { accounts: V3Account[] }).accounts);
        }
      };
      await Promise.all(Array.from({ length: parallel }, worker));
      return found;
    };
    await waitFor('every funded address', async () => ((await scanV3(1000, 1)).length === funded.length ? true : undefined));

    const v3Started = performance.now();
    const states = await scanV3(200, 4);
    const v3Ms = performance.now() - v3Started;
    assert.equal(states.length, funded.length, 'only the funded addresses exist');
    for (const s of states) {
      assert.ok(fundedRaw.has(s.address), `${s.address} was funded`);
      assert.equal(s.balance, toNano('0.05').toString());
      assert.equal(s.status, 'uninit');
      assert.ok(s.last_transaction_lt !== null && s.last_transaction_hash !== null);
    }

    // The per-address baseline through plain toncenter v2: one getAddressInformation per address (first 1,000).
    const sample = addresses.slice(0, 1_000);
    const v2Started = performance.now();
    let withHistory = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      for (let next = sample.shift(); next; next = sample.shift()) {
        if ((await client.getContractState(next)).lastTransaction !== null) withHistory++;
      }
    }));
    const v2Ms = performance.now() - v2Started;
    assert.equal(withHistory, 1_000 / 40);

    console.log(`      10,000 addresses (${funded.length} funded): v3 accountStates, 50 calls of 200, in ${v3Ms.toFixed(0)} ms; `
      + `v2 getAddressInformation, 1,000 calls (16 in flight), in ${v2Ms.toFixed(0)} ms`);
    assert.ok(v3Ms < 2_000, `the batched scan took ${v3Ms.toFixed(0)} ms`);
  });
});
