// The TON devnet's chain: @ton/sandbox (the real TVM emulator) with blocks, a clock and a transaction index on top.
import { createHash, randomBytes } from 'node:crypto';
import {
  Address, Cell, beginCell, loadMessage, loadTransaction, storeAccount, storeMessage,
  type Message, type ShardAccount, type Transaction, type TupleItem,
} from '@ton/core';
import {
  Blockchain, Executor, GetMethodError, SmartContract, createEmptyShardAccount,
  snapshotFromSerializable, snapshotToSerializable, type BlockchainStorage,
} from '@ton/sandbox';

/** One basechain shard covering every account; toncenter prints shard ids as signed 64-bit decimals. */
export const FULL_SHARD = '-9223372036854775808';
export const MASTERCHAIN = -1;
export const BASECHAIN = 0;

/** An error the HTTP front reports in toncenter's envelope with this code. */
export class ChainError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

export interface TxRecord {
  readonly account: Address;
  readonly tx: Transaction;
  readonly hash: Buffer;
}

/** A masterchain block and its one basechain shard block: they share the seqno here. */
export interface BlockRecord {
  readonly seqno: number;
  readonly utime: number;
  readonly startLt: bigint;
  readonly endLt: bigint;
  readonly txs: TxRecord[];
}

export type AccountStatus = 'active' | 'uninitialized' | 'frozen';
export interface AccountView {
  /** False for an address the chain has never seen (toncenter v3 leaves those out). */
  exists: boolean;
  status: AccountStatus;
  balance: bigint;
  code: Cell | null;
  data: Cell | null;
  frozenHash: Buffer | null;
  lastLt: bigint;
  lastHash: Buffer;
}

const NEVER_SEEN: AccountView = {
  exists: false, status: 'uninitialized', balance: 0n, code: null, data: null, frozenHash: null, lastLt: 0n, lastHash: Buffer.alloc(32),
};

export interface Fees { inFwdFee: bigint; storageFee: bigint; gasFee: bigint; fwdFee: bigint }

export interface SavedChain {
  version: 1;
  seed: string;
  sandbox: ReturnType<typeof snapshotToSerializable>;
  /** Index = seqno: [utime, startLt, endLt]. */
  blocks: [number, string, string][];
  txs: [seqno: number, account: string, boc: string][];
  /** Internal messages in flight, delivered in the next block. */
  pending: string[];
}

/** Get-method exit code toncenter reports for an account without code. */
const EXIT_UNINITIALIZED = -13;
const QUIET = { print: false, blockchainLogs: false, vmLogs: 'none', debugLogs: false } as const;

/** Sandbox storage that can be read without creating accounts, so reads of fresh addresses leave no trace. */
class AccountStore implements BlockchainStorage {
  private readonly contracts = new Map<string, SmartContract>();

  getContract(blockchain: Blockchain, address: Address): Promise<SmartContract> {
    const key = address.toRawString();
    let contract = this.contracts.get(key);
    if (!contract) {
      contract = SmartContract.empty(blockchain, address);
      this.contracts.set(key, contract);
    }
    return Promise.resolve(contract);
  }

  knownContracts(): SmartContract[] {
    return [...this.contracts.values()];
  }

  clearKnownContracts(): void {
    this.contracts.clear();
  }

  peek(address: Address): SmartContract | undefined {
    return this.contracts.get(address.toRawString());
  }

  forget(address: Address): void {
    this.contracts.delete(address.toRawString());
  }
}

/** The sandbox with one message per call, so the devnet decides which block each transaction lands in. */
class SandboxChain extends Blockchain {
  static async open(store: AccountStore): Promise<SandboxChain> {
    const chain = new SandboxChain({ executor: await Executor.create(), storage: store });
    chain.verbosity = { ...QUIET };
    return chain;
  }

  /** Opens a block: its lt range starts above everything before it, even after empty blocks. */
  startBlockLt(): bigint {
    this.increaseLt();
    return this.lt;
  }

  async runMessage(message: Message): Promise<Transaction> {
    this.increaseLt();
    const contract = await this.getContract(destinationOf(message));
    return contract.receiveMessage(message);
  }
}

