// The HTTP face of the Tron devnet: the java-tron full-node and solidity-node endpoints a payment service and
// tronweb use, with java-tron's JSON shapes, plus TronGrid's TRC-20 transfer list of an account.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { id as keccakId, type InterfaceAbi } from 'ethers';
import {
  formatAddress,
  formatTransaction,
  InvalidAddress,
  parseAddress,
  rawContract,
  toBase58,
  utf8Hex,
  type TriggerSmartContractValue,
  type TronHex,
  type TronTransaction,
} from './codec';
import {
  BLACK_HOLE,
  BroadcastError,
  MAX_FEE_LIMIT_SUN,
  parseSignedTransaction,
  RequestError,
  type StoredTransaction,
  type TronChain,
} from './chain';
import { InvalidFingerprint } from './trc20';

export interface KnownContract { name: string; abi: InterfaceAbi; origin: TronHex }

export interface ApiDeps {
  chain: TronChain;
  /** Contracts whose name and ABI /wallet/getcontract reports (Tron keeps the ABI on chain; hardhat does not). */
  contracts: Map<TronHex, KnownContract>;
  /**
   * TronGrid's API keys (the `TRON-PRO-API-KEY` header): when given, a request without one of them is refused, as
   * TronGrid refuses keyless and unknown-key requests once it limits them. Absent: every request is served.
   */
  apiKeys?: ReadonlySet<string>;
}

type Params = Record<string, unknown>;
/** Which node answers: the full node reads at the head, the solidity node at the solidified head. */
type View = 'full' | 'solidity';
type Handler = (params: Params, view: View) => Promise<unknown>;

const TRONGRID_TRC20 = /^\/v1\/accounts\/([^/]+)\/transactions\/trc20\/?$/;
const TRONGRID_MAX_LIMIT = 200;
const TRONGRID_DEFAULT_LIMIT = 20;
const BLOCK_VERSION = 31;
const MAX_BODY_BYTES = 1024 * 1024;

const sun = (value: bigint): number => {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${value} sun does not fit a JSON number`);
  return Number(value);
};

function visibleOf(params: Params): boolean {
  return params.visible === true || params.visible === 'true';
}

function address(params: Params, name: string): TronHex {
  if (params[name] === undefined || params[name] === '') throw new RequestError(`${name} isn't set.`);
  return parseAddress(params[name]);
}

function integer(params: Params, name: string, fallback?: number): number {
  const raw = params[name];
  if (raw === undefined || raw === '') {
    if (fallback === undefined) throw new RequestError(`${name} isn't set.`);
    return fallback;
  }
  const value = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new RequestError(`${name} must be a non-negative integer`);
  return value;
}

/** A string parameter; numbers are taken as their decimal text (GET queries and JSON bodies mix both). */
function text(params: Params, name: string): string {
  const value = params[name];
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new RequestError(`${name} must be a string`);
}

function hexParam(params: Params, name: string): string {
  const value = params[name] ?? '';
  if (typeof value !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(value)) throw new RequestError(`${name} must be hex`);
  return value.replace(/^0x/, '').toLowerCase();
}

/** The call data java-tron builds: keccak(function_selector)[0..4] ‖ parameter, or `data` as given. */
function triggerValue(params: Params, ownerRequired: boolean): TriggerSmartContractValue {
  const owner = ownerRequired || params.owner_address ? address(params, 'owner_address') : BLACK_HOLE;
  const selector = params.function_selector;
  const data =
    typeof selector === 'string' && selector !== '' ? keccakId(selector).slice(2, 10) + hexParam(params, 'parameter') : hexParam(params, 'data');
  const callValue = integer(params, 'call_value', 0);
  return {
    owner_address: owner,
    contract_address: address(params, 'contract_address'),
    ...(data === '' ? {} : { data }),
    ...(callValue ? { call_value: callValue } : {}),
  };
}

/** How java-tron prints a TransactionExtention whose result is an error. */
function extentionError(err: unknown): unknown {
  if (err instanceof BroadcastError) return { result: { code: err.code, message: utf8Hex(err.message) } };
  if (err instanceof RequestError || err instanceof InvalidAddress) return { result: { code: 'OTHER_ERROR', message: utf8Hex(err.message) } };
  throw err;
}

/** A transaction in a block, as gettransactionbyid and the block endpoints print it (no `visible` field). */
function minedTransactionJson(stored: StoredTransaction, visible: boolean): unknown {
  const tx = formatTransaction(stored.tx, visible);
  return { ret: [{ contractRet: stored.mined?.outcome }], signature: tx.signature, txID: tx.txID, raw_data: tx.raw_data, raw_data_hex: tx.raw_data_hex };
}

