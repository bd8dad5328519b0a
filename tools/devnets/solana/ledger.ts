// litesvm's napi binding, used directly: its kit-facing wrapper converts every address through kit's BigInt base58
// (~70 µs each) and re-encodes transactions we already hold as wire bytes.
import { createHash } from 'node:crypto';
import { Account, Clock, FailedTransactionMetadata, LiteSvm, type AddressAndAccount, type TransactionMetadata } from 'litesvm/dist/internal';
import {
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type CompiledTransactionMessageWithLifetime,
  type LegacyCompiledTransactionMessage,
  type V0CompiledTransactionMessage,
} from '@solana/kit';
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  isTokenAccount,
  MEMO_PROGRAMS,
  mintDecimals,
  sameAccount,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  tokenAccountHead,
  uiTokenAmount,
  type AccountState,
  type UiTokenAmount,
} from './accounts';
import { decodeBase58, encodeBase58 } from './base58';
import {
  invalidParams,
  RPC_INTERNAL_ERROR,
  RPC_MIN_CONTEXT_SLOT_NOT_REACHED,
  RpcError,
  transactionErrorJson,
  type TransactionErrorJson,
} from './errors';

export type Commitment = 'processed' | 'confirmed' | 'finalized';
export type ConfirmationStatus = 'confirmed' | 'finalized';
/** The message versions clusters accept today (kit can also build v1, which they do not). */
export type MessageBody = LegacyCompiledTransactionMessage | V0CompiledTransactionMessage;
export type Message = MessageBody & CompiledTransactionMessageWithLifetime;

// Slots before genesis count as skipped, so block height (slot − 1,000) never equals the slot: code that mixes them up
// fails here as it would on a real cluster.
export const GENESIS_SLOT = 1_000;
/** A blockhash is valid for 150 blocks after its own (Agave's MAX_PROCESSING_AGE). */
const MAX_PROCESSING_AGE = 150;
/** getSignatureStatuses without searchTransactionHistory sees only the status cache: about 300 slots. */
const STATUS_CACHE_SLOTS = 300;
const PRIORITIZATION_FEE_SLOTS = 150;
const LAMPORTS_PER_SIGNATURE = 5_000n;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000n;
const BUILTIN_INSTRUCTION_COMPUTE_UNIT_LIMIT = 3_000n;
const BUILTIN_PROGRAMS: ReadonlySet<string> = new Set([
  SYSTEM_PROGRAM, COMPUTE_BUDGET_PROGRAM, ADDRESS_LOOKUP_TABLE_PROGRAM, 'Vote111111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111', 'Config1111111111111111111111111111111111111', 'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111', 'BPFLoaderUpgradeab1e11111111111111111111111', 'LoaderV411111111111111111111111111111111111',
]);
const COMPUTE_BUDGET_SET_LIMIT = 2;
const COMPUTE_BUDGET_SET_PRICE = 3;
const SYSTEM_ADVANCE_NONCE = 4;
const NONCE_INITIALIZED = 1;
const NONCE_DURABLE_HASH_OFFSET = 40;
const LOOKUP_TABLE_META_SIZE = 56;

export interface TokenBalance { accountIndex: number; mint: Address; owner: Address; programId: Address; uiTokenAmount: UiTokenAmount }
export interface InnerInstruction { programIdIndex: number; accounts: number[]; data: Uint8Array; stackHeight: number }

/** Everything getTransaction and getSignaturesForAddress report about one landed transaction. */
export interface TxRecord {
  signature: string;
  slot: number;
  blockTime: number;
  wire: Uint8Array;
  /** Static keys, then the lookup tables' writable, then their readonly addresses: the indexes meta refers to. */
  accountKeys: Address[];
  loadedAddresses: { writable: Address[]; readonly: Address[] };
  err: TransactionErrorJson | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logMessages: string[];
  innerInstructions: { index: number; instructions: InnerInstruction[] }[];
  computeUnitsConsumed: bigint;
  returnData: { programId: Address; data: Uint8Array } | null;
  memo: string | null;
}

