// A toncenter-compatible HTTP front for the devnet chain: API v2 (JSON-RPC and REST) plus v3 accountStates.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Address, Cell, external, type Message } from '@ton/core';
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { BASECHAIN, ChainError, FULL_SHARD, MASTERCHAIN, feesOf, type AccountView, type DevnetChain, type TxRecord } from './chain';
import { b64, bocB64, parseStack, stackJson, transactionIdJson, transactionJson } from './format';

type Params = Record<string, unknown>;
type Handler = (params: Params) => unknown;

const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** toncenter v3 takes at most this many addresses per accountStates call. */
const V3_MAX_ADDRESSES = 1000;
/** Room for 1,000 addresses in one v3 query string; Node's default header limit is 16 KiB. */
const MAX_HEADER_BYTES = 1024 * 1024;

// --- parameters ---

/** A scalar parameter; query strings give strings, JSON bodies may give numbers and booleans. */
function value(params: Params, name: string): string | number | boolean | undefined {
  const v = params[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  throw new ChainError(422, `Validation error: ${name} must be a scalar`);
}

function requiredString(params: Params, name: string): string {
  const v = value(params, name);
  if (v === undefined) throw new ChainError(422, `Validation error: missing parameter ${name}`);
  return String(v);
}

function optionalInt(params: Params, name: string): number | undefined {
  const v = value(params, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new ChainError(422, `Validation error: ${name} must be an integer`);
  return n;
}

function requiredInt(params: Params, name: string): number {
  const n = optionalInt(params, name);
  if (n === undefined) throw new ChainError(422, `Validation error: missing parameter ${name}`);
  return n;
}

function optionalBigInt(params: Params, name: string): bigint | undefined {
  const v = value(params, name);
  if (v === undefined) return undefined;
  try {
    return BigInt(String(v));
  } catch {
    throw new ChainError(422, `Validation error: ${name} must be an integer`);
  }
}

function bool(params: Params, name: string, fallback: boolean): boolean {
  const v = value(params, name);
  return v === undefined ? fallback : v === true || v === 'true' || v === '1';
}

function parseAddress(text: string): Address {
  try {
    return Address.parse(text);
  } catch {
    throw new ChainError(416, 'Incorrect address');
  }
}

function address(params: Params, name = 'address'): Address {
  return parseAddress(requiredString(params, name));
}

/** Hashes arrive as hex (64 chars) or base64 / base64url (44 chars). */
function hash(params: Params, name: string): Buffer | undefined {
  const v = value(params, name);
  if (v === undefined) return undefined;
  const text = String(v);
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes.length !== 32) throw new ChainError(422, `Validation error: ${name} is not a 32-byte hash`);
  return bytes;
}

function boc(params: Params, name: string): Buffer {
  return Buffer.from(requiredString(params, name), 'base64');
}

function optionalCell(params: Params, name: string): Cell | undefined {
  const v = value(params, name);
  if (v === undefined) return undefined;
  try {
    return Cell.fromBase64(String(v));
  } catch {
    throw new ChainError(422, `Validation error: ${name} is not a base64 bag of cells`);
  }
}

// --- wallets known to getWalletInformation ---

interface WalletKind { type: string; read(data: Cell): { seqno: number; walletId: number } }
const ZERO_KEY = Buffer.alloc(32);
const seqnoThenId: WalletKind['read'] = (data) => {
  const s = data.beginParse();
  return { seqno: s.loadUint(32), walletId: s.loadUint(32) };
};
const readV5: WalletKind['read'] = (data) => {
  const s = data.beginParse();
  s.skip(1); // is_signature_allowed
  return { seqno: s.loadUint(32), walletId: s.loadInt(32) };
};
const codeHash = (wallet: { init: { code: Cell } }): string => wallet.init.code.hash().toString('hex');
const WALLET_KINDS = new Map<string, WalletKind>([
  [codeHash(WalletContractV3R2.create({ workchain: 0, publicKey: ZERO_KEY })), { type: 'wallet v3 r2', read: seqnoThenId }],
  [codeHash(WalletContractV4.create({ workchain: 0, publicKey: ZERO_KEY })), { type: 'wallet v4 r2', read: seqnoThenId }],
  [codeHash(WalletContractV5R1.create({ workchain: 0, publicKey: ZERO_KEY })), { type: 'wallet v5 r1', read: readV5 }],
]);

function walletKind(account: AccountView): WalletKind | undefined {
  return account.code ? WALLET_KINDS.get(account.code.hash().toString('hex')) : undefined;
}

// --- the API ---

/**
 * toncenter's rate limits, when the devnet enforces them: each API key's requests a second (its plan), and the
 * limit without a key (1, by caller address). A request above its limit is answered 429, an unknown key 401.
 */
export interface RateLimits {
  keys: Record<string, number>;
  keyless: number;
}

/** Requests of one key (or keyless caller) in the last second: as toncenter counts them. */
class RequestWindow {
  private readonly recent = new Map<string, number[]>();

  admit(caller: string, perSecond: number): boolean {
    const now = Date.now();
    const times = (this.recent.get(caller) ?? []).filter((t) => now - t < 1000);
    this.recent.set(caller, times);
    if (times.length >= perSecond) return false;
    times.push(now);
    return true;
  }
}

export class Toncenter {
  private readonly v2: Record<string, Handler>;
  private readonly window = new RequestWindow();

  constructor(
    private readonly chain: DevnetChain,
    private readonly limits?: RateLimits,
  ) {
    this.v2 = {
      getAddressInformation: (p) => this.addressInformation(address(p)),
      getAddressBalance: (p) => this.chain.account(address(p)).balance.toString(),
      getAddressState: (p) => this.chain.account(address(p)).status,
      getWalletInformation: (p) => this.walletInformation(address(p)),
      getTransactions: (p) => this.getTransactions(p),
      getMasterchainInfo: () => this.masterchainInfo(),
      getConsensusBlock: () => ({ consensus_block: this.chain.lastBlock.seqno, timestamp: this.chain.lastBlock.utime }),
      shards: (p) => ({ '@type': 'blocks.shards', shards: [this.blockId(BASECHAIN, this.knownBlock(requiredInt(p, 'seqno')).seqno)] }),
      lookupBlock: (p) => this.lookupBlock(p),
      getBlockHeader: (p) => this.blockHeader(p),
      getBlockTransactions: (p) => this.blockTransactions(p, false),
      getBlockTransactionsExt: (p) => this.blockTransactions(p, true),
      runGetMethod: (p) => this.runGetMethod(p),
      sendBoc: async (p) => {
        await this.chain.submit(boc(p, 'boc'));
        return { '@type': 'ok' };
      },
      sendBocReturnHash: async (p) => {
        const sent = await this.chain.submit(boc(p, 'boc'));
        return { '@type': 'raw.extMessageInfo', hash: b64(sent.hash), hash_norm: b64(sent.hashNorm) };
      },
      estimateFee: (p) => this.estimateFee(p),
      tryLocateTx: (p) => this.locate(p, 'result'),
      tryLocateResultTx: (p) => this.locate(p, 'result'),
      tryLocateSourceTx: (p) => this.locate(p, 'source'),
    };
  }

  listen(port: number, host = '127.0.0.1'): Promise<Server> {
    const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) send(res, 500, { ok: false, error: String(error), code: 500 });
      });
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve(server));
    });
  }

  /** As toncenter: a key in `X-API-Key` or `api_key`, unknown keys refused, each key (or keyless caller) held to its rate. */
  private admitted(req: IncomingMessage, url: URL, res: ServerResponse): boolean {
    if (!this.limits) return true;
    const header = req.headers['x-api-key'];
    const key = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('api_key') ?? undefined;
    if (key !== undefined && !(key in this.limits.keys)) {
      send(res, 401, { ok: false, error: 'API key does not exist', code: 401 });
      return false;
    }
    const caller = key === undefined ? `address:${req.socket.remoteAddress ?? ''}` : `key:${key}`;
    if (this.window.admit(caller, key === undefined ? this.limits.keyless : this.limits.keys[key]!)) return true;
    send(res, 429, { ok: false, result: 'Ratelimit exceed', code: 429 });
    return false;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://devnet');
    if (!this.admitted(req, url, res)) return;
    const path = url.pathname.replace(/\/+$/, '');
    let body: unknown = {};
    try {
      if (req.method === 'POST') body = await readJson(req);
    } catch (error) {
      const code = error instanceof ChainError ? error.code : 400;
      return send(res, code, { ok: false, error: error instanceof Error ? error.message : String(error), code });
    }
    if (path.startsWith('/api/v3/')) return this.handleV3(path.slice('/api/v3/'.length), url.searchParams, res);

    const route = path.replace(/^\/api\/v2/, '');
    if (route === '/jsonRPC') {
      const request = (body ?? {}) as { method?: unknown; params?: unknown; id?: unknown };
      const rpc = { jsonrpc: '2.0', id: request.id ?? null };
      const handler = typeof request.method === 'string' ? this.v2[request.method] : undefined;
      if (!handler) return send(res, 422, { ok: false, error: 'Unknown method', code: 422, ...rpc });
      const params = typeof request.params === 'object' && request.params !== null ? (request.params as Params) : {};
      return this.respond(res, handler, params, rpc);
    }
    const handler = this.v2[route.slice(1)];
    if (!handler) return send(res, 404, { ok: false, error: 'Not Found', code: 404 });
    const params: Params = { ...Object.fromEntries(url.searchParams), ...(typeof body === 'object' && body !== null ? body : {}) };
    return this.respond(res, handler, params, {});
  }

  private async respond(res: ServerResponse, handler: Handler, params: Params, extra: Record<string, unknown>): Promise<void> {
    try {
      await this.chain.settled();
      const result = await handler(params);
      send(res, 200, { ok: true, result, ...extra });
    } catch (error) {
      const code = error instanceof ChainError ? error.code : 500;
      send(res, code, { ok: false, error: error instanceof Error ? error.message : String(error), code, ...extra });
    }
  }

  // --- blocks ---

  private knownBlock(seqno: number) {
    const block = this.chain.block(seqno);
    if (!block) throw new ChainError(404, `LITE_SERVER_NOTREADY: block ${seqno} is not known yet`);
    return block;
  }

  private blockId(workchain: number, seqno: number): Record<string, unknown> {
    return {
      '@type': 'ton.blockIdExt',
      workchain,
      shard: FULL_SHARD,
      seqno,
      root_hash: b64(this.chain.blockHash(workchain, seqno, 'root')),
      file_hash: b64(this.chain.blockHash(workchain, seqno, 'file')),
    };
  }

  private masterchainInfo(): Record<string, unknown> {
    const last = this.chain.lastBlock;
    return {
      '@type': 'blocks.masterchainInfo',
      last: this.blockId(MASTERCHAIN, last.seqno),
      state_root_hash: b64(this.chain.blockHash(MASTERCHAIN, last.seqno, 'state')),
      init: this.blockId(MASTERCHAIN, 0),
    };
  }

  private lookupBlock(p: Params): Record<string, unknown> {
    const workchain = requiredInt(p, 'workchain');
    const seqno = optionalInt(p, 'seqno');
    const utime = optionalInt(p, 'unixtime');
    const lt = optionalBigInt(p, 'lt');
    const block = seqno !== undefined ? this.chain.block(seqno) : this.chain.findBlock({ utime, lt });
    if (!block) throw new ChainError(404, 'LITE_SERVER_NOTREADY: block not found');
    return this.blockId(workchain, block.seqno);
  }

  private blockHeader(p: Params): Record<string, unknown> {
    const workchain = requiredInt(p, 'workchain');
    const block = this.knownBlock(requiredInt(p, 'seqno'));
    return {
      '@type': 'blocks.header',
      id: this.blockId(workchain, block.seqno),
      global_id: -239,
      version: 0,
      flags: 0,
      after_merge: false,
      after_split: false,
      before_split: false,
      want_merge: false,
      want_split: false,
      validator_list_hash_short: 0,
      catchain_seqno: 0,
      min_ref_mc_seqno: block.seqno,
      is_key_block: block.seqno === 0,
      prev_key_block_seqno: 0,
      start_lt: block.startLt.toString(),
      end_lt: block.endLt.toString(),
      gen_utime: block.utime,
      vert_seqno: 0,
      prev_blocks: block.seqno > 0 ? [this.blockId(workchain, block.seqno - 1)] : [],
    };
  }

  private blockTransactions(p: Params, full: boolean): Record<string, unknown> {
    const workchain = requiredInt(p, 'workchain');
    const block = this.knownBlock(requiredInt(p, 'seqno'));
    const count = optionalInt(p, 'count') ?? 40;
    const afterLt = optionalBigInt(p, 'after_lt');
    const inChain = block.txs.filter((r) => r.account.workChain === workchain);
    const start = afterLt === undefined ? 0 : inChain.findIndex((r) => r.tx.lt > afterLt);
    const rest = start < 0 ? [] : inChain.slice(start);
    const page = rest.slice(0, count);
    return {
      '@type': full ? 'blocks.transactionsExt' : 'blocks.transactions',
      id: this.blockId(workchain, block.seqno),
      req_count: count,
      incomplete: rest.length > page.length,
      transactions: page.map((r) => full ? transactionJson(r) : {
        '@type': 'blocks.shortTxId',
        mode: 135,
        account: r.account.toRawString(),
        lt: r.tx.lt.toString(),
        hash: b64(r.hash),
      }),
    };
  }

  // --- accounts ---

  private addressInformation(target: Address): Record<string, unknown> {
    const account = this.chain.account(target);
    return {
      '@type': 'raw.fullAccountState',
      balance: account.balance.toString(),
      extra_currencies: [],
      code: account.code ? bocB64(account.code) : '',
      data: account.data ? bocB64(account.data) : '',
      last_transaction_id: transactionIdJson(account.lastLt, account.lastHash),
      block_id: this.blockId(MASTERCHAIN, this.chain.lastBlock.seqno),
      frozen_hash: account.frozenHash ? b64(account.frozenHash) : '',
      sync_utime: this.chain.lastBlock.utime,
      state: account.status,
    };
  }

  private walletInformation(target: Address): Record<string, unknown> {
    const account = this.chain.account(target);
    const kind = walletKind(account);
    const wallet = kind && account.data ? kind.read(account.data) : undefined;
    return {
      wallet: wallet !== undefined,
      balance: account.balance.toString(),
      extra_currencies: [],
      account_state: account.status,
      ...(kind && wallet ? { wallet_type: kind.type, seqno: wallet.seqno, wallet_id: wallet.walletId } : {}),
      last_transaction_id: transactionIdJson(account.lastLt, account.lastHash),
    };
  }

  /** Newest first, from the (lt, hash) transaction inclusive when given, stopping above `to_lt`. */
  private getTransactions(p: Params): unknown[] {
    const all = this.chain.transactions(address(p));
    const limit = optionalInt(p, 'limit') ?? 10;
    const lt = optionalBigInt(p, 'lt');
    const fromHash = hash(p, 'hash');
    const toLt = optionalBigInt(p, 'to_lt') ?? 0n;
    let end = all.length;
    if (lt !== undefined && fromHash !== undefined) {
      end = all.findIndex((r) => r.tx.lt === lt && r.hash.equals(fromHash)) + 1;
      if (end === 0) throw new ChainError(404, 'LITE_SERVER_UNKNOWN: transaction not found');
    }
    const result: TxRecord[] = [];
    for (let i = end - 1; i >= 0 && result.length < limit; i--) {
      const record = all[i]!;
      if (record.tx.lt <= toLt) break;
      result.push(record);
    }
    return result.map(transactionJson);
  }

  private locate(p: Params, side: 'result' | 'source'): Record<string, unknown> {
    const source = address(p, 'source');
    const destination = address(p, 'destination');
    const createdLt = optionalBigInt(p, 'created_lt');
    if (createdLt === undefined) throw new ChainError(422, 'Validation error: missing parameter created_lt');
    const found = side === 'result' ? this.chain.resultTx(source, destination, createdLt) : this.chain.sourceTx(source, destination, createdLt);
    if (!found) throw new ChainError(404, 'LITE_SERVER_UNKNOWN: transaction not found');
    return transactionJson(found);
  }

  private async runGetMethod(p: Params): Promise<Record<string, unknown>> {
    const target = address(p);
    const rawMethod = value(p, 'method');
    if (rawMethod === undefined) throw new ChainError(422, 'Validation error: missing parameter method');
    const method = typeof rawMethod === 'number' ? rawMethod : String(rawMethod);
    const result = await this.chain.runGetMethod(target, method, parseStack(p.stack));
    const account = this.chain.account(target);
    return {
      '@type': 'smc.runResult',
      gas_used: Number(result.gasUsed),
      stack: stackJson(result.stack),
      exit_code: result.exitCode,
      block_id: this.blockId(MASTERCHAIN, this.chain.lastBlock.seqno),
      last_transaction_id: transactionIdJson(account.lastLt, account.lastHash),
    };
  }

  private async estimateFee(p: Params): Promise<Record<string, unknown>> {
    const target = address(p);
    const body = optionalCell(p, 'body') ?? Cell.EMPTY;
    const code = optionalCell(p, 'init_code');
    const data = optionalCell(p, 'init_data');
    const message: Message = external({ to: target, body, init: code && data ? { code, data } : undefined });
    let fees;
    try {
      fees = feesOf(await this.chain.emulate(message, bool(p, 'ignore_chksig', true)));
    } catch (error) {
      throw new ChainError(500, `LITE_SERVER_UNKNOWN: cannot estimate fees: ${error instanceof Error ? error.message : String(error)}`);
    }
    return {
      '@type': 'query.fees',
      source_fees: {
        '@type': 'fees',
        in_fwd_fee: Number(fees.inFwdFee),
        storage_fee: Number(fees.storageFee),
        gas_fee: Number(fees.gasFee),
        fwd_fee: Number(fees.fwdFee),
      },
      destination_fees: [],
    };
  }

  // --- v3 ---

  private async handleV3(route: string, query: URLSearchParams, res: ServerResponse): Promise<void> {
    if (route !== 'accountStates') return send(res, 404, { error: 'not found' });
    await this.chain.settled();
    try {
      send(res, 200, this.accountStates(query));
    } catch (error) {
      send(res, error instanceof ChainError ? error.code : 500, { error: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * toncenter v3 `GET /api/v3/accountStates?address=…&address=…` (up to 1,000 addresses, repeated or comma-separated):
   * one round trip for many accounts. Addresses the chain has never seen are left out, as the indexer does.
   */
  private accountStates(query: URLSearchParams): Record<string, unknown> {
    const requested = query.getAll('address').flatMap((a) => a.split(',')).filter((a) => a !== '');
    if (requested.length === 0) throw new ChainError(422, 'address of account is required');
    if (requested.length > V3_MAX_ADDRESSES) throw new ChainError(422, `at most ${V3_MAX_ADDRESSES} addresses are allowed`);
    const includeBoc = bool(Object.fromEntries(query), 'include_boc', true);
    const accounts: Record<string, unknown>[] = [];
    const addressBook: Record<string, { user_friendly: string }> = {};
    for (const text of requested) {
      const target = parseAddress(text);
      const account = this.chain.account(target);
      if (!account.exists) continue;
      const raw = `${target.workChain}:${target.hash.toString('hex').toUpperCase()}`;
      const bounceable = account.status === 'active' && walletKind(account) === undefined;
      addressBook[raw] = { user_friendly: target.toString({ bounceable }) };
      accounts.push({
        address: raw,
        account_state_hash: b64(this.chain.accountStateHash(target)),
        balance: account.balance.toString(),
        extra_currencies: {},
        status: account.status === 'uninitialized' ? 'uninit' : account.status,
        ...(account.frozenHash ? { frozen_hash: b64(account.frozenHash) } : {}),
        last_transaction_hash: account.lastLt === 0n ? null : b64(account.lastHash),
        last_transaction_lt: account.lastLt === 0n ? null : account.lastLt.toString(),
        ...(account.code ? { code_hash: b64(account.code.hash()) } : {}),
        ...(account.data ? { data_hash: b64(account.data.hash()) } : {}),
        ...(includeBoc && account.code ? { code_boc: bocB64(account.code) } : {}),
        ...(includeBoc && account.data ? { data_boc: bocB64(account.data) } : {}),
        contract_methods: null,
        interfaces: null,
      });
    }
    return { accounts, address_book: addressBook, metadata: {} };
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ChainError(413, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ChainError(400, 'request body is not JSON');
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}
