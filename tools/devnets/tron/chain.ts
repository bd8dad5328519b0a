// The Tron devnet's ledger: Tron transactions checked as java-tron checks them (expiration, TaPoS, signature,
// balance), then executed on hardhat as their owner, and blocks produced by this process on a timer so that every
// EVM transaction of one Tron transaction lands in the same block.
import {
  fromEvmAddress,
  parseAddress,
  rawContract,
  recoverSigner,
  sealTransaction,
  toEvmAddress,
  type ContractValue,
  type RawContract,
  type RawData,
  type TransferAssetContractValue,
  type TransferContractValue,
  type TriggerSmartContractValue,
  type TronHex,
  type TronTransaction,
} from './codec';
import { Kept } from '../../../chains/kept';
import { RpcError } from '../evm/devnet';
import type { EvmRpc } from './hardhat';
import { Trc20Index } from './trc20';

/** TRX is the EVM chain's native coin: 1 sun (10^-6 TRX) = 10^12 wei, so 1 TRX = 10^18 wei = 1 "ether". */
const WEI_PER_SUN = 10n ** 12n;
/** Tron's black-hole address (T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb): contract-call fees are sent here. */
export const BLACK_HOLE: TronHex = `41${'0'.repeat(40)}`;
/** java-tron's limit on fee_limit (mainnet getMaxFeeLimit: 15,000 TRX). */
export const MAX_FEE_LIMIT_SUN = 15_000_000_000;
/** java-tron sets a new transaction's expiration to the head block's time plus 60 s. */
const EXPIRATION_MS = 60_000;
/** java-tron refuses expirations more than 24 h past the head block. */
const MAX_EXPIRATION_MS = 24 * 60 * 60 * 1000;
/** Gas for the EVM side of one contract call; gas is free (price 0), this only bounds runaway calls. */
const CALL_GAS = 5_000_000;
const VALUE_TRANSFER_GAS = 21_000;
const TAPOS_WINDOW = 65_536;

export type ContractOutcome = 'SUCCESS' | 'REVERT' | 'OUT_OF_ENERGY';

export interface ChainOptions {
  blockTimeMs: number;
  /** A block is solidified once this many blocks sit on top of it (Tron mainnet: 19). */
  solidityDepth: number;
  /** Flat TRX fee burned from the owner of every TriggerSmartContract (stands in for energy and bandwidth). */
  contractCallFeeSun: bigint;
}

export interface LogEntry { address: string; topics: string[]; data: string }

/** A TRC-10 token: its id (a decimal number as text), names, decimals (`precision`), supply and issuer. */
export interface Trc10Asset { id: string; name: string; abbr: string; precision: number; totalSupply: bigint; owner: TronHex }

export interface MinedTransaction {
  blockNumber: number;
  blockTimestamp: number;
  outcome: ContractOutcome;
  /** Return or revert data, hex without 0x. */
  contractResult: string;
  /** Logs as java-tron stores them: 20-byte address and 32-byte topics, hex without prefixes. */
  logs: LogEntry[];
}

export interface StoredTransaction {
  tx: TronTransaction;
  feeSun: bigint;
  kind: 'transfer' | 'asset' | 'call' | 'outOfEnergy';
  /**
   * The EVM transactions that carry it: the TRX transfer; or the fee burn, then the call (none when out of energy).
   * None for a TRC-10 transfer: TRC-10 balances are the devnet's own, moved in the next block.
   */
  evmHashes: string[];
  mined?: MinedTransaction;
}

export interface BlockView {
  number: number;
  blockID: string;
  parentID: string;
  timestamp: number;
  txTrieRoot: string;
  witness: TronHex;
  txIDs: string[];
}

export type BroadcastCode = 'SIGERROR' | 'CONTRACT_VALIDATE_ERROR' | 'DUP_TRANSACTION_ERROR' | 'TAPOS_ERROR' | 'TRANSACTION_EXPIRATION_ERROR';

/** A refusal as java-tron's broadcast reports it: `code` plus the (UTF-8) message. */
export class BroadcastError extends Error {
  constructor(readonly code: BroadcastCode, message: string) {
    super(message);
  }
}

/** A request the node cannot parse or validate; the HTTP layer answers `{ "Error": message }`. */
export class RequestError extends Error {}