export interface Decoded {
  wire: Uint8Array;
  message: Message;
  /** The first (fee payer's) signature: the transaction's id. */
  signature: string;
  signatures: string[];
}

export interface ExecutionDetail {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  returnData: TxRecord['returnData'];
  innerInstructions: TxRecord['innerInstructions'];
}

export interface Simulation extends ExecutionDetail {
  /** Post-execution state of the requested addresses (current state for those the transaction does not touch). */
  accounts: (AccountState | null)[];
  fee: bigint | null;
}

export type SubmitResult = { landed: TxRecord } | { dropped: TransactionErrorJson; detail: ExecutionDetail };

interface BlockhashEntry { blockhash: string; slot: number; lastValidBlockHeight: number }
interface SlotSegment { startSlot: number; startMs: number; slotTimeMs: number }
interface SlotFees { min: bigint; byAccount: Map<Address, bigint> }

/** What stop() writes and start() reads back; bigints and bytes are tagged by the state-file codec. */
export interface LedgerState {
  version: 1;
  svm: Uint8Array;
  slot: number;
  segments: SlotSegment[];
  blockhashes: BlockhashEntry[];
  /** Absent in state files written before blocks were served. */
  slotHashes?: [number, string][];
  txs: TxRecord[];
  undo: [number, [Address, AccountState | null][]][];
}

export interface LedgerOptions { slotTimeMs: number; finalityDepth: number }

/** What subscriptions react to: a new slot (confirmations and finality move) or a landed transaction. */
export type LedgerEvent = { kind: 'slot'; slot: number } | { kind: 'transaction'; record: TxRecord };

const emptyDetail = (err: TransactionErrorJson): ExecutionDetail => ({ err, logs: [], unitsConsumed: 0n, returnData: null, innerInstructions: [] });

/**
 * Whether account key `i` (static keys, then lookup-table writable, then readonly) is write-locked: the header's
 * rule, with invoked programs demoted as the runtime does.
 */
export function isWritable(message: MessageBody, i: number, loadedWritable: number): boolean {
  const statics = message.staticAccounts.length;
  if (i >= statics) return i < statics + loadedWritable;
  if (message.instructions.some((ix) => ix.programAddressIndex === i)) return false;
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
  return i < numSignerAccounts ? i < numSignerAccounts - numReadonlySignerAccounts : i < statics - numReadonlyNonSignerAccounts;
}

function configure(svm: LiteSvm): LiteSvm {
  // litesvm accepts only its latest blockhash and keeps its own history for duplicate checks; the ledger models the
  // 150-block validity window and the signature index itself, so both are off in the engine.
  svm.setBlockhashCheck(false);
  svm.setTransactionHistory(0n);
  return svm;
}

const addressOfBytes = (bytes: Uint8Array): Address => encodeBase58(bytes) as Address;

function accountState(account: Account): AccountState {
  return { lamports: account.lamports(), data: account.data(), owner: addressOfBytes(account.owner()), executable: account.executable() };
}

/**
 * The chain: litesvm executes, this class adds what a cluster has around it: slots and block times on a clock,
 * rotating and expiring blockhashes, commitment levels, a transaction and signature index with full metadata, and
 * the state that survives a restart.
 */
export class Ledger {
  private slot: number;
  private readonly segments: SlotSegment[];
  private readonly blockhashes = new Map<string, BlockhashEntry>();
  private readonly txs: TxRecord[] = [];
  private readonly bySignature = new Map<string, number>();
  private readonly byAddress = new Map<Address, number[]>();
  private readonly bySlot = new Map<number, number[]>();
  /** Every slot's blockhash since genesis (blocks are served for any slot, not only while the hash is valid). */
  private readonly slotHashes = new Map<number, string>();
  /** Per slot not yet final, each touched account's state before that slot: finalized reads are served from it. */
  private readonly undo = new Map<number, Map<Address, AccountState | null>>();
  private readonly fees = new Map<number, SlotFees>();
  private readonly tokenAccountsByOwner = new Map<Address, Set<Address>>();
  private readonly decimalsByMint = new Map<Address, number>();
  private readonly listeners: ((event: LedgerEvent) => void)[] = [];