function transactionInfoJson(stored: StoredTransaction, visible: boolean): unknown {
  const mined = stored.mined;
  if (!mined) return {};
  const [contract] = stored.tx.raw_data.contract;
  const isCall = stored.kind === 'call' || stored.kind === 'outOfEnergy';
  const fee = stored.feeSun > 0n ? sun(stored.feeSun) : undefined;
  const failure =
    mined.outcome === 'REVERT'
      ? 'REVERT opcode executed'
      : mined.outcome === 'OUT_OF_ENERGY'
        ? `Not enough energy: fee_limit ${stored.feeSun} sun is below the devnet's flat contract-call fee`
        : undefined;
  return {
    id: stored.tx.txID,
    ...(fee === undefined ? {} : { fee }),
    blockNumber: mined.blockNumber,
    blockTimeStamp: mined.blockTimestamp,
    contractResult: [mined.contractResult],
    ...(isCall && contract && 'contract_address' in contract.parameter.value
      ? { contract_address: formatAddress(contract.parameter.value.contract_address, visible) }
      : {}),
    receipt: { ...(fee === undefined ? {} : { energy_fee: fee }), ...(isCall ? { result: mined.outcome } : {}) },
    ...(mined.logs.length > 0
      ? { log: mined.logs.map((l) => ({ ...l, address: visible ? toBase58(`41${l.address}`) : l.address })) }
      : {}),
    ...(failure === undefined ? {} : { result: 'FAILED', resMessage: utf8Hex(failure) }),
  };
}

/** Tron ABI entries spell type and stateMutability capitalized ("Function", "View"). */
function tronAbi(abi: InterfaceAbi): unknown[] {
  const capitalize = (s: unknown): unknown => (typeof s === 'string' ? s.charAt(0).toUpperCase() + s.slice(1) : s);
  const entries = (typeof abi === 'string' ? JSON.parse(abi) : abi) as Record<string, unknown>[];
  return entries.map((entry) => {
    const { type, stateMutability, inputs, outputs, name, anonymous } = entry;
    const params = (list: unknown) =>
      Array.isArray(list) ? (list as Record<string, unknown>[]).map(({ name: n, type: t, indexed }) => ({ ...(indexed ? { indexed } : {}), name: n, type: t })) : undefined;
    return {
      ...(anonymous ? { anonymous } : {}),
      ...(outputs ? { outputs: params(outputs) } : {}),
      ...(inputs ? { inputs: params(inputs) } : {}),
      ...(name ? { name } : {}),
      ...(stateMutability ? { stateMutability: capitalize(stateMutability) } : {}),
      type: capitalize(type),
    };
  });
}

