// The Tron devnet against the real client: tronweb builds, signs (offline, with private keys) and broadcasts;
// every answer is checked for Tron's shapes and for what actually moved.
import assert from 'node:assert/strict';
import { AbiCoder, id as keccakId } from 'ethers';
import { TronWeb, utils as tronUtils, type Types } from 'tronweb';
import { startTronDevnet, type TronDevnet, type TronDevnetAccount } from '../../tools/devnets/tron';
import { HardhatNode } from '../../tools/devnets/evm/devnet';
import { EvmRpc } from '../../tools/devnets/tron/hardhat';

const SUN_PER_TRX = 1_000_000n;
const USDT = 10n ** 6n;
const SOLIDITY_DEPTH = 3;
const FEE_LIMIT = 100_000_000;
const TRANSFER_TOPIC = keccakId('Transfer(address,address,uint256)').slice(2);

type Info = Types.TransactionInfo;
interface Trc20Record {
  transaction_id: string;
  token_info: { symbol: string; address: string; decimals: number; name: string };
  block_timestamp: number;
  from: string;
  to: string;
  type: string;
  value: string;
}
interface Trc20Page { data: Trc20Record[]; success: boolean; meta: { page_size: number; fingerprint?: string; links?: { next: string } } }

describe('Tron devnet (tronweb against the HTTP API)', function () {
  this.timeout(120_000);
  let devnet: TronDevnet;
  let tronWeb: TronWeb;

  before(async function () {
    this.timeout(300_000);
    devnet = await startTronDevnet({ port: 0, blockTimeMs: 200, solidityDepth: SOLIDITY_DEPTH });
    tronWeb = new TronWeb({ fullHost: devnet.fullHost });
    // Reads through contract().at(…) go out as this address; nothing is signed with a default key.
    tronWeb.setAddress(devnet.treasury.address);
  });

  after(async () => {
    await devnet?.stop();
  });

  const hexOf = (address: string): string => tronWeb.address.toHex(address);
  const fee = (): bigint => devnet.contractCallFeeSun;

  async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** The full node's transaction info once the transaction is in a block. */
  const mined = (txID: string): Promise<Info> =>
    until(`${txID} in a block`, async () => {
      const info = await tronWeb.trx.getUnconfirmedTransactionInfo(txID);
      return info.blockNumber === undefined ? undefined : info;
    });

  const headNumber = async (): Promise<number> => (await tronWeb.trx.getCurrentBlock()).block_header.raw_data.number;
  const trx = async (address: string): Promise<bigint> => BigInt(await tronWeb.trx.getUnconfirmedBalance(address));
  /** A read through contract().at(…): the ABI comes from /wallet/getcontract, the call goes to triggerconstantcontract. */
  const readUsdt = async (name: string, ...args: unknown[]): Promise<unknown> => {
    const token = await tronWeb.contract().at(devnet.tokens.USDT.address);
    const method = token.methods[name];
    assert.ok(method, `USDT has no ${name}()`);
    return method(...args).call();
  };
  const usdt = async (address: string): Promise<bigint> => BigInt(String(await readUsdt('balanceOf', address)));

  async function usdtTransfer(from: TronDevnetAccount, to: string, amount: bigint, feeLimit = FEE_LIMIT): Promise<Types.SignedTransaction> {
    const { result, transaction } = await tronWeb.transactionBuilder.triggerSmartContract(
      devnet.tokens.USDT.address,
      'transfer(address,uint256)',
      { feeLimit },
      [
        { type: 'address', value: to },
        { type: 'uint256', value: amount.toString() },
      ],
      from.address,
    );
    assert.equal(result.result, true);
    return tronWeb.trx.sign(transaction, from.privateKey);
  }

  async function sendTrx(from: TronDevnetAccount, to: string, sun: bigint): Promise<string> {
    const tx = await tronWeb.transactionBuilder.sendTrx(to, Number(sun), from.address);
    const sent = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(tx, from.privateKey));
    assert.equal(sent.result, true, JSON.stringify(sent));
    await mined(sent.txid);
    return sent.txid;
  }

  const decodeMessage = (hex: string): string => tronWeb.toUtf8(hex);

  it('starts with Tron-shaped blocks, the funded treasury and customer, and USDT', async () => {
    assert.equal(devnet.chainId, 728126428);
    const head = await tronWeb.trx.getCurrentBlock();
    const { number, timestamp, parentHash } = head.block_header.raw_data;
    assert.equal(head.blockID.slice(0, 16), number.toString(16).padStart(16, '0'));
    const parent = await tronWeb.trx.getBlockByNumber(number - 1);
    assert.equal(parentHash, parent.blockID);
    assert.ok(timestamp > parent.block_header.raw_data.timestamp, 'block timestamps are ms and increasing');
    assert.match(head.block_header.raw_data.witness_address, /^41[0-9a-f]{40}$/);

    const parameters = await tronWeb.trx.getChainParameters();
    assert.deepEqual(parameters.find((p) => p.key === 'getDevnetContractCallFee'), { key: 'getDevnetContractCallFee', value: Number(fee()) });

    assert.equal(await trx(devnet.customer.address), 10_000n * SUN_PER_TRX);
    // The treasury paid the flat fee for the three mints it signed (USDT twice, TUSD once).
    assert.equal(await trx(devnet.treasury.address), 1_000_000n * SUN_PER_TRX - 3n * fee());
    assert.equal(await usdt(devnet.customer.address), 10_000n * USDT);
    assert.equal(await usdt(devnet.treasury.address), 1_000_000n * USDT);
    assert.equal(await readUsdt('symbol'), 'USDT');
    assert.equal(Number(await readUsdt('decimals')), devnet.tokens.USDT.decimals);

    // Neither bandwidth nor energy is modelled: every account reports none (contract calls burn the flat fee).
    assert.deepEqual(await tronWeb.trx.getAccountResources(devnet.customer.address), {
      freeNetUsed: 0,
      freeNetLimit: 0,
      NetUsed: 0,
      NetLimit: 0,
      EnergyUsed: 0,
      EnergyLimit: 0,
    });
    assert.equal(Number(await tronWeb.trx.getBandwidth(devnet.customer.address)), 0);

    const account = await tronWeb.trx.getUnconfirmedAccount(devnet.customer.address);
    assert.deepEqual(account, { address: hexOf(devnet.customer.address), balance: 10_000_000_000, assetV2: [{ key: devnet.otherAssets.TRC10.id, value: 1_000_000_000_000 }] });
    assert.deepEqual(await tronWeb.trx.getUnconfirmedAccount(tronUtils.accounts.generateAccount().address.base58), {});
  });

  it('moves TRX with TransferContracts from /wallet/createtransaction and from tronweb, signed offline', async () => {
    const fresh = tronUtils.accounts.generateAccount().address.base58;
    const customerBefore = await trx(devnet.customer.address);

    const built = await tronWeb.fullNode.request<Types.Transaction<Types.TransferContract>>(
      'wallet/createtransaction',
      { owner_address: devnet.customer.address, to_address: fresh, amount: 25_000_000, visible: true },
      'post',
    );
    assert.equal(built.visible, true);
    assert.equal(built.raw_data.contract[0]?.parameter.value.to_address, fresh);
    // trx.sign re-encodes raw_data and refuses the transaction unless txID and raw_data_hex match it.
    const first = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(built, devnet.customer.privateKey));
    assert.deepEqual({ result: first.result, txid: first.txid }, { result: true, txid: built.txID });
    const second = await sendTrx(devnet.customer, fresh, 1_500_000n);

    const info = await mined(built.txID);
    assert.equal(info.id, built.txID);
    assert.equal(info.fee, undefined, 'bandwidth is free on the devnet');
    const block = await tronWeb.trx.getBlockByNumber(info.blockNumber);
    assert.equal(info.blockTimeStamp, block.block_header.raw_data.timestamp);
    assert.ok(block.transactions?.some((t) => t.txID === built.txID));

    const tx = await tronWeb.trx.getTransaction(built.txID);
    assert.equal(tx.ret[0]?.contractRet, 'SUCCESS');
    assert.deepEqual(tx.raw_data.contract[0]?.parameter.value, {
      owner_address: hexOf(devnet.customer.address),
      to_address: hexOf(fresh),
      amount: 25_000_000,
    });
    assert.equal((await tronWeb.trx.getTransaction(second)).ret[0]?.contractRet, 'SUCCESS');

    assert.equal(await trx(fresh), 26_500_000n);
    assert.equal(await trx(devnet.customer.address), customerBefore - 26_500_000n);
  });

  it('moves TRC-10 tokens with TransferAssetContracts (transferasset), and TRC-20s of any contract; a block’s transaction infos come in one call', async () => {
    const holder = tronUtils.accounts.generateAccount();
    const fresh = holder.address.base58;
    const { id } = devnet.otherAssets.TRC10;
    const built = await tronWeb.transactionBuilder.sendToken(fresh, 2_500_000, id, devnet.customer.address);
    const sent = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(built, devnet.customer.privateKey));
    assert.equal(sent.result, true, JSON.stringify(sent));
    const assetInfo = await mined(sent.txid);
    const tx = await tronWeb.trx.getTransaction(sent.txid);
    assert.equal(tx.raw_data.contract[0]?.type, 'TransferAssetContract');
    assert.deepEqual(tx.raw_data.contract[0]?.parameter.value, { owner_address: hexOf(devnet.customer.address), to_address: hexOf(fresh), asset_name: Buffer.from(id).toString('hex'), amount: 2_500_000 });
    assert.equal(tx.ret[0]?.contractRet, 'SUCCESS');
    assert.deepEqual((await tronWeb.trx.getUnconfirmedAccount(fresh)).assetV2, [{ key: id, value: 2_500_000 }]);
    const tooMuch = await tronWeb.transactionBuilder.sendToken(devnet.customer.address, 2_500_001, id, fresh);
    const refused = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(tooMuch, holder.privateKey));
    assert.deepEqual([refused.code, decodeMessage(refused.message)], ['CONTRACT_VALIDATE_ERROR', 'Contract validate error : assetBalance is not sufficient.']);

    const { transaction } = await tronWeb.transactionBuilder.triggerSmartContract(devnet.otherAssets.TUSD.address, 'transfer(address,uint256)', { feeLimit: FEE_LIMIT }, [
      { type: 'address', value: fresh },
      { type: 'uint256', value: '7000000' },
    ], devnet.customer.address);
    const tusd = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(transaction, devnet.customer.privateKey));
    const info = await mined(tusd.txid);
    assert.equal(info.log?.[0]?.topics[0], TRANSFER_TOPIC);
    assert.equal(info.log?.[0]?.address, hexOf(devnet.otherAssets.TUSD.address).slice(2));

    for (const [blockNumber, txID] of [[assetInfo.blockNumber, sent.txid], [info.blockNumber, tusd.txid]] as const) {
      const infos = await tronWeb.fullNode.request<Info[]>('wallet/gettransactioninfobyblocknum', { num: blockNumber }, 'post');
      const block = await tronWeb.trx.getBlockByNumber(blockNumber);
      assert.deepEqual(infos.map((i) => i.id), (block.transactions ?? []).map((t) => t.txID), 'one info per transaction, in the block’s order');
      assert.deepEqual(infos.find((i) => i.id === txID), await tronWeb.trx.getUnconfirmedTransactionInfo(txID));
    }
    assert.deepEqual(await tronWeb.fullNode.request('wallet/gettransactioninfobyblocknum', { num: (await headNumber()) + 1_000 }, 'post'), []);
  });

  it('transfers USDT built with triggerSmartContract, signed with trx.sign, sent with sendRawTransaction', async () => {
    const fresh = tronUtils.accounts.generateAccount().address.base58;
    const [usdtBefore, trxBefore] = [await usdt(devnet.customer.address), await trx(devnet.customer.address)];

    const signed = await usdtTransfer(devnet.customer, fresh, 1_234_500n);
    const sent = await tronWeb.trx.sendRawTransaction(signed);
    assert.deepEqual({ result: sent.result, txid: sent.txid }, { result: true, txid: signed.txID });

    const info = await mined(sent.txid);
    assert.equal(info.receipt.result, 'SUCCESS');
    assert.equal(info.result, undefined);
    assert.equal(BigInt(info.fee), fee());
    assert.equal(BigInt(info.receipt.energy_fee), fee());
    assert.equal(info.contract_address, hexOf(devnet.tokens.USDT.address));
    assert.deepEqual(info.contractResult, ['1'.padStart(64, '0')]);
    assert.deepEqual(info.log, [
      {
        address: hexOf(devnet.tokens.USDT.address).slice(2),
        topics: [TRANSFER_TOPIC, hexOf(devnet.customer.address).slice(2).padStart(64, '0'), hexOf(fresh).slice(2).padStart(64, '0')],
        data: 1_234_500n.toString(16).padStart(64, '0'),
      },
    ]);

    assert.equal(await usdt(fresh), 1_234_500n);
    assert.equal(await usdt(devnet.customer.address), usdtBefore - 1_234_500n);
    assert.equal(await trx(devnet.customer.address), trxBefore - fee());
    // The same read as a raw triggerconstantcontract.
    const read = await tronWeb.transactionBuilder.triggerConstantContract(devnet.tokens.USDT.address, 'balanceOf(address)', {}, [
      { type: 'address', value: fresh },
    ]);
    assert.deepEqual(read.constant_result, [1_234_500n.toString(16).padStart(64, '0')]);
  });

  it('records a reverted call as REVERT in its block, charges the fee and moves no tokens', async () => {
    const [usdtBefore, trxBefore] = [await usdt(devnet.customer.address), await trx(devnet.customer.address)];
    const signed = await usdtTransfer(devnet.customer, devnet.treasury.address, usdtBefore + 1n);
    const sent = await tronWeb.trx.sendRawTransaction(signed);
    assert.equal(sent.result, true);

    const info = await mined(sent.txid);
    assert.equal(info.receipt.result, 'REVERT');
    assert.equal(info.result, 'FAILED');
    assert.equal(decodeMessage(info.resMessage), 'REVERT opcode executed');
    const reason = info.contractResult[0] ?? '';
    assert.equal(reason.slice(0, 8), '08c379a0');
    assert.deepEqual(AbiCoder.defaultAbiCoder().decode(['string'], `0x${reason.slice(8)}`).toArray(), ['TestStablecoin: transfer exceeds balance']);
    assert.equal(info.log, undefined);
    assert.equal((await tronWeb.trx.getTransaction(sent.txid)).ret[0]?.contractRet, 'REVERT');
    assert.equal(await usdt(devnet.customer.address), usdtBefore);
    assert.equal(await trx(devnet.customer.address), trxBefore - fee());
  });

  it('refuses a transaction signed by the wrong key, or altered after signing, with SIGERROR; nothing moves', async () => {
    const fresh = tronUtils.accounts.generateAccount().address.base58;
    const [usdtBefore, trxBefore] = [await usdt(devnet.customer.address), await trx(devnet.customer.address)];

    const { transaction } = await tronWeb.transactionBuilder.triggerSmartContract(
      devnet.tokens.USDT.address,
      'transfer(address,uint256)',
      { feeLimit: FEE_LIMIT },
      [
        { type: 'address', value: fresh },
        { type: 'uint256', value: '5000000' },
      ],
      devnet.customer.address,
    );
    // tronweb will not sign with a key that does not own the transaction, so sign with the low-level helper.
    await assert.rejects(tronWeb.trx.sign(transaction, devnet.treasury.privateKey), /Private key does not match/);
    const forged = tronUtils.crypto.signTransaction(devnet.treasury.privateKey, structuredClone(transaction));
    const refused = await tronWeb.trx.sendRawTransaction(forged);
    assert.equal(refused.result, undefined);
    assert.equal(refused.code, 'SIGERROR');
    assert.equal(refused.txid, transaction.txID);
    assert.match(decodeMessage(refused.message), new RegExp(`^Validate signature error: .* is signed by ${hexOf(devnet.treasury.address)} but it is not contained of permission\\.$`));

    // Signed by the owner, then the amount raised: the signature no longer covers the txID of the raw_data.
    const tx = await tronWeb.transactionBuilder.sendTrx(fresh, 1_000_000, devnet.customer.address);
    const signed = await tronWeb.trx.sign(tx, devnet.customer.privateKey);
    const contract = signed.raw_data.contract[0];
    assert.ok(contract);
    contract.parameter.value.amount = 9_000_000_000;
    const altered = await tronWeb.trx.sendRawTransaction(signed);
    assert.equal(altered.code, 'SIGERROR');
    assert.notEqual(altered.txid, tx.txID);

    // Two more blocks: neither transaction was queued.
    const head = await headNumber();
    await until('two more blocks', async () => ((await headNumber()) >= head + 2 ? true : undefined));
    await assert.rejects(tronWeb.trx.getTransaction(transaction.txID), /Transaction not found/);
    assert.deepEqual(await tronWeb.trx.getUnconfirmedAccount(fresh), {});
    assert.equal(await usdt(fresh), 0n);
    assert.equal(await usdt(devnet.customer.address), usdtBefore);
    assert.equal(await trx(devnet.customer.address), trxBefore);
  });

  it('refuses duplicate, expired and wrongly referenced (TaPoS) transactions', async () => {
    const fresh = tronUtils.accounts.generateAccount().address.base58;
    const tx = await tronWeb.transactionBuilder.sendTrx(fresh, 2_000_000, devnet.customer.address);
    const signed = await tronWeb.trx.sign(tx, devnet.customer.privateKey);
    assert.equal((await tronWeb.trx.sendRawTransaction(signed)).result, true);
    const pendingDuplicate = await tronWeb.trx.sendRawTransaction(signed);
    assert.equal(pendingDuplicate.code, 'DUP_TRANSACTION_ERROR');
    assert.equal(decodeMessage(pendingDuplicate.message), 'Dup transaction.');
    await mined(signed.txID);
    assert.equal((await tronWeb.trx.sendRawTransaction(signed)).code, 'DUP_TRANSACTION_ERROR');
    assert.equal(await trx(fresh), 2_000_000n);

    const { ref_block_bytes, ref_block_hash } = await tronWeb.trx.getCurrentRefBlockParams();
    const now = Date.now();
    const expired = await tronWeb.transactionBuilder.sendTrx(fresh, 1_000_000, devnet.customer.address, {
      blockHeader: { ref_block_bytes, ref_block_hash, expiration: now - 1_000, timestamp: now - 61_000 },
    });
    const late = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(expired, devnet.customer.privateKey));
    assert.equal(late.code, 'TRANSACTION_EXPIRATION_ERROR');
    assert.equal(decodeMessage(late.message), 'Transaction expired');

    const unknownRef = await tronWeb.transactionBuilder.sendTrx(fresh, 1_000_000, devnet.customer.address, {
      blockHeader: { ref_block_bytes, ref_block_hash: 'ffffffffffffffff', expiration: now + 60_000, timestamp: now },
    });
    const tapos = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(unknownRef, devnet.customer.privateKey));
    assert.equal(tapos.code, 'TAPOS_ERROR');
    assert.equal(decodeMessage(tapos.message), 'Tapos check error.');
    assert.equal(await trx(fresh), 2_000_000n);
  });

  it('reports transaction info on the full node at once and on the solidity node once the block is deep enough', async () => {
    const fresh = tronUtils.accounts.generateAccount().address.base58;
    const sent = await tronWeb.trx.sendRawTransaction(await usdtTransfer(devnet.customer, fresh, 777n));
    const info = await mined(sent.txid);

    let sawUnsolidified = false;
    const solid = await until('the solidified transaction info', async () => {
      const before = await headNumber();
      const confirmed = await tronWeb.trx.getTransactionInfo(sent.txid);
      if (confirmed.blockNumber === undefined) {
        // Empty while the head was less than SOLIDITY_DEPTH blocks past the transaction's block.
        assert.ok(before < info.blockNumber + SOLIDITY_DEPTH, `solidity node hid the transaction at head ${before}`);
        sawUnsolidified = true;
        return undefined;
      }
      assert.ok((await headNumber()) >= info.blockNumber + SOLIDITY_DEPTH);
      return confirmed;
    });
    assert.deepEqual(solid, info);
    assert.equal((await tronWeb.trx.getConfirmedTransaction(sent.txid)).txID, sent.txid);
    assert.ok(sawUnsolidified || (await headNumber()) >= info.blockNumber + SOLIDITY_DEPTH);

    // The solidity node's latest block trails the head by exactly the depth.
    const [head, solidHead] = await until('a head that holds still across two reads', async () => {
      const h1 = await headNumber();
      const s = (await tronWeb.trx.getConfirmedCurrentBlock()).block_header.raw_data.number;
      return (await headNumber()) === h1 ? [h1, s] : undefined;
    });
    assert.equal(solidHead, head - SOLIDITY_DEPTH);
  });

  it('lists the TRC20 transfers of an address the way TronGrid does, page by page', async () => {
    const fresh = tronUtils.accounts.generateAccount().address.base58;
    const txIDs: string[] = [];
    for (const amount of [1n, 2n, 3n]) {
      const sent = await tronWeb.trx.sendRawTransaction(await usdtTransfer(devnet.customer, fresh, amount * USDT));
      assert.equal(sent.result, true);
      txIDs.push(sent.txid);
    }
    const infos = await Promise.all(txIDs.map(mined));
    const expected = txIDs.map((txID, i) => ({
      transaction_id: txID,
      token_info: { symbol: 'USDT', address: devnet.tokens.USDT.address, decimals: 6, name: 'Tether USD' },
      block_timestamp: infos[i]?.blockTimeStamp,
      from: devnet.customer.address,
      to: fresh,
      type: 'Transfer',
      value: (BigInt(i + 1) * USDT).toString(),
    }));
    const list = async (address: string, query: string): Promise<Trc20Page> => {
      const res = await fetch(`${devnet.fullHost}/v1/accounts/${address}/transactions/trc20?${query}`);
      assert.equal(res.status, 200);
      return (await res.json()) as Trc20Page;
    };

    const first = await list(fresh, 'only_to=true&limit=2');
    assert.equal(first.success, true);
    assert.deepEqual(first.data, [expected[2], expected[1]]);
    assert.equal(first.meta.page_size, 2);
    assert.ok(first.meta.fingerprint);
    const nextUrl = new URL(first.meta.links?.next ?? '');
    assert.equal(nextUrl.searchParams.get('fingerprint'), first.meta.fingerprint);
    const second = (await (await fetch(nextUrl)).json()) as Trc20Page;
    assert.deepEqual(second.data, [expected[0]]);
    assert.equal(second.meta.fingerprint, undefined);

    assert.deepEqual((await list(fresh, 'order_by=block_timestamp,asc')).data, expected);
    assert.deepEqual((await list(fresh, 'only_from=true')).data, []);
    assert.deepEqual((await list(fresh, `contract_address=${devnet.treasury.address}`)).data, []);
    assert.deepEqual((await list(fresh, `contract_address=${devnet.tokens.USDT.address}&limit=1`)).data, [expected[2]]);
    const lastTimestamp = infos[2]?.blockTimeStamp ?? 0;
    assert.deepEqual(
      (await list(fresh, `min_timestamp=${lastTimestamp}`)).data,
      [...expected].reverse().filter((r) => (r.block_timestamp ?? 0) >= lastTimestamp),
    );
    assert.deepEqual((await list(devnet.customer.address, 'only_from=true&limit=1')).data, [expected[2]]);
    const bad = await fetch(`${devnet.fullHost}/v1/accounts/not-an-address/transactions/trc20`);
    assert.equal(bad.status, 400);
  });

  it('a deposit address holding USDT but no TRX cannot sweep until the treasury sends it TRX', async () => {
    const deposit = tronUtils.accounts.generateAccount();
    const depositAccount = { address: deposit.address.base58, privateKey: deposit.privateKey };
    const paid = await tronWeb.trx.sendRawTransaction(await usdtTransfer(devnet.customer, depositAccount.address, 5n * USDT));
    assert.equal((await mined(paid.txid)).receipt.result, 'SUCCESS');
    assert.deepEqual(await tronWeb.trx.getUnconfirmedAccount(depositAccount.address), {}, 'USDT alone does not make a Tron account');
    const treasuryUsdt = await usdt(devnet.treasury.address);

    const sweep = (): Promise<Types.SignedTransaction> => usdtTransfer(depositAccount, devnet.treasury.address, 5n * USDT);
    const refused = await tronWeb.trx.sendRawTransaction(await sweep());
    assert.equal(refused.code, 'CONTRACT_VALIDATE_ERROR');
    assert.match(decodeMessage(refused.message), /^Contract validate error : Validate TriggerSmartContract error, balance is not sufficient/);
    assert.equal(await usdt(depositAccount.address), 5n * USDT);
    assert.equal(await usdt(devnet.treasury.address), treasuryUsdt);

    // The treasury tops the deposit up with exactly the fee of one call.
    await sendTrx(devnet.treasury, depositAccount.address, fee());
    assert.equal(await trx(depositAccount.address), fee());
    const swept = await tronWeb.trx.sendRawTransaction(await sweep());
    assert.equal(swept.result, true, JSON.stringify(swept));
    const info = await mined(swept.txid);
    assert.equal(info.receipt.result, 'SUCCESS');
    assert.equal(BigInt(info.fee), fee());
    assert.equal(await usdt(depositAccount.address), 0n);
    assert.equal(await usdt(devnet.treasury.address), treasuryUsdt + 5n * USDT);
    assert.equal(await trx(depositAccount.address), 0n);
  });

  it('a call whose fee_limit is below the flat fee runs out of energy in its block and burns the fee_limit', async () => {
    const fresh = tronUtils.accounts.generateAccount().address.base58;
    const [usdtBefore, trxBefore] = [await usdt(devnet.customer.address), await trx(devnet.customer.address)];
    const feeLimit = 1_000_000;
    assert.ok(BigInt(feeLimit) < fee());
    const sent = await tronWeb.trx.sendRawTransaction(await usdtTransfer(devnet.customer, fresh, USDT, feeLimit));
    assert.equal(sent.result, true);
    const info = await mined(sent.txid);
    assert.equal(info.receipt.result, 'OUT_OF_ENERGY');
    assert.equal(info.result, 'FAILED');
    assert.equal(info.fee, feeLimit);
    assert.equal(info.log, undefined);
    assert.equal((await tronWeb.trx.getTransaction(sent.txid)).ret[0]?.contractRet, 'OUT_OF_ENERGY');
    assert.equal(await usdt(fresh), 0n);
    assert.equal(await usdt(devnet.customer.address), usdtBefore);
    assert.equal(await trx(devnet.customer.address), trxBefore - BigInt(feeLimit));
  });
});