  private constructor(private readonly svm: LiteSvm, private readonly opts: LedgerOptions, state?: LedgerState) {
    if (state === undefined) {
      this.slot = GENESIS_SLOT;
      this.segments = [{ startSlot: GENESIS_SLOT, startMs: Date.now(), slotTimeMs: opts.slotTimeMs }];
      this.enterSlot();
      return;
    }
    this.slot = state.slot;
    // A restarted devnet resumes at the next slot: the chain did not run while it was down.
    this.segments = [...state.segments, { startSlot: state.slot + 1, startMs: Date.now(), slotTimeMs: opts.slotTimeMs }];
    for (const entry of state.blockhashes) this.blockhashes.set(entry.blockhash, entry);
    for (const [slot, hash] of state.slotHashes ?? []) this.slotHashes.set(slot, hash);
    for (const record of state.txs) this.index(record);
    for (const [slot, accounts] of state.undo) this.undo.set(slot, new Map(accounts));
    for (const program of [TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
      for (const entry of svm.getProgramAccounts(decodeBase58(program))) {
        const account = accountState(entry.account());
        if (isTokenAccount(account)) this.trackOwner(addressOfBytes(entry.address), null, account);
      }
    }
    this.tick();
  }

  static create(opts: LedgerOptions): Ledger {
    return new Ledger(configure(new LiteSvm()), opts);
  }

  static restore(state: LedgerState, opts: LedgerOptions): Ledger {
    return new Ledger(configure(LiteSvm.fromBytes(state.svm)), opts, state);
  }

  snapshot(): LedgerState {
    return {
      version: 1,
      svm: this.svm.toBytes(),
      slot: this.slot,
      segments: this.segments,
      blockhashes: [...this.blockhashes.values()],
      slotHashes: [...this.slotHashes],
      txs: this.txs,
      undo: [...this.undo].map(([slot, accounts]) => [slot, [...accounts]]),
    };
  }

  /** Genesis allocations: accounts that exist before any transaction (the faucet). */
  setGenesisAccount(address: Address, account: AccountState): void {
    this.svm.setAccount(decodeBase58(address), new Account(account.lamports, account.data, decodeBase58(account.owner), account.executable, 0n));
  }

  // ---- time ----

  /** Advances to the slot the wall clock says; called on a timer and before every request. */
  tick(): void {
    const segment = this.segments[this.segments.length - 1]!;
    const target = segment.startSlot + Math.floor((Date.now() - segment.startMs) / segment.slotTimeMs);
    while (this.slot < target) {
      this.slot += 1;
      this.enterSlot();
      this.emit({ kind: 'slot', slot: this.slot });
    }
  }

  onEvent(listener: (event: LedgerEvent) => void): void {
    this.listeners.push(listener);
  }

  private emit(event: LedgerEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private enterSlot(): void {
    const slot = BigInt(this.slot);
    const schedule = this.svm.getEpochSchedule();
    const epoch = slot / schedule.slotsPerEpoch;
    const unixTimestamp = BigInt(this.blockTime(this.slot));
    const epochStartTimestamp = BigInt(this.blockTime(Math.max(GENESIS_SLOT, Number(epoch * schedule.slotsPerEpoch))));
    this.svm.setClock(new Clock(slot, epochStartTimestamp, epoch, epoch + 1n, unixTimestamp));
    this.svm.expireBlockhash();
    const height = this.blockHeight('processed');
    this.blockhashes.set(this.svm.latestBlockhash(), { blockhash: this.svm.latestBlockhash(), slot: this.slot, lastValidBlockHeight: height + MAX_PROCESSING_AGE });
    this.slotHashes.set(this.slot, this.svm.latestBlockhash());
    for (const [hash, entry] of this.blockhashes) if (entry.lastValidBlockHeight < height) this.blockhashes.delete(hash);
    for (const undoSlot of this.undo.keys()) if (undoSlot <= this.finalizedSlot()) this.undo.delete(undoSlot);
    for (const feeSlot of this.fees.keys()) if (feeSlot <= this.slot - PRIORITIZATION_FEE_SLOTS) this.fees.delete(feeSlot);
  }

  /**
   * The newest slot at the commitment: the slot being produced (processed), the last one that ended, whose block is
   * complete (confirmed), or the one `finalityDepth` slots below that (finalized).
   */
  slotAt(commitment: Commitment): number {
    if (commitment === 'processed') return this.slot;
    return commitment === 'finalized' ? this.finalizedSlot() : this.confirmedSlot();
  }

  private confirmedSlot(): number {
    return Math.max(GENESIS_SLOT, this.slot - 1);
  }

  private finalizedSlot(): number {
    return Math.max(GENESIS_SLOT, this.confirmedSlot() - this.opts.finalityDepth);
  }

  blockHeight(commitment: Commitment): number {
    return this.slotAt(commitment) - GENESIS_SLOT;
  }

  /** Unix seconds of a slot's block; every slot since genesis has one. */
  blockTime(slot: number): number {
    const segment = [...this.segments].reverse().find((s) => s.startSlot <= slot) ?? this.segments[0]!;
    return Math.floor((segment.startMs + (slot - segment.startSlot) * segment.slotTimeMs) / 1000);
  }

  /** Throws the RPC's -32016 when the node has not reached a slot the client already saw. */
  assertMinContextSlot(minContextSlot: number | undefined, commitment: Commitment): void {
    const slot = this.slotAt(commitment);
    if (minContextSlot !== undefined && minContextSlot > slot) {
      throw new RpcError(RPC_MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', { contextSlot: slot });
    }
  }

  epochInfo(commitment: Commitment): { absoluteSlot: number; blockHeight: number; epoch: number; slotIndex: number; slotsInEpoch: number; transactionCount: number } {
    const slotsInEpoch = Number(this.svm.getEpochSchedule().slotsPerEpoch);
    const absoluteSlot = this.slotAt(commitment);
    const transactionCount = this.txs.filter((tx) => tx.slot <= absoluteSlot).length;
    return { absoluteSlot, blockHeight: this.blockHeight(commitment), epoch: Math.floor(absoluteSlot / slotsInEpoch), slotIndex: absoluteSlot % slotsInEpoch, slotsInEpoch, transactionCount };
  }

  latestBlockhash(commitment: Commitment): BlockhashEntry {
    const slot = this.slotAt(commitment);
    const entry = [...this.blockhashes.values()].find((e) => e.slot === slot);
    if (entry === undefined) throw new RpcError(RPC_INTERNAL_ERROR, `no blockhash recorded for slot ${slot}`);
    return entry;
  }

  isBlockhashValid(blockhash: string, commitment: Commitment): boolean {
    const entry = this.blockhashes.get(blockhash);
    return entry !== undefined && entry.slot <= this.slotAt(commitment) && entry.lastValidBlockHeight >= this.blockHeight('processed');
  }

  // ---- accounts ----

  private current(address: Address): AccountState | null {
    const account = this.svm.getAccount(decodeBase58(address));
    return account === null ? null : accountState(account);
  }

  /** An account as of a commitment level: finalized reads undo what the last few slots changed. */
  account(address: Address, commitment: Commitment): AccountState | null {
    if (commitment === 'finalized') {
      const finalized = this.finalizedSlot();
      // The undo map holds slots in the order they were entered, oldest first: the first hit is the finalized state.
      for (const [slot, before] of this.undo) if (slot > finalized && before.has(address)) return before.get(address)!;
    }
    return this.current(address);
  }

  minimumBalanceForRentExemption(space: bigint): bigint {
    return this.svm.minimumBalanceForRentExemption(space);
  }

  decimals(mint: Address): number | null {
    const cached = this.decimalsByMint.get(mint);
    if (cached !== undefined) return cached;
    const decimals = mintDecimals(this.current(mint));
    if (decimals !== null) this.decimalsByMint.set(mint, decimals);
    return decimals;
  }

  tokenAccountsOf(owner: Address): Address[] {
    return [...(this.tokenAccountsByOwner.get(owner) ?? [])];
  }

  private trackOwner(address: Address, before: AccountState | null, after: AccountState | null): void {
    if (before !== null && isTokenAccount(before)) this.tokenAccountsByOwner.get(tokenAccountHead(before).owner)?.delete(address);
    if (after !== null && isTokenAccount(after)) {
      const owner = tokenAccountHead(after).owner;
      const set = this.tokenAccountsByOwner.get(owner) ?? new Set<Address>();
      set.add(address);
      this.tokenAccountsByOwner.set(owner, set);
    }
  }

  // ---- transactions ----

  decode(wire: Uint8Array): Decoded {
    try {
      const tx = getTransactionDecoder().decode(wire);
      const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
      if (message.version !== 'legacy' && message.version !== 0) throw new Error(`transaction version ${String(message.version)} is not supported`);
      const signatures = Object.values(tx.signatures).map((s) => encodeBase58(s ?? new Uint8Array(64)));
      return { wire, message, signature: signatures[0] ?? encodeBase58(new Uint8Array(64)), signatures };
    } catch (err) {
      throw invalidParams(`failed to deserialize VersionedTransaction: ${(err as Error).message}`);
    }
  }

  isKnown(signature: string): boolean {
    return this.bySignature.has(signature);
  }

  /** A recent blockhash within its validity window, or a durable nonce that matches its nonce account. */
  lifetimeValid(message: Message): boolean {
    if (this.isBlockhashValid(message.lifetimeToken, 'processed')) return true;
    const advance = message.instructions[0];
    const data = advance?.data;
    if (advance === undefined || data === undefined || message.staticAccounts[advance.programAddressIndex] !== SYSTEM_PROGRAM) return false;
    if (data.length < 4 || Buffer.from(data).readUInt32LE(0) !== SYSTEM_ADVANCE_NONCE) return false;
    const nonceAddress = message.staticAccounts[advance.accountIndices?.[0] ?? -1];
    const nonce = nonceAddress === undefined ? null : this.current(nonceAddress);
    if (nonce === null || nonce.owner !== SYSTEM_PROGRAM || nonce.data.length < NONCE_DURABLE_HASH_OFFSET + 32) return false;
    if (Buffer.from(nonce.data).readUInt32LE(4) !== NONCE_INITIALIZED) return false;
    return encodeBase58(nonce.data.subarray(NONCE_DURABLE_HASH_OFFSET, NONCE_DURABLE_HASH_OFFSET + 32)) === message.lifetimeToken;
  }

  /** Static keys plus the addresses the transaction loads from lookup tables, in the order meta indexes them. */
  accountKeys(message: Message): { keys: Address[]; loaded: TxRecord['loadedAddresses'] } | { error: TransactionErrorJson } {
    const loaded: TxRecord['loadedAddresses'] = { writable: [], readonly: [] };
    const lookups = 'addressTableLookups' in message ? message.addressTableLookups ?? [] : [];
    for (const lookup of lookups) {
      const table = this.current(lookup.lookupTableAddress);
      if (table === null) return { error: 'AddressLookupTableNotFound' };
      if (table.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) return { error: 'InvalidAddressLookupTableOwner' };
      const at = (i: number): Address | null => {
        const offset = LOOKUP_TABLE_META_SIZE + 32 * i;
        return offset + 32 <= table.data.length ? addressOfBytes(table.data.subarray(offset, offset + 32)) : null;
      };
      for (const [indexes, into] of [[lookup.writableIndexes, loaded.writable], [lookup.readonlyIndexes, loaded.readonly]] as const) {
        for (const i of indexes) {
          const address = at(i);
          if (address === null) return { error: 'InvalidAddressLookupTableIndex' };
          into.push(address);
        }
      }
    }
    return { keys: [...message.staticAccounts, ...loaded.writable, ...loaded.readonly], loaded };
  }

  /** The compute-unit limit and price the runtime applies: ComputeBudget instructions, or the defaults. */
  private static computeBudget(message: MessageBody): { units: bigint; microLamportsPerUnit: bigint } {
    let limit: bigint | undefined;
    let microLamportsPerUnit = 0n;
    let defaultLimit = 0n;
    for (const ix of message.instructions) {
      const program = message.staticAccounts[ix.programAddressIndex] ?? '';
      defaultLimit += BUILTIN_PROGRAMS.has(program) ? BUILTIN_INSTRUCTION_COMPUTE_UNIT_LIMIT : DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT;
      if (program !== COMPUTE_BUDGET_PROGRAM || ix.data === undefined) continue;
      const data = Buffer.from(ix.data);
      if (data[0] === COMPUTE_BUDGET_SET_LIMIT && data.length >= 5) limit = BigInt(data.readUInt32LE(1));
      if (data[0] === COMPUTE_BUDGET_SET_PRICE && data.length >= 9) microLamportsPerUnit = data.readBigUInt64LE(1);
    }
    return { units: limit ?? (defaultLimit < MAX_COMPUTE_UNIT_LIMIT ? defaultLimit : MAX_COMPUTE_UNIT_LIMIT), microLamportsPerUnit };
  }

  /** Fee as the runtime charges it: 5,000 lamports a signature plus the compute-unit price times the unit limit. */
  fee(message: MessageBody): bigint {
    const { units, microLamportsPerUnit } = Ledger.computeBudget(message);
    const priority = (microLamportsPerUnit * units + 999_999n) / 1_000_000n;
    return LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts) + priority;
  }

  private static detail(meta: TransactionMetadata, err: TransactionErrorJson | null): ExecutionDetail {
    const returned = meta.returnData();
    const returnData = returned.data().length > 0 ? { programId: addressOfBytes(returned.programId()), data: returned.data() } : null;
    const innerInstructions = meta.innerInstructions().flatMap((list, index) => list.length === 0 ? [] : [{
      index,
      instructions: list.map((inner) => {
        const ix = inner.instruction();
        return { programIdIndex: ix.programIdIndex(), accounts: [...ix.accounts()], data: ix.data(), stackHeight: inner.stackHeight() };
      }),
    }]);
    return { err, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), returnData, innerInstructions };
  }

  /** Runs a transaction without committing it. The caller has checked the lifetime unless it asked to replace it. */
  simulate(decoded: Decoded, opts: { sigVerify: boolean; addresses: Address[] }): Simulation {
    const keys = this.accountKeys(decoded.message);
    const fee = this.fee(decoded.message);
    const none = (err: TransactionErrorJson): Simulation => ({ ...emptyDetail(err), accounts: [], fee: null });
    if ('error' in keys) return none(keys.error);
    this.svm.setSigverify(opts.sigVerify);
    let result: ReturnType<LiteSvm['simulateVersionedTransaction']>;
    try {
      result = decoded.message.version === 'legacy' ? this.svm.simulateLegacyTransaction(decoded.wire) : this.svm.simulateVersionedTransaction(decoded.wire);
    } finally {
      this.svm.setSigverify(true);
    }
    if (result instanceof FailedTransactionMetadata) {
      return { ...Ledger.detail(result.meta(), transactionErrorJson(result)), accounts: [], fee: null };
    }
    const post = new Map(result.postAccounts().map((a: AddressAndAccount) => [addressOfBytes(a.address), accountState(a.account())]));
    const accounts = opts.addresses.map((address) => post.get(address) ?? this.current(address));
    return { ...Ledger.detail(result.meta(), null), accounts, fee };
  }

  /** Executes and commits; a transaction that paid no fee never landed, as on a cluster. */
  execute(decoded: Decoded): SubmitResult {
    const keys = this.accountKeys(decoded.message);
    if ('error' in keys) return { dropped: keys.error, detail: emptyDetail(keys.error) };
    const pre = keys.keys.map((k) => this.current(k));
    const result = decoded.message.version === 'legacy' ? this.svm.sendLegacyTransaction(decoded.wire) : this.svm.sendVersionedTransaction(decoded.wire);
    const post = keys.keys.map((k) => this.current(k));
    const err = result instanceof FailedTransactionMetadata ? transactionErrorJson(result) : null;
    const detail = Ledger.detail(result instanceof FailedTransactionMetadata ? result.meta() : result, err);
    if (err !== null && (pre[0] === null || pre[0]?.lamports === post[0]?.lamports)) return { dropped: err, detail };

    const slotUndo = this.undo.get(this.slot) ?? new Map<Address, AccountState | null>();
    this.undo.set(this.slot, slotUndo);
    keys.keys.forEach((address, i) => {
      const before = pre[i] ?? null;
      const after = post[i] ?? null;
      if (sameAccount(before, after)) return;
      if (!slotUndo.has(address)) slotUndo.set(address, before);
      this.trackOwner(address, before, after);
    });
    this.recordPriorityFee(decoded.message, keys.keys, keys.loaded.writable.length);

    const record: TxRecord = {
      signature: decoded.signature,
      slot: this.slot,
      blockTime: this.blockTime(this.slot),
      wire: decoded.wire,
      accountKeys: keys.keys,
      loadedAddresses: keys.loaded,
      err,
      fee: this.fee(decoded.message),
      preBalances: pre.map((a) => a?.lamports ?? 0n),
      postBalances: post.map((a) => a?.lamports ?? 0n),
      preTokenBalances: this.tokenBalances(pre),
      postTokenBalances: this.tokenBalances(post),
      logMessages: detail.logs,
      innerInstructions: detail.innerInstructions,
      computeUnitsConsumed: detail.unitsConsumed,
      returnData: detail.returnData,
      memo: Ledger.memo(decoded.message),
    };
    this.index(record);
    this.emit({ kind: 'transaction', record });
    return { landed: record };
  }

  private tokenBalances(accounts: (AccountState | null)[]): TokenBalance[] {
    return accounts.flatMap((account, accountIndex) => {
      if (account === null || !isTokenAccount(account)) return [];
      const { mint, owner, amount } = tokenAccountHead(account);
      return [{ accountIndex, mint, owner, programId: account.owner, uiTokenAmount: uiTokenAmount(amount, this.decimals(mint) ?? 0) }];
    });
  }

  private static memo(message: Message): string | null {
    const memos = message.instructions
      .filter((ix) => MEMO_PROGRAMS.has(message.staticAccounts[ix.programAddressIndex] ?? ''))
      .map((ix) => {
        const data = ix.data ?? new Uint8Array();
        return `[${data.length}] ${Buffer.from(data).toString('utf8')}`;
      });
    return memos.length === 0 ? null : memos.join('; ');
  }

  /** Per slot, the lowest compute-unit price paid, overall and per account the transaction write-locked. */
  private recordPriorityFee(message: Message, keys: Address[], loadedWritable: number): void {
    const price = Ledger.computeBudget(message).microLamportsPerUnit;
    const slotFees = this.fees.get(this.slot) ?? { min: price, byAccount: new Map<Address, bigint>() };
    if (price < slotFees.min) slotFees.min = price;
    keys.forEach((address, i) => {
      if (!isWritable(message, i, loadedWritable)) return;
      const known = slotFees.byAccount.get(address);
      if (known === undefined || price < known) slotFees.byAccount.set(address, price);
    });
    this.fees.set(this.slot, slotFees);
  }

  /** The last 150 slots' compute-unit prices (micro-lamports), each the highest of the block's and the accounts' minimums. */
  recentPrioritizationFees(addresses: Address[]): { slot: number; prioritizationFee: bigint }[] {
    const out: { slot: number; prioritizationFee: bigint }[] = [];
    for (let slot = Math.max(GENESIS_SLOT, this.slot - PRIORITIZATION_FEE_SLOTS + 1); slot <= this.slot; slot++) {
      const slotFees = this.fees.get(slot);
      let fee = slotFees?.min ?? 0n;
      for (const address of addresses) {
        const accountFee = slotFees?.byAccount.get(address) ?? 0n;
        if (accountFee > fee) fee = accountFee;
      }
      out.push({ slot, prioritizationFee: fee });
    }
    return out;
  }

  private index(record: TxRecord): void {
    const seq = this.txs.length;
    this.txs.push(record);
    this.bySignature.set(record.signature, seq);
    const inSlot = this.bySlot.get(record.slot) ?? [];
    inSlot.push(seq);
    this.bySlot.set(record.slot, inSlot);
    for (const address of new Set(record.accountKeys)) {
      const list = this.byAddress.get(address) ?? [];
      list.push(seq);
      this.byAddress.set(address, list);
    }
  }

  // ---- history ----

  confirmationStatus(record: TxRecord): ConfirmationStatus {
    return record.slot <= this.finalizedSlot() ? 'finalized' : 'confirmed';
  }

  /** confirmations as the RPC counts them: blocks on top, null once rooted. */
  confirmations(record: TxRecord): number | null {
    return this.confirmationStatus(record) === 'finalized' ? null : this.slot - record.slot;
  }

  /**
   * The block of a slot up to the commitment's slot (every slot since genesis has one; none before), with its
   * transactions in the order they executed. A slot's blockhash from before a restart of an older state file is
   * derived from the slot.
   */
  block(slot: number, commitment: Commitment): { blockhash: string; previousBlockhash: string; parentSlot: number; blockTime: number; blockHeight: number; txs: TxRecord[] } | null {
    if (slot < GENESIS_SLOT || slot > this.slotAt(commitment)) return null;
    const hashOf = (n: number) => this.slotHashes.get(n) ?? encodeBase58(createHash('sha256').update(`payrail-solana-devnet/slot/${n}`).digest());
    return {
      blockhash: hashOf(slot),
      previousBlockhash: hashOf(Math.max(GENESIS_SLOT, slot - 1)),
      parentSlot: Math.max(GENESIS_SLOT, slot - 1),
      blockTime: this.blockTime(slot),
      blockHeight: slot - GENESIS_SLOT,
      txs: (this.bySlot.get(slot) ?? []).map((seq) => this.txs[seq]!),
    };
  }

  /** A landed transaction visible at the commitment (processed and confirmed see it at once). */
  transaction(signature: string, commitment: Commitment): TxRecord | null {
    const seq = this.bySignature.get(signature);
    const record = seq === undefined ? undefined : this.txs[seq];
    if (record === undefined) return null;
    return commitment === 'finalized' && this.confirmationStatus(record) !== 'finalized' ? null : record;
  }

  /** The status cache only reaches back ~300 slots; older signatures need searchTransactionHistory. */
  status(signature: string, searchTransactionHistory: boolean): TxRecord | null {
    const record = this.transaction(signature, 'processed');
    if (record === null) return null;
    return searchTransactionHistory || record.slot > this.slot - STATUS_CACHE_SLOTS ? record : null;
  }

  /** Newest first, paged by signatures like the RPC: `before` and `until` are exclusive. */
  signaturesFor(address: Address, opts: { before?: string; until?: string; limit: number; commitment: Commitment }): TxRecord[] {
    const seqs = this.byAddress.get(address) ?? [];
    const beforeSeq = opts.before === undefined ? Infinity : this.bySignature.get(opts.before);
    const untilSeq = opts.until === undefined ? -1 : this.bySignature.get(opts.until) ?? -1;
    if (beforeSeq === undefined) return [];
    const out: TxRecord[] = [];
    for (let i = seqs.length - 1; i >= 0 && out.length < opts.limit; i--) {
      const seq = seqs[i]!;
      if (seq >= beforeSeq) continue;
      if (seq <= untilSeq) break;
      const record = this.txs[seq]!;
      if (opts.commitment === 'finalized' && this.confirmationStatus(record) !== 'finalized') continue;
      out.push(record);
    }
    return out;
  }
}