interface EvmBlock { number: string; hash: string; parentHash: string; timestamp: string; transactionsRoot: string; miner: string }
interface EvmReceipt { blockNumber: string; status: string; logs: { address: string; topics: string[]; data: string }[] }

const hex = (n: number | bigint): string => `0x${n.toString(16)}`;
const strip0x = (s: string): string => s.replace(/^0x/, '');

function blockIdOf(number: number, evmHash: string): string {
  // Tron's block id: the block number in the first 8 bytes, then the rest of the block hash.
  return number.toString(16).padStart(16, '0') + strip0x(evmHash).slice(16);
}

function isSafeAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function hexField(value: unknown, name: string, length?: number): string {
  if (typeof value !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(value)) throw new RequestError(`${name} must be hex`);
  const bytes = strip0x(value).toLowerCase();
  if (length !== undefined && bytes.length !== length) throw new RequestError(`${name} must be ${length / 2} bytes`);
  return bytes;
}

function asObject(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RequestError(`${name} must be an object`);
  return value as Record<string, unknown>;
}

/** A contract value with hex addresses and only the fields the protobuf carries. */
function canonicalValue(type: unknown, input: unknown): { type: RawContract['type']; value: ContractValue } {
  const value = asObject(input, 'parameter.value');
  const amount = (name: string): number | undefined => {
    const v = value[name];
    if (v === undefined) return undefined;
    if (!isSafeAmount(v)) throw new RequestError(`${name} must be a non-negative integer`);
    return v;
  };
  try {
    if (type === 'TransferContract') {
      return {
        type,
        value: { owner_address: parseAddress(value.owner_address), to_address: parseAddress(value.to_address), amount: amount('amount') ?? 0 },
      };
    }
    if (type === 'TransferAssetContract') {
      const asset: TransferAssetContractValue = {
        owner_address: parseAddress(value.owner_address),
        to_address: parseAddress(value.to_address),
        asset_name: hexField(value.asset_name, 'asset_name'),
        amount: amount('amount') ?? 0,
      };
      return { type, value: asset };
    }
    if (type === 'TriggerSmartContract') {
      const trigger: TriggerSmartContractValue = {
        owner_address: parseAddress(value.owner_address),
        contract_address: parseAddress(value.contract_address),
      };
      if (value.data !== undefined) trigger.data = hexField(value.data, 'data');
      for (const name of ['call_value', 'call_token_value', 'token_id'] as const) {
        const v = amount(name);
        if (v) trigger[name] = v;
      }
      return { type, value: trigger };
    }
  } catch (err) {
    throw new RequestError((err as Error).message);
  }
  throw new BroadcastError('CONTRACT_VALIDATE_ERROR', `contract type ${String(type)} is not supported by the Tron devnet`);
}

/** Re-derives the signed transaction from its raw_data, as java-tron does: raw_data_hex and txID are recomputed. */
export function parseSignedTransaction(input: unknown): TronTransaction {
  const body = asObject(input, 'transaction');
  const raw = asObject(body.raw_data, 'raw_data');
  if (!Array.isArray(raw.contract) || raw.contract.length !== 1) throw new RequestError('raw_data.contract must hold exactly one contract');
  const contract = asObject(raw.contract[0], 'raw_data.contract[0]');
  const parameter = asObject(contract.parameter, 'raw_data.contract[0].parameter');
  const { type, value } = canonicalValue(contract.type, parameter.value);
  const permissionId = contract.Permission_id;
  if (permissionId !== undefined && !isSafeAmount(permissionId)) throw new RequestError('Permission_id must be a non-negative integer');
  for (const name of ['expiration', 'timestamp'] as const) {
    if (!isSafeAmount(raw[name])) throw new RequestError(`raw_data.${name} must be a non-negative integer`);
  }
  if (raw.fee_limit !== undefined && !isSafeAmount(raw.fee_limit)) throw new RequestError('raw_data.fee_limit must be a non-negative integer');
  const rawData: RawData = {
    contract: [rawContract(type, value, permissionId)],
    ref_block_bytes: hexField(raw.ref_block_bytes, 'raw_data.ref_block_bytes', 4),
    ref_block_hash: hexField(raw.ref_block_hash, 'raw_data.ref_block_hash', 16),
    expiration: raw.expiration as number,
    timestamp: raw.timestamp as number,
    ...(raw.fee_limit ? { fee_limit: raw.fee_limit } : {}),
    ...(raw.data !== undefined ? { data: hexField(raw.data, 'raw_data.data') } : {}),
  };
  const signature = body.signature;
  if (signature !== undefined && (!Array.isArray(signature) || !signature.every((s) => typeof s === 'string'))) {
    throw new RequestError('signature must be a list of hex strings');
  }
  return { ...sealTransaction(rawData, false), ...(signature ? { signature } : {}) };
}