export function createTronApi({ chain, contracts, apiKeys }: ApiDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const upTo = (view: View): number => (view === 'solidity' ? chain.solidHead : chain.head);

  const blockJson = async (number: number, visible: boolean, detail: boolean): Promise<unknown> => {
    const block = await chain.block(number);
    if (!block) return {};
    const transactions = detail
      ? block.txIDs.flatMap((txID) => {
          const stored = chain.minedTransaction(txID, block.number);
          return stored ? [minedTransactionJson(stored, visible)] : [];
        })
      : [];
    return {
      blockID: block.blockID,
      block_header: {
        raw_data: {
          number: block.number,
          txTrieRoot: block.txTrieRoot,
          witness_address: formatAddress(block.witness, visible),
          parentHash: block.parentID,
          version: BLOCK_VERSION,
          timestamp: block.timestamp,
        },
      },
      ...(transactions.length > 0 ? { transactions } : {}),
    };
  };

  /** `idOrNum`: empty for the latest block, a block number, or a 32-byte block id. */
  const blockByIdOrNum = async (idOrNum: string, view: View, visible: boolean, detail: boolean): Promise<unknown> => {
    if (idOrNum === '') return blockJson(upTo(view), visible, detail);
    if (/^\d+$/.test(idOrNum)) {
      const number = Number(idOrNum);
      return number <= upTo(view) ? blockJson(number, visible, detail) : {};
    }
    if (!/^[0-9a-fA-F]{64}$/.test(idOrNum)) throw new RequestError('expected a block number or a block id');
    const number = parseInt(idOrNum.slice(0, 16), 16);
    if (number > upTo(view)) return {};
    const block = await chain.block(number);
    return block?.blockID === idOrNum.toLowerCase() ? blockJson(number, visible, detail) : {};
  };

  const constantCall: Handler = async (params, view) => {
    try {
      const value = triggerValue(params, false);
      await chain.requireContract(value.contract_address);
      const [tx, call] = await Promise.all([
        chain.buildTransaction(rawContract('TriggerSmartContract', value)),
        chain.constantCall(value, upTo(view)),
      ]);
      const visible = visibleOf(params);
      return {
        // java-tron reports a revert in result.message while result.result stays true.
        result: call.reverted ? { result: true, message: utf8Hex('REVERT opcode executed') } : { result: true },
        constant_result: [call.result],
        transaction: { ret: [call.reverted ? { ret: 'FAILED' } : {}], ...formatTransaction(tx, visible) },
      };
    } catch (err) {
      return extentionError(err);
    }
  };

  const transactionById: Handler = (params, view) => {
    const stored = chain.minedTransaction(text(params, 'value'), upTo(view));
    return Promise.resolve(stored ? minedTransactionJson(stored, visibleOf(params)) : {});
  };

  const transactionInfoById: Handler = (params, view) => {
    const stored = chain.minedTransaction(text(params, 'value'), upTo(view));
    return Promise.resolve(stored ? transactionInfoJson(stored, visibleOf(params)) : {});
  };

  /** Every transaction's info of a block, in the block's order (`[]` for an empty block or one past the head). */
  const transactionInfoByBlockNum: Handler = async (params, view) => {
    const number = integer(params, 'num');
    const block = number <= upTo(view) ? await chain.block(number) : undefined;
    return (block?.txIDs ?? []).flatMap((txID) => {
      const stored = chain.minedTransaction(txID, number);
      return stored ? [transactionInfoJson(stored, visibleOf(params))] : [];
    });
  };

  const account: Handler = async (params, view) => {
    const who = address(params, 'address');
    const found = await chain.account(who, upTo(view));
    if (!found) return {};
    const assets = [...chain.assetsOf(who)].map(([key, value]) => ({ key, value: sun(value) }));
    return {
      address: formatAddress(who, visibleOf(params)),
      ...(found.balanceSun > 0n ? { balance: sun(found.balanceSun) } : {}),
      ...(assets.length > 0 ? { assetV2: assets } : {}),
      ...(found.isContract ? { type: 'Contract' } : {}),
    };
  };

  const accountResource: Handler = (params) => {
    address(params, 'address');
    // Neither bandwidth nor energy is modelled: no account has any, every contract call burns the flat TRX fee.
    return Promise.resolve({ freeNetUsed: 0, freeNetLimit: 0, NetUsed: 0, NetLimit: 0, EnergyUsed: 0, EnergyLimit: 0 });
  };

  const nowBlock: Handler = (params, view) => blockJson(upTo(view), visibleOf(params), true);
  const blockByNum: Handler = (params, view) => blockByIdOrNum(String(integer(params, 'num')), view, visibleOf(params), true);
  const getBlock: Handler = (params, view) =>
    blockByIdOrNum(text(params, 'id_or_num'), view, visibleOf(params), params.detail === true || params.detail === 'true');

  const routes: Record<string, Handler> = {
    '/wallet/createtransaction': async (params) => {
      const value = { owner_address: address(params, 'owner_address'), to_address: address(params, 'to_address'), amount: integer(params, 'amount') };
      try {
        await chain.validateTransfer(value, await chain.balanceSun(value.owner_address, chain.head));
      } catch (err) {
        if (err instanceof BroadcastError) throw new RequestError(err.message);
        throw err;
      }
      const permissionId = integer(params, 'Permission_id', 0);
      return formatTransaction(await chain.buildTransaction(rawContract('TransferContract', value, permissionId)), visibleOf(params));
    },
    '/wallet/transferasset': (params) => {
      // The token id: hex of its UTF-8 bytes, or the text itself with `visible`, as java-tron reads asset_name.
      const name = text(params, 'asset_name');
      const value = {
        owner_address: address(params, 'owner_address'),
        to_address: address(params, 'to_address'),
        asset_name: visibleOf(params) ? utf8Hex(name) : hexParam(params, 'asset_name'),
        amount: integer(params, 'amount'),
      };
      const id = Buffer.from(value.asset_name, 'hex').toString('utf8');
      if (!chain.asset(id)) throw new RequestError('No asset!');
      if ((chain.assetsOf(value.owner_address).get(id) ?? 0n) < BigInt(value.amount)) throw new RequestError('assetBalance is not sufficient.');
      const permissionId = integer(params, 'Permission_id', 0);
      return chain.buildTransaction(rawContract('TransferAssetContract', value, permissionId)).then((tx) => formatTransaction(tx, visibleOf(params)));
    },
    '/wallet/getassetissuebyid': (params) => {
      const asset = chain.asset(text(params, 'value'));
      const visible = visibleOf(params);
      const label = (s: string) => (visible ? s : utf8Hex(s));
      return Promise.resolve(
        asset
          ? { id: asset.id, owner_address: formatAddress(asset.owner, visible), name: label(asset.name), abbr: label(asset.abbr), total_supply: sun(asset.totalSupply), precision: asset.precision }
          : {},
      );
    },
    '/wallet/triggersmartcontract': async (params) => {
      try {
        const value = triggerValue(params, true);
        await chain.requireContract(value.contract_address);
        const feeLimit = integer(params, 'fee_limit', 0);
        if (feeLimit > MAX_FEE_LIMIT_SUN) throw new BroadcastError('CONTRACT_VALIDATE_ERROR', `feeLimit must be >= 0 and <= ${MAX_FEE_LIMIT_SUN}`);
        const permissionId = integer(params, 'Permission_id', 0);
        const tx = await chain.buildTransaction(rawContract('TriggerSmartContract', value, permissionId), feeLimit);
        return { result: { result: true }, transaction: formatTransaction(tx, visibleOf(params)) };
      } catch (err) {
        return extentionError(err);
      }
    },
    '/wallet/triggerconstantcontract': constantCall,
    '/walletsolidity/triggerconstantcontract': constantCall,
    '/wallet/broadcasttransaction': async (params) => {
      let tx: TronTransaction | undefined;
      try {
        tx = parseSignedTransaction(params);
        return { result: true, txid: await chain.broadcast(tx) };
      } catch (err) {
        if (!(err instanceof BroadcastError)) throw err;
        const message = err.code === 'CONTRACT_VALIDATE_ERROR' ? `Contract validate error : ${err.message}` : err.message;
        return { code: err.code, ...(tx ? { txid: tx.txID } : {}), message: utf8Hex(message) };
      }
    },
    '/wallet/gettransactionbyid': transactionById,
    '/walletsolidity/gettransactionbyid': transactionById,
    '/wallet/gettransactioninfobyid': transactionInfoById,
    '/walletsolidity/gettransactioninfobyid': transactionInfoById,
    '/wallet/gettransactioninfobyblocknum': transactionInfoByBlockNum,
    '/walletsolidity/gettransactioninfobyblocknum': transactionInfoByBlockNum,
    '/wallet/getnowblock': nowBlock,
    '/walletsolidity/getnowblock': nowBlock,
    '/wallet/getblockbynum': blockByNum,
    '/walletsolidity/getblockbynum': blockByNum,
    '/wallet/getblock': getBlock,
    '/walletsolidity/getblock': getBlock,
    '/wallet/getblockbyid': (params, view) => blockByIdOrNum(text(params, 'value'), view, visibleOf(params), true),
    '/wallet/getaccount': account,
    '/walletsolidity/getaccount': account,
    '/wallet/getaccountresource': accountResource,
    '/wallet/getaccountnet': accountResource,
    // Not a java-tron path, but the name is easy to reach for; it answers like getaccountresource.
    '/wallet/getaccountresources': accountResource,
    '/wallet/getchainparameters': () =>
      Promise.resolve({
        chainParameter: [
          // Bandwidth is free and account creation costs nothing on the devnet.
          { key: 'getTransactionFee', value: 0 },
          { key: 'getCreateAccountFee', value: 0 },
          { key: 'getCreateNewAccountFeeInSystemContract', value: 0 },
          { key: 'getMaxFeeLimit', value: MAX_FEE_LIMIT_SUN },
          // Devnet-only: the flat TRX fee (sun) burned by every contract call, in place of energy.
          { key: 'getDevnetContractCallFee', value: sun(chain.opts.contractCallFeeSun) },
        ],
      }),
    '/wallet/getcontract': async (params) => {
      const where = address(params, 'value');
      const bytecode = await chain.code(where, chain.head);
      if (bytecode === '') return {};
      const known = contracts.get(where);
      const visible = visibleOf(params);
      return {
        bytecode,
        ...(known
          ? { name: known.name, origin_address: formatAddress(known.origin, visible), abi: { entrys: tronAbi(known.abi) } }
          : {}),
        contract_address: formatAddress(where, visible),
        consume_user_resource_percent: 100,
      };
    },
  };

  const trc20Transfers = (account: string, query: URLSearchParams, origin: string): unknown => {
    const who = parseAddress(account);
    const flag = (name: string): boolean => query.get(name) === 'true';
    const optionalInt = (name: string): number | undefined => {
      const raw = query.get(name);
      return raw === null || raw === '' ? undefined : integer({ [name]: raw }, name);
    };
    const limit = Math.min(optionalInt('limit') ?? TRONGRID_DEFAULT_LIMIT, TRONGRID_MAX_LIMIT);
    if (limit === 0) throw new RequestError('limit must be at least 1');
    const orderBy = query.get('order_by') ?? 'block_timestamp,desc';
    if (orderBy !== 'block_timestamp,desc' && orderBy !== 'block_timestamp,asc') throw new RequestError(`unsupported order_by: ${orderBy}`);
    const contract = query.get('contract_address');
    const page = chain.transfers.page({
      address: who,
      onlyTo: flag('only_to'),
      onlyFrom: flag('only_from'),
      ...(contract ? { token: parseAddress(contract) } : {}),
      minTimestamp: optionalInt('min_timestamp'),
      maxTimestamp: optionalInt('max_timestamp'),
      upTo: flag('only_confirmed') ? chain.solidHead : chain.head,
      from: flag('only_unconfirmed') ? chain.solidHead + 1 : 0,
      ascending: orderBy === 'block_timestamp,asc',
      limit,
      fingerprint: query.get('fingerprint') ?? undefined,
    });
    const data = page.transfers.map((t) => {
      const token = chain.transfers.tokenInfo(t.token);
      return {
        transaction_id: t.txID,
        token_info: { symbol: token?.symbol ?? '', address: toBase58(t.token), decimals: token?.decimals ?? 0, name: token?.name ?? '' },
        block_timestamp: t.timestamp,
        from: toBase58(t.from),
        to: toBase58(t.to),
        type: 'Transfer',
        value: t.value.toString(),
      };
    });
    const next = new URLSearchParams(query);
    if (page.fingerprint !== undefined) next.set('fingerprint', page.fingerprint);
    return {
      data,
      success: true,
      meta: {
        at: Date.now(),
        page_size: data.length,
        ...(page.fingerprint === undefined
          ? {}
          : { fingerprint: page.fingerprint, links: { next: `${origin}/v1/accounts/${account}/transactions/trc20?${next.toString()}` } }),
      },
    };
  };

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const key = req.headers['tron-pro-api-key'];
    if (apiKeys && !(typeof key === 'string' && apiKeys.has(key))) {
      // TronGrid's answer to a request it will not serve without a valid key.
      send(res, 401, { Error: key === undefined ? 'ApiKey is required' : 'ApiKey not exists' });
      return;
    }
    const trc20 = TRONGRID_TRC20.exec(url.pathname);
    try {
      if (trc20?.[1] !== undefined) {
        send(res, 200, trc20Transfers(decodeURIComponent(trc20[1]), url.searchParams, url.origin));
        return;
      }
      const path = url.pathname.replace(/\/+$/, '');
      const handler = routes[path];
      if (!handler) {
        send(res, 404, { Error: `${path} is not served by the Tron devnet` });
        return;
      }
      const params: Params = { ...Object.fromEntries(url.searchParams), ...(await readJsonBody(req)) };
      send(res, 200, await handler(params, path.startsWith('/walletsolidity/') ? 'solidity' : 'full'));
    } catch (err) {
      const known = err instanceof RequestError || err instanceof InvalidAddress || err instanceof InvalidFingerprint;
      if (!known) process.stderr.write(`tron devnet: ${req.method} ${url.pathname} failed: ${(err as Error).stack ?? String(err)}\n`);
      if (trc20) send(res, known ? 400 : 500, { success: false, error: (err as Error).message, statusCode: known ? 400 : 500 });
      // java-tron answers errors with 200 and `{ "Error": … }`.
      else send(res, 200, { Error: (err as Error).message });
    }
  };

  return (req, res) => {
    void handle(req, res);
  };
}

async function readJsonBody(req: IncomingMessage): Promise<Params> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RequestError('request body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RequestError('request body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestError('request body must be a JSON object');
  return body as Params;
}