function destinationOf(message: Message): Address {
  if (message.info.type === 'external-out') throw new ChainError(400, 'external outbound messages cannot be delivered');
  return message.info.dest;
}

function bigintHash(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
}

function isPristine(contract: SmartContract): boolean {
  return contract.lastTransactionLt === 0n && contract.balance === 0n && contract.accountState?.type !== 'active';
}

export function messageCell(message: Message): Cell {
  return beginCell().store(storeMessage(message)).endCell();
}

/** TEP-467 normalized hash of an external message: no source, no import fee, no state init, body by reference. */
export function normalizedHash(message: Message): Buffer {
  const dest = destinationOf(message);
  return beginCell()
    .store(storeMessage({ info: { type: 'external-in', src: null, dest, importFee: 0n }, body: message.body }, { forceRef: true }))
    .endCell()
    .hash();
}

export function feesOf(tx: Transaction): Fees {
  const d = tx.description;
  if (d.type !== 'generic') return { inFwdFee: 0n, storageFee: 0n, gasFee: 0n, fwdFee: 0n };
  const storageFee = d.storagePhase?.storageFeesCollected ?? 0n;
  const gasFee = d.computePhase.type === 'vm' ? d.computePhase.gasFees : 0n;
  const actionFees = d.actionPhase?.totalActionFees ?? 0n;
  // Total fees are import + storage + gas + action fees; the import fee is what remains.
  const inFwdFee = tx.totalFees.coins - storageFee - gasFee - actionFees;
  return { inFwdFee: inFwdFee > 0n ? inFwdFee : 0n, storageFee, gasFee, fwdFee: d.actionPhase?.totalFwdFees ?? 0n };
}

export class DevnetChain {
  private readonly blocks: BlockRecord[] = [];
  private readonly byAccount = new Map<string, TxRecord[]>();
  private pending: Message[] = [];
  private producing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  private constructor(
    private readonly sandbox: SandboxChain,
    private readonly store: AccountStore,
    private readonly seed: Buffer,
    private readonly log: (line: string) => void,
  ) {}

  /** A fresh chain whose zero state (block 0) is dated now. */
  static async create(log: (line: string) => void): Promise<DevnetChain> {
    const store = new AccountStore();
    const chain = new DevnetChain(await SandboxChain.open(store), store, randomBytes(32), log);
    const utime = Math.floor(Date.now() / 1000);
    chain.sandbox.now = utime;
    chain.blocks.push({ seqno: 0, utime, startLt: 0n, endLt: 0n, txs: [] });
    return chain;
  }

  static async restore(saved: SavedChain, log: (line: string) => void): Promise<DevnetChain> {
    if (saved.version !== 1) throw new Error(`unsupported TON devnet state version ${String(saved.version)}`);
    const store = new AccountStore();
    const chain = new DevnetChain(await SandboxChain.open(store), store, Buffer.from(saved.seed, 'hex'), log);
    await chain.sandbox.loadFrom(snapshotFromSerializable(saved.sandbox));
    chain.sandbox.verbosity = { ...QUIET };
    saved.blocks.forEach(([utime, startLt, endLt], seqno) => {
      chain.blocks.push({ seqno, utime, startLt: BigInt(startLt), endLt: BigInt(endLt), txs: [] });
    });
    for (const [seqno, account, boc] of saved.txs) {
      const tx = loadTransaction(Cell.fromBase64(boc).beginParse());
      const block = chain.blocks[seqno];
      if (!block) throw new Error(`saved transaction refers to missing block ${seqno}`);
      const record = { account: Address.parseRaw(account), tx, hash: tx.hash() };
      block.txs.push(record);
      chain.index(record);
    }
    chain.pending = saved.pending.map((boc) => loadMessage(Cell.fromBase64(boc).beginParse()));
    return chain;
  }

  save(): SavedChain {
    return {
      version: 1,
      seed: this.seed.toString('hex'),
      sandbox: snapshotToSerializable(this.sandbox.snapshot()),
      blocks: this.blocks.map((b) => [b.utime, b.startLt.toString(), b.endLt.toString()]),
      txs: this.blocks.flatMap((b) => b.txs.map((r): [number, string, string] => [b.seqno, r.account.toRawString(), r.tx.raw.toBoc().toString('base64')])),
      pending: this.pending.map((m) => messageCell(m).toBoc().toString('base64')),
    };
  }