export class TronChain {
  /** The last block whose transactions and transfers are fully recorded; every read is taken at or below it. */
  head = 0;
  readonly transfers: Trc20Index;
  private readonly txs = new Map<string, StoredTransaction>();
  private readonly txIdByEvmHash = new Map<string, string>();
  private readonly blockTxs = new Map<number, string[]>();
  private readonly timestamps = new Map<number, number>();
  private readonly impersonated = new Set<TronHex>();
  /** Nothing reverts a block of this chain (this process mines each one once it has taken over), so a block is read once. */
  private readonly minedBlocks = new Kept<number, EvmBlock>(1_000);
  /**
   * Code an address had at a block, which it keeps at every later block: nothing here sets code, and a self-destruct
   * removes code only in the transaction that created it (EIP-6780, in hardhat's hardfork).
   */
  private readonly deployedCode = new Kept<TronHex, { code: string; since: number }>(1_000);
  /** TRC-10 tokens by id, and who holds how much of each (the devnet's own ledger: TRC-10 lives outside the TVM). */
  private readonly assets = new Map<string, Trc10Asset>();
  private readonly assetBalances = new Map<TronHex, Map<string, bigint>>();
  private pending: string[] = [];
  private lock: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(readonly rpc: EvmRpc, readonly opts: ChainOptions) {
    this.transfers = new Trc20Index(rpc);
  }

  get solidHead(): number {
    return Math.max(0, this.head - this.opts.solidityDepth);
  }

  /** Takes over block production: no automine, no interval mining, gas free from the next block on. */
  async init(): Promise<void> {
    await this.rpc.call('evm_setAutomine', [false]);
    await this.rpc.call('evm_setIntervalMining', [0]);
    await this.rpc.call('hardhat_setNextBlockBaseFeePerGas', ['0x0']);
    this.head = Number(await this.rpc.call<string>('eth_blockNumber'));
    await this.mine();
  }