describe('Tron devnet on a hardhat node it is given', function () {
  this.timeout(300_000);

  it('sets up on the given node (1 sun = 10^12 wei there) and leaves the node running when it stops', async () => {
    const hardhat = await HardhatNode.start({ chainId: 728126428, name: 'Tron', port: 0 }, { blockTimeMs: 0 });
    try {
      const devnet = await startTronDevnet({ port: 0, blockTimeMs: 200, hardhatRpcUrl: hardhat.rpcUrl });
      const rpc = new EvmRpc(hardhat.rpcUrl);
      try {
        const tronWeb = new TronWeb({ fullHost: devnet.fullHost });
        const customer = tronWeb.address.toHex(devnet.customer.address);
        assert.equal(BigInt(await tronWeb.trx.getUnconfirmedBalance(devnet.customer.address)), 10_000n * SUN_PER_TRX);
        // The same TRX seen from the EVM side: 10,000 TRX = 10^10 sun = 10^22 wei.
        assert.equal(BigInt(await rpc.call<string>('eth_getBalance', [`0x${customer.slice(2)}`, 'latest'])), 10_000n * 10n ** 18n);
        const read = await tronWeb.transactionBuilder.triggerConstantContract(
          devnet.tokens.USDT.address,
          'balanceOf(address)',
          {},
          [{ type: 'address', value: devnet.customer.address }],
          devnet.customer.address,
        );
        assert.deepEqual(read.constant_result, [(10_000n * USDT).toString(16).padStart(64, '0')]);
      } finally {
        await devnet.stop();
      }
      assert.equal(Number(await rpc.call<string>('eth_chainId')), 728126428);
    } finally {
      await hardhat.stop();
    }
  });
});