  // --- time and blocks ---

  /**
   * Produces a block every `blockTimeMs`, empty or not, as a live chain does: the time a busy block takes to produce
   * comes out of the interval, so a burst of messages does not slow the chain down.
   */
  start(blockTimeMs: number): void {
    this.running = true;
    const tick = (): void => {
      const startedAt = Date.now();
      this.producing = this.produceBlock()
        .catch((error: unknown) => this.log(`block production failed: ${String(error)}`))
        .finally(() => {
          if (this.running) this.timer = setTimeout(tick, Math.max(0, startedAt + blockTimeMs - Date.now()));
        });
    };
    this.timer = setTimeout(tick, blockTimeMs);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.producing;
  }

  /** Resolves once no block is half-applied, so reads see the state as of the last block. */
  settled(): Promise<void> {
    return this.producing;
  }

  /** Produces blocks back to back until no message is in flight (genesis, before the timer runs). */
  async drain(): Promise<void> {
    while (this.pending.length > 0) await this.produceBlock();
  }

  /**
   * One block: every message in flight at its start becomes one transaction in it; the messages those transactions
   * send wait for the next block, so a jetton transfer takes a few blocks, as on the real network.
   */
  private async produceBlock(): Promise<void> {
    const seqno = this.blocks.length;
    const utime = Math.max(this.lastBlock.utime, Math.floor(Date.now() / 1000));
    this.sandbox.now = utime;
    this.sandbox.random = this.blockHash(BASECHAIN, seqno, 'random');
    const startLt = this.sandbox.startBlockLt();
    const wave = this.pending;
    this.pending = [];
    const txs: TxRecord[] = [];
    for (const message of wave) {
      const account = destinationOf(message);
      let tx: Transaction;
      try {
        tx = await this.sandbox.runMessage(message);
      } catch (error) {
        // An external message that is no longer accepted (e.g. a replayed seqno) is dropped, as validators do.
        const contract = this.store.peek(account);
        if (contract && isPristine(contract)) this.store.forget(account);
        this.log(`block ${seqno}: dropped message to ${account.toString()}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      txs.push({ account, tx, hash: tx.hash() });
      for (const out of tx.outMessages.values()) if (out.info.type === 'internal') this.pending.push(out);
    }
    const block = { seqno, utime, startLt, endLt: this.sandbox.lt, txs };
    this.blocks.push(block);
    for (const record of txs) this.index(record);
  }

  private index(record: TxRecord): void {
    const key = record.account.toRawString();
    let list = this.byAccount.get(key);
    if (!list) this.byAccount.set(key, (list = []));
    list.push(record);
  }

  get lastBlock(): BlockRecord {
    const block = this.blocks[this.blocks.length - 1];
    if (!block) throw new Error('the chain has no zero state');
    return block;
  }

  block(seqno: number): BlockRecord | undefined {
    return this.blocks[seqno];
  }

  /** The latest block generated at or before `utime`, or the first block at or after `lt`. */
  findBlock({ utime, lt }: { utime?: number; lt?: bigint }): BlockRecord | undefined {
    if (utime !== undefined) {
      for (let i = this.blocks.length - 1; i >= 0; i--) if (this.blocks[i]!.utime <= utime) return this.blocks[i];
      return undefined;
    }
    return lt === undefined ? undefined : this.blocks.find((b) => b.endLt >= lt);
  }

  blockHash(workchain: number, seqno: number, kind: 'root' | 'file' | 'state' | 'random'): Buffer {
    const header = Buffer.alloc(8);
    header.writeInt32BE(workchain, 0);
    header.writeUInt32BE(seqno, 4);
    return createHash('sha256').update(this.seed).update(header).update(kind).digest();
  }

  // --- accounts ---

  account(address: Address): AccountView {
    const contract = this.store.peek(address);
    if (!contract) return { ...NEVER_SEEN };
    const shard = contract.account;
    const state = shard.account?.storage.state;
    const active = state?.type === 'active' ? state.state : undefined;
    return {
      exists: !isPristine(contract),
      status: state?.type === 'active' ? 'active' : state?.type === 'frozen' ? 'frozen' : 'uninitialized',
      balance: shard.account?.storage.balance.coins ?? 0n,
      code: active?.code ?? null,
      data: active?.data ?? null,
      frozenHash: state?.type === 'frozen' ? bigintHash(state.stateHash) : null,
      lastLt: shard.lastTransactionLt,
      lastHash: bigintHash(shard.lastTransactionHash),
    };
  }

  /** Hash of the Account cell, toncenter v3's `account_state_hash`. */
  accountStateHash(address: Address): Buffer {
    const account = this.store.peek(address)?.account.account;
    return account ? beginCell().store(storeAccount(account)).endCell().hash() : Buffer.alloc(32);
  }

  /** Every transaction of `address`, oldest first. */
  transactions(address: Address): readonly TxRecord[] {
    return this.byAccount.get(address.toRawString()) ?? [];
  }

  /** The transaction on `destination` that consumed the internal message `source` created at `createdLt`. */
  resultTx(source: Address, destination: Address, createdLt: bigint): TxRecord | undefined {
    return this.transactions(destination).find(({ tx }) => {
      const info = tx.inMessage?.info;
      return info?.type === 'internal' && info.src.equals(source) && info.createdLt === createdLt;
    });
  }

  /** The transaction on `source` that sent `destination` the internal message created at `createdLt`. */
  sourceTx(source: Address, destination: Address, createdLt: bigint): TxRecord | undefined {
    return this.transactions(source).find(({ tx }) =>
      [...tx.outMessages.values()].some((m) => m.info.type === 'internal' && m.info.dest.equals(destination) && m.info.createdLt === createdLt));
  }

  async runGetMethod(address: Address, method: string | number, stack: TupleItem[]): Promise<{ exitCode: number; gasUsed: bigint; stack: TupleItem[] }> {
    const contract = this.store.peek(address);
    if (contract?.accountState?.type !== 'active') return { exitCode: EXIT_UNINITIALIZED, gasUsed: 0n, stack: [] };
    try {
      const result = await contract.get(method, stack);
      return { exitCode: result.exitCode, gasUsed: result.gasUsed, stack: result.stack };
    } catch (error) {
      if (error instanceof GetMethodError) return { exitCode: error.exitCode, gasUsed: error.gasUsed, stack: [] };
      throw error;
    }
  }

  // --- messages ---

  /** Genesis only: puts an account into the state directly. */
  async setAccount(address: Address, account: ShardAccount): Promise<void> {
    await this.sandbox.setShardAccount(address, account);
  }

  /** Runs an inbound external message against a copy of the account, as a liteserver checks it; nothing is kept. */
  async emulate(message: Message, ignoreChksig = false): Promise<Transaction> {
    const dest = destinationOf(message);
    const probe = new SmartContract(this.store.peek(dest)?.account ?? createEmptyShardAccount(dest), this.sandbox);
    return probe.receiveMessage(message, { ignoreChksig });
  }

  /** Accepts an external message for the next block if the account accepts it now. */
  async submit(boc: Buffer): Promise<{ hash: Buffer; hashNorm: Buffer }> {
    let cell: Cell;
    let message: Message;
    try {
      const roots = Cell.fromBoc(boc);
      if (roots.length !== 1 || !roots[0]) throw new Error('expected exactly one root cell');
      cell = roots[0];
      message = loadMessage(cell.beginParse());
    } catch (error) {
      throw new ChainError(400, `Failed to unpack message: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (message.info.type !== 'external-in') throw new ChainError(400, 'Only inbound external messages can be sent');
    try {
      await this.emulate(message);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ChainError(500, `LITE_SERVER_UNKNOWN: cannot apply external message to current state : External message was not accepted (${reason})`);
    }
    this.pending.push(message);
    return { hash: cell.hash(), hashNorm: normalizedHash(message) };
  }

  /** Genesis only: queues an external message without the acceptance check. */
  enqueue(message: Message): void {
    this.pending.push(message);
  }
}