  /**
   * Mines a block every blockTimeMs, empty or not, as Tron's witnesses do: the time a busy block takes to mine comes
   * out of the interval.
   */
  start(): void {
    const tick = (delayMs: number): void => {
      this.timer = setTimeout(() => {
        const startedAt = Date.now();
        this.mine()
          .catch((err: unknown) => process.stderr.write(`tron devnet: block production failed: ${String(err)}\n`))
          .finally(() => {
            if (!this.stopped) tick(Math.max(0, startedAt + this.opts.blockTimeMs - Date.now()));
          });
      }, delayMs);
    };
    tick(this.opts.blockTimeMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.lock;
  }

  /** Serializes everything that touches the mempool or mines, so a Tron transaction's EVM transactions share a block. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  mine(): Promise<number> {
    return this.exclusive(async () => {
      const previousTimestamp = this.timestamps.get(this.head) ?? 0;
      await this.rpc.call('evm_mine');
      const number = Number(await this.rpc.call<string>('eth_blockNumber'));
      // Tron block times are in ms and strictly increasing.
      const timestamp = Math.max(Date.now(), previousTimestamp + 1);
      for (let n = this.head + 1; n <= number; n++) this.timestamps.set(n, timestamp);
      await this.settlePending(number);
      await this.transfers.indexBlocks(this.head + 1, number, (n) => this.timestamps.get(n) ?? timestamp, (hash) => this.txIdOfEvmHash(hash));
      this.head = number;
      return number;
    });
  }

  private txIdOfEvmHash(hash: string): string {
    return this.txIdByEvmHash.get(hash) ?? strip0x(hash);
  }

  private async settlePending(mined: number): Promise<void> {
    const waiting: string[] = [];
    for (const txID of this.pending) {
      const stored = this.txs.get(txID);
      if (!stored) continue;
      if (stored.kind === 'asset') {
        this.settleAsset(stored, mined);
        continue;
      }
      const receipts = await Promise.all(stored.evmHashes.map((h) => this.rpc.call<EvmReceipt | null>('eth_getTransactionReceipt', [h])));
      const last = receipts.at(-1);
      if (!last || receipts.some((r) => r === null)) {
        waiting.push(txID);
        continue;
      }
      const blockNumber = Number(last.blockNumber);
      if (receipts.some((r) => Number(r?.blockNumber) !== blockNumber)) throw new Error(`the EVM transactions of ${txID} landed in different blocks`);
      stored.mined = await this.outcome(stored, last, blockNumber);
      const inBlock = this.blockTxs.get(blockNumber) ?? [];
      inBlock.push(txID);
      this.blockTxs.set(blockNumber, inBlock);
    }
    this.pending = waiting;
  }

  /** A TRC-10 transfer lands in the block being mined: balances move, the transaction is in the block. */
  private settleAsset(stored: StoredTransaction, blockNumber: number): void {
    const value = stored.tx.raw_data.contract[0]!.parameter.value as TransferAssetContractValue;
    const id = Buffer.from(value.asset_name, 'hex').toString('utf8');
    this.moveAsset(value.owner_address, id, -BigInt(value.amount));
    this.moveAsset(value.to_address, id, BigInt(value.amount));
    stored.mined = { blockNumber, blockTimestamp: this.timestampOf(blockNumber), outcome: 'SUCCESS', contractResult: '', logs: [] };
    const inBlock = this.blockTxs.get(blockNumber) ?? [];
    inBlock.push(stored.tx.txID);
    this.blockTxs.set(blockNumber, inBlock);
  }

  private moveAsset(holder: TronHex, id: string, delta: bigint): void {
    const balances = this.assetBalances.get(holder) ?? new Map<string, bigint>();
    balances.set(id, (balances.get(id) ?? 0n) + delta);
    this.assetBalances.set(holder, balances);
  }

  /** TRC-10 balances of an address (id → amount), as `getaccount` reports them in `assetV2`. */
  assetsOf(holder: TronHex): Map<string, bigint> {
    return new Map([...(this.assetBalances.get(holder) ?? [])].filter(([, amount]) => amount > 0n));
  }

  asset(id: string): Trc10Asset | undefined {
    return this.assets.get(id);
  }

  /**
   * Issues a TRC-10 token to `owner` (setup only: Tron's AssetIssueContract is not served). Ids count from 1000001 as
   * on mainnet; the whole supply starts with the owner.
   */
  issueAsset(owner: TronHex, token: Omit<Trc10Asset, 'id' | 'owner'>): Trc10Asset {
    const id = String(1_000_001 + this.assets.size);
    const asset = { ...token, id, owner };
    this.assets.set(id, asset);
    this.moveAsset(owner, id, token.totalSupply);
    return asset;
  }

  private async outcome(stored: StoredTransaction, receipt: EvmReceipt, blockNumber: number): Promise<MinedTransaction> {
    const base = { blockNumber, blockTimestamp: this.timestampOf(blockNumber), contractResult: '', logs: [] };
    if (stored.kind === 'outOfEnergy') return { ...base, outcome: 'OUT_OF_ENERGY' };
    const succeeded = receipt.status === '0x1';
    if (stored.kind === 'transfer') return { ...base, outcome: succeeded ? 'SUCCESS' : 'REVERT' };
    // Receipts carry no return data; the trace of the call does (the revert reason when it failed).
    const callHash = stored.evmHashes.at(-1) as string;
    const trace = await this.rpc.call<{ returnValue: string }>('debug_traceTransaction', [
      callHash,
      { disableStack: true, disableMemory: true, disableStorage: true },
    ]);
    return {
      ...base,
      outcome: succeeded ? 'SUCCESS' : 'REVERT',
      contractResult: strip0x(trace.returnValue),
      logs: receipt.logs.map((l) => ({ address: strip0x(l.address).toLowerCase(), topics: l.topics.map(strip0x), data: strip0x(l.data) })),
    };
  }

  timestampOf(number: number): number {
    return this.timestamps.get(number) ?? 0;
  }

  /** A block at or below the head, with the Tron transactions it carries. */
  async block(number: number): Promise<BlockView | undefined> {
    if (!Number.isSafeInteger(number) || number < 0 || number > this.head) return undefined;
    let evm = this.minedBlocks.get(number);
    if (!evm) {
      const read = await this.rpc.call<EvmBlock | null>('eth_getBlockByNumber', [hex(number), false]);
      if (!read) return undefined;
      this.minedBlocks.set(number, (evm = read));
    }
    return {
      number,
      blockID: blockIdOf(number, evm.hash),
      parentID: number === 0 ? strip0x(evm.parentHash) : blockIdOf(number - 1, evm.parentHash),
      // Blocks from before this process took over (genesis) keep hardhat's time, in ms.
      timestamp: this.timestamps.get(number) ?? Number(evm.timestamp) * 1000,
      txTrieRoot: strip0x(evm.transactionsRoot),
      witness: fromEvmAddress(evm.miner),
      txIDs: this.blockTxs.get(number) ?? [],
    };
  }

  /** The transaction, once it is in a block at or below `upTo` (the head, or the solidified head). */
  minedTransaction(txID: string, upTo: number): StoredTransaction | undefined {
    const stored = this.txs.get(txID.toLowerCase());
    return stored?.mined && stored.mined.blockNumber <= upTo ? stored : undefined;
  }

  async balanceSun(address: TronHex, blockTag: number | 'pending'): Promise<bigint> {
    const tag = blockTag === 'pending' ? blockTag : hex(blockTag);
    return BigInt(await this.rpc.call<string>('eth_getBalance', [toEvmAddress(address), tag])) / WEI_PER_SUN;
  }

  async code(address: TronHex, blockTag: number | 'pending'): Promise<string> {
    const deployed = this.deployedCode.get(address);
    if (deployed && (blockTag === 'pending' || blockTag >= deployed.since)) return deployed.code;
    const tag = blockTag === 'pending' ? blockTag : hex(blockTag);
    const code = strip0x(await this.rpc.call<string>('eth_getCode', [toEvmAddress(address), tag]));
    if (code !== '' && blockTag !== 'pending') this.deployedCode.set(address, { code, since: blockTag });
    return code;
  }

  /** Tron creates an account when it first receives TRX; here: any balance, any sent transaction, or code. */
  async account(address: TronHex, blockNumber: number): Promise<{ balanceSun: bigint; isContract: boolean } | undefined> {
    const [balanceSun, nonce, code] = await Promise.all([
      this.balanceSun(address, blockNumber),
      this.rpc.call<string>('eth_getTransactionCount', [toEvmAddress(address), hex(blockNumber)]),
      this.code(address, blockNumber),
    ]);
    if (balanceSun === 0n && BigInt(nonce) === 0n && code === '' && this.assetsOf(address).size === 0) return undefined;
    return { balanceSun, isContract: code !== '' };
  }

  async setBalance(address: TronHex, sun: bigint): Promise<void> {
    await this.rpc.call('hardhat_setBalance', [toEvmAddress(address), hex(sun * WEI_PER_SUN)]);
  }

  /** An unsigned transaction referencing the head block, as java-tron's builders make it. */
  async buildTransaction(contract: RawContract, feeLimit?: number): Promise<TronTransaction> {
    const head = await this.block(this.head);
    if (!head) throw new Error(`head block ${this.head} is missing`);
    return sealTransaction(
      {
        contract: [contract],
        ref_block_bytes: (head.number & 0xffff).toString(16).padStart(4, '0'),
        ref_block_hash: head.blockID.slice(16, 32),
        expiration: head.timestamp + EXPIRATION_MS,
        timestamp: Date.now(),
        ...(feeLimit ? { fee_limit: feeLimit } : {}),
      },
      false,
    );
  }

  /** java-tron's TransferActuator checks (the balance one against `balanceSun`). */
  async validateTransfer(value: TransferContractValue, balanceSun: bigint): Promise<void> {
    if (value.amount <= 0) throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'Amount must be greater than 0.');
    if (value.owner_address === value.to_address) {
      throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'Cannot transfer TRX to yourself.');
    }
    if ((await this.code(value.to_address, this.head)) !== '') {
      throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'Cannot transfer TRX to a smartContract.');
    }
    if (balanceSun < BigInt(value.amount)) {
      throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'Validate TransferContract error, balance is not sufficient.');
    }
  }

  async requireContract(address: TronHex): Promise<void> {
    if ((await this.code(address, this.head)) === '') {
      throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'No contract or not a valid smart contract');
    }
  }

  /** eth_call at a block: `{ reverted, result }` with the return or revert data (hex, no 0x). */
  async constantCall(value: TriggerSmartContractValue, blockNumber: number): Promise<{ reverted: boolean; result: string }> {
    try {
      const result = await this.rpc.call<string>('eth_call', [
        {
          from: toEvmAddress(value.owner_address),
          to: toEvmAddress(value.contract_address),
          data: `0x${value.data ?? ''}`,
          value: hex(BigInt(value.call_value ?? 0) * WEI_PER_SUN),
        },
        hex(blockNumber),
      ]);
      return { reverted: false, result: strip0x(result) };
    } catch (err) {
      if (err instanceof RpcError && err.data !== undefined) return { reverted: true, result: strip0x(err.data) };
      throw err;
    }
  }

  /** Checks a signed transaction as java-tron's broadcast does, then queues it for the next block. Returns its txID. */
  broadcast(tx: TronTransaction): Promise<string> {
    return this.exclusive(async () => {
      if (this.txs.has(tx.txID)) throw new BroadcastError('DUP_TRANSACTION_ERROR', 'Dup transaction.');
      const head = await this.block(this.head);
      if (!head) throw new Error(`head block ${this.head} is missing`);
      const { expiration } = tx.raw_data;
      // java-tron's rule: expired once the head block's time reached the expiration (the chain's clock, not the wall's).
      if (expiration <= head.timestamp || expiration > head.timestamp + MAX_EXPIRATION_MS) {
        throw new BroadcastError('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
      }
      await this.checkTapos(tx.raw_data);
      const [contract] = tx.raw_data.contract;
      if (!contract) throw new RequestError('raw_data.contract is empty');
      const owner = contract.parameter.value.owner_address;
      this.checkSignature(tx, owner);
      if (contract.Permission_id) {
        throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'only the owner permission (Permission_id 0) is modelled by the Tron devnet');
      }
      const stored: StoredTransaction =
        contract.type === 'TransferContract'
          ? await this.queueTransfer(tx, contract.parameter.value as TransferContractValue)
          : contract.type === 'TransferAssetContract'
            ? this.queueAsset(tx, contract.parameter.value as TransferAssetContractValue)
            : await this.queueCall(tx, contract.parameter.value as TriggerSmartContractValue);
      this.txs.set(tx.txID, stored);
      for (const hash of stored.evmHashes) this.txIdByEvmHash.set(hash, tx.txID);
      this.pending.push(tx.txID);
      return tx.txID;
    });
  }

  private async checkTapos(raw: RawData): Promise<void> {
    // The reference block is the latest one whose number ends in ref_block_bytes; its id must carry ref_block_hash.
    const low = parseInt(raw.ref_block_bytes, 16);
    const number = this.head - ((this.head - low + TAPOS_WINDOW) % TAPOS_WINDOW);
    const ref = number >= 0 ? await this.block(number) : undefined;
    if (!ref || ref.blockID.slice(16, 32) !== raw.ref_block_hash) throw new BroadcastError('TAPOS_ERROR', 'Tapos check error.');
  }

  private checkSignature(tx: TronTransaction, owner: TronHex): void {
    const signatures = tx.signature ?? [];
    if (signatures.length === 0) throw new BroadcastError('SIGERROR', 'Validate signature error: miss sig or contract');
    if (signatures.length > 1) throw new BroadcastError('SIGERROR', 'Validate signature error: multi-signature is not modelled by the Tron devnet');
    let signer: TronHex;
    try {
      signer = recoverSigner(tx.txID, signatures[0] as string);
    } catch (err) {
      throw new BroadcastError('SIGERROR', `Validate signature error: ${(err as Error).message}`);
    }
    if (signer !== owner) {
      throw new BroadcastError('SIGERROR', `Validate signature error: ${signatures[0]} is signed by ${signer} but it is not contained of permission.`);
    }
  }

  private async queueTransfer(tx: TronTransaction, value: TransferContractValue): Promise<StoredTransaction> {
    await this.validateTransfer(value, await this.balanceSun(value.owner_address, 'pending'));
    const hash = await this.sendAs(value.owner_address, value.to_address, BigInt(value.amount), undefined, VALUE_TRANSFER_GAS);
    return { tx, feeSun: 0n, kind: 'transfer', evmHashes: [hash] };
  }

  /** java-tron's TransferAssetActuator checks, against the balance less what queued transfers already spend. */
  private queueAsset(tx: TronTransaction, value: TransferAssetContractValue): StoredTransaction {
    const id = Buffer.from(value.asset_name, 'hex').toString('utf8');
    if (!this.assets.has(id)) throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'No asset!');
    if (value.amount <= 0) throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'Amount must be greater than 0.');
    if (value.owner_address === value.to_address) throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'Cannot transfer asset to yourself.');
    const queued = this.pending
      .map((txID) => this.txs.get(txID))
      .filter((p): p is StoredTransaction => p?.kind === 'asset')
      .map((p) => p.tx.raw_data.contract[0]!.parameter.value as TransferAssetContractValue)
      .filter((v) => v.owner_address === value.owner_address && v.asset_name === value.asset_name)
      .reduce((sum, v) => sum + BigInt(v.amount), 0n);
    if ((this.assetsOf(value.owner_address).get(id) ?? 0n) - queued < BigInt(value.amount)) {
      throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'assetBalance is not sufficient.');
    }
    return { tx, feeSun: 0n, kind: 'asset', evmHashes: [] };
  }

  private async queueCall(tx: TronTransaction, value: TriggerSmartContractValue): Promise<StoredTransaction> {
    if (value.call_token_value || value.token_id) {
      throw new BroadcastError('CONTRACT_VALIDATE_ERROR', 'TRC10 tokens are not modelled by the Tron devnet');
    }
    await this.requireContract(value.contract_address);
    const feeLimit = tx.raw_data.fee_limit ?? 0;
    if (feeLimit > MAX_FEE_LIMIT_SUN) {
      throw new BroadcastError('CONTRACT_VALIDATE_ERROR', `feeLimit must be >= 0 and <= ${MAX_FEE_LIMIT_SUN}`);
    }
    // Like energy burned on mainnet: the whole flat fee when fee_limit covers it; otherwise fee_limit is burned
    // and the call fails with OUT_OF_ENERGY, in a block.
    const outOfEnergy = BigInt(feeLimit) < this.opts.contractCallFeeSun;
    const feeSun = outOfEnergy ? BigInt(feeLimit) : this.opts.contractCallFeeSun;
    const callValue = outOfEnergy ? 0n : BigInt(value.call_value ?? 0);
    const balance = await this.balanceSun(value.owner_address, 'pending');
    if (balance < feeSun + callValue) {
      throw new BroadcastError(
        'CONTRACT_VALIDATE_ERROR',
        `Validate TriggerSmartContract error, balance is not sufficient: ${balance} sun, and the devnet burns ${feeSun} sun per contract call`,
      );
    }
    // The fee transfer goes first and always exists, so even a call that burns nothing has a carrier in a block.
    const evmHashes = [await this.sendAs(value.owner_address, BLACK_HOLE, feeSun, undefined, VALUE_TRANSFER_GAS)];
    if (!outOfEnergy) evmHashes.push(await this.sendAs(value.owner_address, value.contract_address, callValue, value.data ?? '', CALL_GAS));
    return { tx, feeSun, kind: outOfEnergy ? 'outOfEnergy' : 'call', evmHashes };
  }

  /** Deploys a contract from `owner` and mines it (setup only: Tron's CreateSmartContract is not served). */
  async deploy(owner: TronHex, initCode: string): Promise<TronHex> {
    const hash = await this.exclusive(() => this.sendAs(owner, undefined, 0n, strip0x(initCode), CALL_GAS));
    await this.mine();
    const receipt = await this.rpc.call<{ status: string; contractAddress: string | null } | null>('eth_getTransactionReceipt', [hash]);
    if (receipt?.status !== '0x1' || !receipt.contractAddress) throw new Error(`deployment ${hash} failed`);
    return fromEvmAddress(receipt.contractAddress);
  }

  private async sendAs(from: TronHex, to: TronHex | undefined, valueSun: bigint, data: string | undefined, gas: number): Promise<string> {
    if (!this.impersonated.has(from)) {
      await this.rpc.call('hardhat_impersonateAccount', [toEvmAddress(from)]);
      this.impersonated.add(from);
    }
    return this.rpc.call<string>('eth_sendTransaction', [
      {
        from: toEvmAddress(from),
        ...(to === undefined ? {} : { to: toEvmAddress(to) }),
        value: hex(valueSun * WEI_PER_SUN),
        ...(data === undefined ? {} : { data: `0x${data}` }),
        gas: hex(gas),
        gasPrice: '0x0',
      },
    ]);
  }
}
