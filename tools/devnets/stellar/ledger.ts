import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Account, Asset, Keypair, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { formatAmount, INT64_MAX, parseAmount } from './amount';
import { decodeEnvelope, type AccountRef, type AssetRef, type DecodedFeeBump, type DecodedOp, type DecodedTransaction, type Memo } from './decode';
import {
  accountKey, EntryStore, entryFromJson, entryToJson, LedgerTxn, type AccountEntry, type CreditAsset, type EntryJson, type TrustlineEntry,
} from './entries';
import {
  BASE_FEE, BASE_RESERVE, devnetKeypair, MAX_TX_SET_OPERATIONS, PROTOCOL_VERSION, TOTAL_COINS, USDC_CODE,
} from './network';
import { resultCodes, transactionResultXdr, type OpCode, type OpOutcome, type ResultCodes, type TxCode } from './results';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A Horizon field of a record that holds text (hashes, XDR, times, int64 amounts). */
export function textField(record: { fields: JsonObject }, name: string): string {
  const value = record.fields[name];
  if (typeof value !== 'string') throw new Error(`record field ${name} is not text`);
  return value;
}

/** A Horizon field of a record that holds a number (counts, ledger numbers). */
export function numberField(record: { fields: JsonObject }, name: string): number {
  const value = record.fields[name];
  if (typeof value !== 'number') throw new Error(`record field ${name} is not a number`);
  return value;
}

/** A record of history; `fields` are Horizon's, without id, paging_token and _links (the HTTP layer adds those). */
interface HistoryRecord { id: bigint; ledger: number; successful: boolean; participants: string[]; fields: JsonObject }
export interface TransactionRecord extends HistoryRecord { hash: string; resultCodes: ResultCodes }
export interface OperationRecord extends HistoryRecord { txHash: string; isPayment: boolean }
export interface LedgerRecord { id: bigint; seq: number; closeTime: bigint; txCount: number; fields: JsonObject }

export type SubmitOutcome =
  | { kind: 'rejected'; hash: string; envelopeXdr: string; resultXdr: string; resultCodes: ResultCodes; detail?: string }
  | { kind: 'applied'; record: TransactionRecord };

export class MalformedEnvelopeError extends Error {}

interface Pending { tx: DecodedTransaction; resolve: (outcome: SubmitOutcome) => void; outcome: Promise<SubmitOutcome> }
interface Applied { tx: DecodedTransaction; outcome: SubmitOutcome }
interface Refusal { code: TxCode; ops?: OpOutcome[]; detail?: string }

const STATE_VERSION = 1;
const MAX_OPERATIONS_PER_TX = 100;
/** Empty ledgers older than this many are dropped from history (as a Horizon with limited retention); ledgers with transactions stay. */
const EMPTY_LEDGERS_KEPT = 2000;
const FEE_STATS_LEDGERS = 5;
const ZERO_HASH = Buffer.alloc(32);
const DEFAULT_THRESHOLDS = { master: 1, low: 0, med: 0, high: 0 };

const minBalance = (account: Readonly<AccountEntry>, extraSubEntries = 0): bigint =>
  (2n + BigInt(account.numSubEntries + extraSubEntries)) * BASE_RESERVE;
const available = (account: Readonly<AccountEntry>): bigint => account.balance - minBalance(account);
const sha256 = (data: Buffer): Buffer => createHash('sha256').update(data).digest();
const toid = (ledger: number, txOrder = 0, opOrder = 0): bigint => (BigInt(ledger) << 32n) | (BigInt(txOrder) << 12n) | BigInt(opOrder);
const isoSeconds = (unixSeconds: bigint): string => new Date(Number(unixSeconds) * 1000).toISOString().replace('.000Z', 'Z');

/** The operation types Horizon's payments endpoints list. */
const PAYMENT_TYPES = new Set(['create_account', 'payment', 'path_payment_strict_send', 'path_payment_strict_receive', 'account_merge']);

function sameAsset(a: NonNullable<AssetRef>, b: NonNullable<AssetRef>): boolean {
  return a.type === 'native' ? b.type === 'native' : b.type === 'credit' && a.code === b.code && a.issuer === b.issuer;
}

function assetFields(asset: { type: 'native' } | CreditAsset, prefix = ''): JsonObject {
  if ('code' in asset) {
    return { [`${prefix}asset_type`]: asset.code.length <= 4 ? 'credit_alphanum4' : 'credit_alphanum12', [`${prefix}asset_code`]: asset.code, [`${prefix}asset_issuer`]: asset.issuer };
  }
  return { [`${prefix}asset_type`]: 'native' };
}

function muxedFields(ref: AccountRef, field: string): JsonObject {
  return ref.muxed ? { [`${field}_muxed`]: ref.muxed.address, [`${field}_muxed_id`]: ref.muxed.id } : {};
}

function memoFields(memo: Memo): JsonObject {
  const fields: JsonObject = { memo_type: memo.type };
  if (memo.value !== undefined) fields.memo = memo.value;
  if (memo.bytes !== undefined) fields.memo_bytes = memo.bytes;
  return fields;
}

/** Checks signatures against an account's signers: only the master key is modelled (no setOptions here). */
class SignatureChecker {
  private readonly used: boolean[];
  private readonly matched = new Map<string, boolean>();

  constructor(private readonly hash: Buffer, private readonly signatures: xdr.DecoratedSignature[]) {
    this.used = signatures.map(() => false);
  }

  /** stellar-core's rule: at least one valid signature, and signer weights summing to the threshold. */
  check(account: Readonly<AccountEntry>, threshold: number): boolean {
    if (account.thresholds.master === 0) return false;
    let signed = this.matched.get(account.id);
    if (signed === undefined) {
      const key = Keypair.fromPublicKey(account.id);
      const index = this.signatures.findIndex((s) => s.hint().equals(key.signatureHint()) && key.verify(this.hash, s.signature()));
      if (index >= 0) this.used[index] = true;
      signed = index >= 0;
      this.matched.set(account.id, signed);
    }
    return signed && account.thresholds.master >= threshold;
  }

  /**
   * stellar-core's `checkSignatureNoAccount`: an operation whose source account does not exist yet (an earlier
   * operation of the transaction creates it) is valid when the transaction is signed by that account's key.
   */
  checkNoAccount(accountId: string): boolean {
    return this.check({ id: accountId, thresholds: { master: 1, low: 0, med: 0, high: 0 } } as AccountEntry, 0);
  }

  allUsed(): boolean {
    return this.used.every(Boolean);
  }
}

/** Checks an operation needs no ledger state for (stellar-core's doCheckValid). */
function checkOpShape(op: DecodedOp, source: string): OpCode | undefined {
  switch (op.type) {
    case 'createAccount':
      return op.startingBalance < 0n || op.destination === source ? 'op_malformed' : undefined;
    case 'payment':
      return op.amount <= 0n || op.asset === undefined ? 'op_malformed' : undefined;
    case 'pathPaymentStrictSend':
      return op.sendAmount <= 0n || op.destMin <= 0n || op.sendAsset === undefined || op.destAsset === undefined || op.path.includes(undefined) ? 'op_malformed' : undefined;
    case 'pathPaymentStrictReceive':
      return op.sendMax <= 0n || op.destAmount <= 0n || op.sendAsset === undefined || op.destAsset === undefined || op.path.includes(undefined) ? 'op_malformed' : undefined;
    case 'changeTrust':
      if (op.asset === 'pool') return 'op_not_supported';
      return op.asset === undefined || op.asset.type === 'native' || op.asset.issuer === source || op.limit < 0n ? 'op_malformed' : undefined;
    case 'unsupported':
      return 'op_not_supported';
  }
}

/**
 * The in-memory Stellar ledger: entries (accounts, trustlines), the queue of submitted transactions, history
 * (ledgers, transactions, operations) with the indexes Horizon's endpoints read, and the state file.
 */
export class StellarLedger {
  readonly transactions: TransactionRecord[] = [];
  readonly operations: OperationRecord[] = [];
  readonly payments: OperationRecord[] = [];
  private ledgerHistory: LedgerRecord[] = [];
  private readonly txByHash = new Map<string, TransactionRecord>();
  private readonly txsByAccount = new Map<string, TransactionRecord[]>();
  private readonly opsByAccount = new Map<string, OperationRecord[]>();
  private readonly paymentsByAccount = new Map<string, OperationRecord[]>();
  private readonly queue: Pending[] = [];
  private readonly listeners = new Set<(ledger: LedgerRecord) => void>();
  private entries = new EntryStore();
  private feePool = 0n;

  private constructor(readonly networkPassphrase: string) {}

  /** Loads `stateFile` when it exists; otherwise creates genesis and the devnet accounts. */
  static open(networkPassphrase: string, stateFile?: string): StellarLedger {
    const ledger = new StellarLedger(networkPassphrase);
    if (stateFile !== undefined && existsSync(stateFile)) ledger.load(stateFile);
    else ledger.bootstrap();
    return ledger;
  }

  get latestLedger(): LedgerRecord {
    const latest = this.ledgerHistory.at(-1);
    if (!latest) throw new Error('ledger has no history');
    return latest;
  }

  get ledgers(): readonly LedgerRecord[] {
    return this.ledgerHistory;
  }

  onLedgerClosed(listener: (ledger: LedgerRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  account(id: string): { account: AccountEntry; trustlines: TrustlineEntry[] } | undefined {
    const account = this.entries.get(accountKey(id));
    if (account?.kind !== 'account') return undefined;
    const trustlines = [...this.entries.values()].filter((e): e is TrustlineEntry => e.kind === 'trustline' && e.account === id);
    return { account, trustlines };
  }

  transaction(hash: string): TransactionRecord | undefined {
    return this.txByHash.get(hash);
  }

  transactionsOf(account: string): readonly TransactionRecord[] {
    return this.txsByAccount.get(account) ?? [];
  }

  operationsOf(account: string): readonly OperationRecord[] {
    return this.opsByAccount.get(account) ?? [];
  }

  paymentsOf(account: string): readonly OperationRecord[] {
    return this.paymentsByAccount.get(account) ?? [];
  }

  /**
   * Checks the transaction against the current state and the queue (as stellar-core admits it), then answers once the
   * next ledger has applied it; refusals answer at once. Throws MalformedEnvelopeError for undecodable XDR.
   */
  submit(envelopeXdr: string): Promise<SubmitOutcome> {
    let decoded: DecodedTransaction | DecodedFeeBump;
    try {
      decoded = decodeEnvelope(envelopeXdr, this.networkPassphrase);
    } catch (err) {
      throw new MalformedEnvelopeError(err instanceof Error ? err.message : String(err));
    }
    const applied = this.txByHash.get(decoded.hash);
    if (applied) return Promise.resolve({ kind: 'applied', record: applied });
    const queued = this.queue.find((p) => p.tx.hash === decoded.hash);
    if (queued) return queued.outcome;
    if (decoded.kind === 'feeBump') {
      return Promise.resolve(this.rejection(decoded, BASE_FEE * BigInt(decoded.opCount + 1), { code: 'tx_not_supported', detail: 'fee-bump transactions are not modelled by this devnet' }));
    }
    const fromSameSource = this.queue.filter((p) => p.tx.source.account === decoded.source.account);
    const refusal = this.check(decoded, new LedgerTxn(this.entries, 0), BigInt(Math.floor(Date.now() / 1000)), {
      seqOffset: BigInt(fromSameSource.length),
      pendingFees: fromSameSource.reduce((sum, p) => sum + BASE_FEE * BigInt(p.tx.ops.length), 0n),
    });
    if (refusal) return Promise.resolve(this.rejection(decoded, BASE_FEE * BigInt(Math.max(1, decoded.ops.length)), refusal));
    let resolve!: (outcome: SubmitOutcome) => void;
    const outcome = new Promise<SubmitOutcome>((r) => { resolve = r; });
    this.queue.push({ tx: decoded, resolve, outcome });
    return outcome;
  }

  /** Closes the next ledger with as much of the queue as fits, in submission order. */
  closeLedger(): LedgerRecord {
    const batch: Pending[] = [];
    let operations = 0;
    while (this.queue.length > 0 && operations + (this.queue[0]?.tx.ops.length ?? 0) <= MAX_TX_SET_OPERATIONS) {
      const next = this.queue.shift() as Pending;
      operations += next.tx.ops.length;
      batch.push(next);
    }
    const { ledger, applied } = this.applyLedger(batch.map((p) => p.tx), BigInt(Math.floor(Date.now() / 1000)));
    batch.forEach((pending, i) => pending.resolve((applied[i] as Applied).outcome));
    for (const listener of this.listeners) listener(ledger);
    return ledger;
  }

  feeStats(): { lastLedger: number; capacityUsage: number; feeCharged: bigint[]; maxFee: bigint[] } {
    const latest = this.latestLedger;
    const fromId = toid(Math.max(1, latest.seq - FEE_STATS_LEDGERS + 1));
    const recent = this.transactions.slice(lowerBound(this.transactions, fromId));
    const perOp = (field: 'fee_charged' | 'max_fee') => recent.map((t) => BigInt(textField(t, field)) / BigInt(numberField(t, 'operation_count')));
    return {
      lastLedger: latest.seq,
      capacityUsage: numberField(latest, 'tx_set_operation_count') / MAX_TX_SET_OPERATIONS,
      feeCharged: perOp('fee_charged'),
      maxFee: perOp('max_fee'),
    };
  }

  /** Writes the state atomically (temporary file, then rename), so a crash never leaves half a file. */
  save(stateFile: string): void {
    const bigintsAsStrings = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : value);
    const state = {
      version: STATE_VERSION,
      networkPassphrase: this.networkPassphrase,
      feePool: this.feePool.toString(),
      entries: [...this.entries.values()].map(entryToJson),
      // Empty ledgers are not worth the disk: a restarted devnet keeps the ones with transactions and the latest.
      ledgers: this.ledgerHistory.filter((l, i, all) => l.txCount > 0 || i === all.length - 1),
      transactions: this.transactions,
      operations: this.operations,
    };
    mkdirSync(dirname(stateFile), { recursive: true });
    const tmp = `${stateFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(state, bigintsAsStrings));
    renameSync(tmp, stateFile);
  }

  private load(stateFile: string): void {
    type Stored<T> = Omit<T, 'id' | 'closeTime'> & { id: string; closeTime?: string };
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as {
      version: number; networkPassphrase: string; feePool: string;
      entries: EntryJson[]; ledgers: Stored<LedgerRecord>[]; transactions: Stored<TransactionRecord>[]; operations: Stored<OperationRecord>[];
    };
    if (state.version !== STATE_VERSION) throw new Error(`${stateFile}: state version ${state.version}, expected ${STATE_VERSION}`);
    if (state.networkPassphrase !== this.networkPassphrase) {
      throw new Error(`${stateFile} belongs to network "${state.networkPassphrase}", not "${this.networkPassphrase}"`);
    }
    this.feePool = BigInt(state.feePool);
    this.entries = new EntryStore(state.entries.map(entryFromJson));
    this.ledgerHistory = state.ledgers.map((l) => ({ ...l, id: BigInt(l.id), closeTime: BigInt(l.closeTime ?? '0') }));
    for (const t of state.transactions) this.index({ ...t, id: BigInt(t.id) });
    for (const o of state.operations) this.indexOperation({ ...o, id: BigInt(o.id) });
  }

  private index(record: TransactionRecord): void {
    this.transactions.push(record);
    this.txByHash.set(record.hash, record);
    for (const account of record.participants) push(this.txsByAccount, account, record);
  }

  private indexOperation(record: OperationRecord): void {
    this.operations.push(record);
    if (record.isPayment) this.payments.push(record);
    for (const account of record.participants) {
      push(this.opsByAccount, account, record);
      if (record.isPayment) push(this.paymentsByAccount, account, record);
    }
  }

  private rejection(tx: DecodedTransaction | DecodedFeeBump, feeCharged: bigint, refusal: Refusal): SubmitOutcome {
    const ops = refusal.ops ?? [];
    return {
      kind: 'rejected', hash: tx.hash, envelopeXdr: tx.envelopeXdr,
      resultXdr: transactionResultXdr(feeCharged, refusal.code, ops).toXDR('base64'),
      resultCodes: resultCodes(refusal.code, ops),
      detail: refusal.detail,
    };
  }

  /** stellar-core's validity checks, in its order; `queue` accounts for the source's transactions already queued. */
  private check(tx: DecodedTransaction, view: LedgerTxn, closeTime: bigint, queue = { seqOffset: 0n, pendingFees: 0n }): Refusal | undefined {
    if (tx.ops.length === 0) return { code: 'tx_missing_operation' };
    if (tx.ops.length > MAX_OPERATIONS_PER_TX) return { code: 'tx_malformed' };
    if (tx.unsupportedPreconditions) return { code: 'tx_not_supported', detail: 'ledger bounds, minimum sequence and extra signer preconditions are not modelled by this devnet' };
    if (tx.timeBounds && tx.timeBounds.min > closeTime) return { code: 'tx_too_early' };
    if (tx.timeBounds && tx.timeBounds.max !== 0n && tx.timeBounds.max < closeTime) return { code: 'tx_too_late' };
    const fee = BASE_FEE * BigInt(tx.ops.length);
    if (tx.fee < fee) return { code: 'tx_insufficient_fee' };
    const source = view.getAccount(tx.source.account);
    if (!source) return { code: 'tx_no_source_account' };
    if (tx.seq !== source.seqNum + 1n + queue.seqOffset) return { code: 'tx_bad_seq' };
    const signatures = new SignatureChecker(tx.hashBytes, tx.signatures);
    if (!signatures.check(source, source.thresholds.low)) return { code: 'tx_bad_auth' };
    const ops = tx.ops.map((op): OpOutcome => {
      const type = op.type === 'unsupported' ? undefined : op.type;
      const opSourceId = op.source?.account ?? tx.source.account;
      const opSource = view.getAccount(opSourceId);
      if (!opSource) {
        // As stellar-core validates: an explicit source that does not exist yet may be created by an earlier
        // operation; it must exist when the operation is applied (op_no_source_account then).
        if (!op.source) return { type, code: 'op_no_source_account' };
        if (!signatures.checkNoAccount(opSourceId)) return { type, code: 'op_bad_auth' };
        return { type, code: checkOpShape(op, opSourceId) ?? 'op_success' };
      }
      // createAccount, payment and changeTrust are all medium-threshold operations.
      if (!signatures.check(opSource, opSource.thresholds.med)) return { type, code: 'op_bad_auth' };
      return { type, code: checkOpShape(op, opSource.id) ?? 'op_success' };
    });
    if (ops.some((o) => o.code !== 'op_success')) {
      const unsupported = tx.ops.filter((op) => op.type === 'unsupported').map((op) => op.name);
      return { code: 'tx_failed', ops, detail: unsupported.length > 0 ? `operations not modelled by this devnet: ${unsupported.join(', ')}` : undefined };
    }
    if (!signatures.allUsed()) return { code: 'tx_bad_auth_extra' };
    if (available(source) - queue.pendingFees < fee) return { code: 'tx_insufficient_balance' };
    return undefined;
  }

  /**
   * What stellar-core's payment and path payment do once the amount is known: the receiving side first, then the
   * sending side. The issuer creates what it sends and burns what it receives: neither side needs a trustline then.
   */
  private transfer(asset: NonNullable<AssetRef>, amount: bigint, sourceId: string, to: string, ltx: LedgerTxn): OpCode {
    if (!ltx.getAccount(to)) return 'op_no_destination';
    if (asset.type === 'native') {
      if (to === sourceId) return 'op_success';
      const destination = ltx.loadAccount(to) as AccountEntry;
      if (destination.balance > INT64_MAX - amount) return 'op_line_full';
      destination.balance += amount;
      const source = ltx.loadAccount(sourceId) as AccountEntry;
      if (available(source) < amount) return 'op_underfunded';
      source.balance -= amount;
      return 'op_success';
    }
    if (to !== asset.issuer) {
      const line = ltx.loadTrustline(to, asset);
      if (!line) return 'op_no_trust';
      if (line.balance > line.limit - amount) return 'op_line_full';
      line.balance += amount;
    }
    if (sourceId !== asset.issuer) {
      const line = ltx.loadTrustline(sourceId, asset);
      if (!line) return 'op_src_no_trust';
      if (line.balance < amount) return 'op_underfunded';
      line.balance -= amount;
    }
    return 'op_success';
  }

  /**
   * A path payment: with the same asset sent and received and no path, a payment of the amount within its bound.
   * Any conversion needs offers, and the devnet's order book has none: `op_too_few_offers`, as on a network where
   * nobody trades the pair.
   */
  private pathPayment(op: Extract<DecodedOp, { type: 'pathPaymentStrictSend' | 'pathPaymentStrictReceive' }>, sourceId: string, ltx: LedgerTxn): OpOutcome {
    const { type } = op;
    const sendAsset = op.sendAsset!;
    const destAsset = op.destAsset!;
    if (!ltx.getAccount(op.destination.account)) return { type, code: 'op_no_destination' };
    if (!sameAsset(sendAsset, destAsset) || op.path.length > 0) return { type, code: 'op_too_few_offers' };
    const amount = op.type === 'pathPaymentStrictSend' ? op.sendAmount : op.destAmount;
    if (op.type === 'pathPaymentStrictSend' && amount < op.destMin) return { type, code: 'op_under_dest_min' };
    if (op.type === 'pathPaymentStrictReceive' && amount > op.sendMax) return { type, code: 'op_over_source_max' };
    const code = this.transfer(destAsset, amount, sourceId, op.destination.account, ltx);
    return code === 'op_success' ? { type, code, delivered: { destination: op.destination.account, asset: destAsset, amount } } : { type, code };
  }

  private applyOp(op: DecodedOp, sourceId: string, ltx: LedgerTxn, ledgerSeq: number): OpOutcome {
    const type = op.type === 'unsupported' ? undefined : op.type;
    if (op.type === 'pathPaymentStrictSend' || op.type === 'pathPaymentStrictReceive') return this.pathPayment(op, sourceId, ltx);
    return { type, code: this.applyPlainOp(op, sourceId, ltx, ledgerSeq) };
  }

  private applyPlainOp(op: Exclude<DecodedOp, { type: 'pathPaymentStrictSend' | 'pathPaymentStrictReceive' }>, sourceId: string, ltx: LedgerTxn, ledgerSeq: number): OpCode {
    switch (op.type) {
      case 'createAccount': {
        if (ltx.getAccount(op.destination)) return 'op_already_exists';
        if (op.startingBalance < 2n * BASE_RESERVE) return 'op_low_reserve';
        const source = ltx.loadAccount(sourceId);
        if (!source || available(source) < op.startingBalance) return 'op_underfunded';
        source.balance -= op.startingBalance;
        ltx.create({
          kind: 'account', id: op.destination, balance: op.startingBalance, seqNum: BigInt(ledgerSeq) << 32n, numSubEntries: 0,
          thresholds: DEFAULT_THRESHOLDS, seqLedger: 0, seqTime: 0n, lastModifiedLedger: ledgerSeq,
        });
        return 'op_success';
      }
      case 'payment':
        if (op.asset === undefined) return 'op_malformed';
        return this.transfer(op.asset, op.amount, sourceId, op.destination.account, ltx);
      case 'changeTrust': {
        const asset = op.asset as CreditAsset;
        const source = ltx.loadAccount(sourceId) as AccountEntry;
        const line = ltx.loadTrustline(sourceId, asset);
        if (line) {
          if (op.limit === 0n) {
            if (line.balance > 0n) return 'op_invalid_limit';
            ltx.erase(line);
            source.numSubEntries -= 1;
          } else {
            if (op.limit < line.balance) return 'op_invalid_limit';
            line.limit = op.limit;
          }
          return 'op_success';
        }
        if (op.limit === 0n) return 'op_invalid_limit';
        if (!ltx.getAccount(asset.issuer)) return 'op_no_issuer';
        if (source.balance < minBalance(source, 1)) return 'op_low_reserve';
        source.numSubEntries += 1;
        ltx.create({ kind: 'trustline', account: sourceId, code: asset.code, issuer: asset.issuer, balance: 0n, limit: op.limit, lastModifiedLedger: ledgerSeq });
        return 'op_success';
      }
      case 'unsupported':
        return 'op_not_supported';
    }
  }

  /** Horizon's operation fields and participants for an applied (or failed) operation. */
  private describeOp(op: DecodedOp, source: AccountRef): { type: string; typeI: number; fields: JsonObject; participants: string[] } {
    switch (op.type) {
      case 'createAccount':
        return {
          type: 'create_account', typeI: 0, participants: [source.account, op.destination],
          fields: { starting_balance: formatAmount(op.startingBalance), funder: source.account, account: op.destination, ...muxedFields(source, 'funder') },
        };
      case 'payment':
        return {
          type: 'payment', typeI: 1, participants: [source.account, op.destination.account],
          fields: {
            ...assetFields(op.asset ?? { type: 'native' }), from: source.account, to: op.destination.account, amount: formatAmount(op.amount),
            ...muxedFields(source, 'from'), ...muxedFields(op.destination, 'to'),
          },
        };
      case 'pathPaymentStrictSend':
      case 'pathPaymentStrictReceive': {
        const strictSend = op.type === 'pathPaymentStrictSend';
        // Without conversions, what is sent is what is received.
        const amount = formatAmount(strictSend ? op.sendAmount : op.destAmount);
        return {
          type: strictSend ? 'path_payment_strict_send' : 'path_payment_strict_receive', typeI: strictSend ? 13 : 2, participants: [source.account, op.destination.account],
          fields: {
            ...assetFields(op.destAsset ?? { type: 'native' }), from: source.account, to: op.destination.account, amount,
            path: op.path.map((a) => assetFields(a ?? { type: 'native' })),
            source_amount: amount,
            ...(strictSend ? { destination_min: formatAmount(op.destMin) } : { source_max: formatAmount(op.sendMax) }),
            ...assetFields(op.sendAsset ?? { type: 'native' }, 'source_'),
            ...muxedFields(source, 'from'), ...muxedFields(op.destination, 'to'),
          },
        };
      }
      case 'changeTrust': {
        const asset = op.asset as CreditAsset;
        return {
          type: 'change_trust', typeI: 6, participants: [source.account],
          fields: { ...assetFields(asset), limit: formatAmount(op.limit), trustee: asset.issuer, trustor: source.account, ...muxedFields(source, 'trustor') },
        };
      }
      case 'unsupported':
        throw new Error(`unsupported operation ${op.name} reached the ledger`);
    }
  }

  /** The previous ledger's sequence and hash; zeros before genesis. */
  private get lastClosed(): { seq: number; hash: Buffer } {
    const latest = this.ledgerHistory.at(-1);
    return latest ? { seq: latest.seq, hash: Buffer.from(textField(latest, 'hash'), 'hex') } : { seq: 0, hash: ZERO_HASH };
  }

  /** Applies `txs` in order as the next ledger; the outcomes line up with `txs`. */
  private applyLedger(txs: DecodedTransaction[], closeTime: bigint): { ledger: LedgerRecord; applied: Applied[] } {
    const previous = this.lastClosed;
    const seq = previous.seq + 1;
    const createdAt = isoSeconds(closeTime);
    const ledgerTxn = new LedgerTxn(this.entries, seq);
    const results: xdr.TransactionResultPair[] = [];
    const applied: Applied[] = [];
    const included: TransactionRecord[] = [];
    let operationCount = 0;
    let failed = 0;
    for (const tx of txs) {
      // Checked again: an earlier transaction in this ledger may have changed what it depends on.
      const refusal = this.check(tx, ledgerTxn, closeTime);
      if (refusal) {
        applied.push({ tx, outcome: this.rejection(tx, BASE_FEE * BigInt(tx.ops.length), refusal) });
        continue;
      }
      const txOrder = included.length + 1;
      const fee = BASE_FEE * BigInt(tx.ops.length);

      const feeTxn = new LedgerTxn(ledgerTxn, seq);
      (feeTxn.loadAccount(tx.source.account) as AccountEntry).balance -= fee;
      this.feePool += fee;
      const feeChanges = feeTxn.entryChanges();
      feeTxn.commit();

      // The sequence number is consumed even when an operation fails.
      const seqTxn = new LedgerTxn(ledgerTxn, seq);
      const source = seqTxn.loadAccount(tx.source.account) as AccountEntry;
      Object.assign(source, { seqNum: tx.seq, seqLedger: seq, seqTime: closeTime });
      const seqChanges = seqTxn.entryChanges();
      seqTxn.commit();

      const opsTxn = new LedgerTxn(ledgerTxn, seq);
      const outcomes: OpOutcome[] = [];
      const opChanges: xdr.LedgerEntryChange[][] = [];
      for (const op of tx.ops) {
        const opTxn = new LedgerTxn(opsTxn, seq);
        const opSourceId = op.source?.account ?? tx.source.account;
        // An operation's source must exist by the time it applies (an earlier operation may have created it).
        const outcome: OpOutcome = opTxn.getAccount(opSourceId) ? this.applyOp(op, opSourceId, opTxn, seq) : { type: op.type === 'unsupported' ? undefined : op.type, code: 'op_no_source_account' };
        outcomes.push(outcome);
        if (outcome.code === 'op_success') {
          opChanges.push(opTxn.entryChanges());
          opTxn.commit();
        }
      }
      const successful = outcomes.every((o) => o.code === 'op_success');
      if (successful) opsTxn.commit();
      else failed += 1;
      operationCount += tx.ops.length;

      const code: TxCode = successful ? 'tx_success' : 'tx_failed';
      const result = transactionResultXdr(fee, code, outcomes);
      results.push(new xdr.TransactionResultPair({ transactionHash: tx.hashBytes, result }));
      // A failed transaction's operations change nothing, so its meta lists none.
      const meta = new xdr.TransactionMeta(2, new xdr.TransactionMetaV2({
        txChangesBefore: seqChanges,
        operations: successful ? opChanges.map((changes) => new xdr.OperationMeta({ changes })) : [],
        txChangesAfter: [],
      }));
      const record = this.recordTransaction(tx, {
        seq, txOrder, createdAt, successful, fee, resultCodes: resultCodes(code, outcomes),
        resultXdr: result.toXDR('base64'), metaXdr: meta.toXDR('base64'), feeMetaXdr: entryChangesXdr(feeChanges),
      });
      included.push(record);
      applied.push({ tx, outcome: { kind: 'applied', record } });
    }
    ledgerTxn.commit();

    const txSetHash = sha256(Buffer.concat(included.map((t) => Buffer.from(t.hash, 'hex'))));
    const header = new xdr.LedgerHeader({
      ledgerVersion: PROTOCOL_VERSION,
      previousLedgerHash: previous.hash,
      scpValue: new xdr.StellarValue({ txSetHash, closeTime: new xdr.Uint64(closeTime), upgrades: [], ext: xdr.StellarValueExt.stellarValueBasic() }),
      txSetResultHash: sha256(new xdr.TransactionResultSet({ results }).toXDR()),
      // No bucket list is modelled.
      bucketListHash: ZERO_HASH,
      ledgerSeq: seq,
      totalCoins: new xdr.Int64(TOTAL_COINS),
      feePool: new xdr.Int64(this.feePool),
      inflationSeq: 0,
      idPool: new xdr.Uint64(0n),
      baseFee: Number(BASE_FEE),
      baseReserve: Number(BASE_RESERVE),
      maxTxSetSize: MAX_TX_SET_OPERATIONS,
      skipList: [ZERO_HASH, ZERO_HASH, ZERO_HASH, ZERO_HASH],
      ext: new xdr.LedgerHeaderExt(0),
    });
    const headerXdr = header.toXDR();
    const hash = sha256(headerXdr);
    const ledger: LedgerRecord = {
      id: toid(seq), seq, closeTime, txCount: included.length,
      fields: {
        hash: hash.toString('hex'),
        prev_hash: previous.hash.toString('hex'),
        sequence: seq,
        successful_transaction_count: included.length - failed,
        failed_transaction_count: failed,
        operation_count: operationCount,
        tx_set_operation_count: operationCount,
        closed_at: createdAt,
        total_coins: formatAmount(TOTAL_COINS),
        fee_pool: formatAmount(this.feePool),
        base_fee_in_stroops: Number(BASE_FEE),
        base_reserve_in_stroops: Number(BASE_RESERVE),
        max_tx_set_size: MAX_TX_SET_OPERATIONS,
        protocol_version: PROTOCOL_VERSION,
        header_xdr: headerXdr.toString('base64'),
      },
    };
    this.ledgerHistory.push(ledger);
    if (seq % EMPTY_LEDGERS_KEPT === 0) {
      this.ledgerHistory = this.ledgerHistory.filter((l) => l.txCount > 0 || l.seq > seq - EMPTY_LEDGERS_KEPT);
    }
    return { ledger, applied };
  }

  private recordTransaction(tx: DecodedTransaction, applied: {
    seq: number; txOrder: number; createdAt: string; successful: boolean; fee: bigint; resultCodes: ResultCodes;
    resultXdr: string; metaXdr: string; feeMetaXdr: string;
  }): TransactionRecord {
    const { seq, txOrder, createdAt, successful } = applied;
    const participants = new Set<string>([tx.source.account]);
    tx.ops.forEach((op, i) => {
      const source = op.source ?? tx.source;
      const described = this.describeOp(op, source);
      described.participants.forEach((p) => participants.add(p));
      this.indexOperation({
        id: toid(seq, txOrder, i + 1), ledger: seq, successful, txHash: tx.hash, participants: [...new Set(described.participants)],
        isPayment: PAYMENT_TYPES.has(described.type),
        fields: {
          transaction_successful: successful, source_account: source.account, ...muxedFields(source, 'source_account'),
          type: described.type, type_i: described.typeI, created_at: createdAt, transaction_hash: tx.hash, ...described.fields,
        },
      });
    });
    const fields: JsonObject = {
      successful, hash: tx.hash, ledger: seq, created_at: createdAt,
      source_account: tx.source.account, ...muxedFields(tx.source, 'account'),
      source_account_sequence: tx.seq.toString(),
      fee_account: tx.source.account, ...muxedFields(tx.source, 'fee_account'),
      fee_charged: applied.fee.toString(), max_fee: tx.fee.toString(), operation_count: tx.ops.length,
      envelope_xdr: tx.envelopeXdr, result_xdr: applied.resultXdr, result_meta_xdr: applied.metaXdr, fee_meta_xdr: applied.feeMetaXdr,
      ...memoFields(tx.memo),
      signatures: tx.signatures.map((s) => s.signature().toString('base64')),
    };
    if (tx.timeBounds) {
      fields.valid_after = isoSeconds(tx.timeBounds.min);
      const timebounds: JsonObject = { min_time: tx.timeBounds.min.toString() };
      if (tx.timeBounds.max !== 0n) {
        fields.valid_before = isoSeconds(tx.timeBounds.max);
        timebounds.max_time = tx.timeBounds.max.toString();
      }
      fields.preconditions = { timebounds };
    }
    const record: TransactionRecord = {
      id: toid(seq, txOrder), hash: tx.hash, ledger: seq, successful, participants: [...participants], resultCodes: applied.resultCodes, fields,
    };
    this.index(record);
    return record;
  }

  /** Genesis (the root account holds every lumen), then one ledger that funds the devnet accounts through real transactions. */
  private bootstrap(): void {
    const root = Keypair.master(this.networkPassphrase);
    const genesisTime = BigInt(Math.floor(Date.now() / 1000));
    this.entries = new EntryStore([{
      kind: 'account', id: root.publicKey(), balance: TOTAL_COINS, seqNum: 0n, numSubEntries: 0, thresholds: DEFAULT_THRESHOLDS,
      seqLedger: 0, seqTime: 0n, lastModifiedLedger: 1,
    }]);
    this.applyLedger([], genesisTime);

    const [issuer, treasury, customer, receiving] = (['issuer', 'treasury', 'customer', 'receiving'] as const).map(devnetKeypair) as [Keypair, Keypair, Keypair, Keypair];
    const usdc = new Asset(USDC_CODE, issuer.publicKey());
    const firstSeq = (BigInt(this.lastClosed.seq + 1) << 32n).toString();
    const build = (source: Keypair, seq: string, ops: xdr.Operation[]): string => {
      const builder = new TransactionBuilder(new Account(source.publicKey(), seq), { fee: BASE_FEE.toString(), networkPassphrase: this.networkPassphrase });
      ops.forEach((op) => builder.addOperation(op));
      const tx = builder.setTimeout(0).build();
      tx.sign(source);
      return tx.toXDR();
    };
    const xlm = (units: string) => formatAmount(parseAmount(units));
    const envelopes = [
      build(root, '0', [
        Operation.createAccount({ destination: issuer.publicKey(), startingBalance: xlm('100') }),
        Operation.createAccount({ destination: treasury.publicKey(), startingBalance: xlm('100000') }),
        Operation.createAccount({ destination: customer.publicKey(), startingBalance: xlm('10000') }),
        Operation.createAccount({ destination: receiving.publicKey(), startingBalance: xlm('1000') }),
      ]),
      ...[treasury, customer, receiving].map((kp) => build(kp, firstSeq, [Operation.changeTrust({ asset: usdc })])),
      build(issuer, firstSeq, [
        Operation.payment({ destination: treasury.publicKey(), asset: usdc, amount: '1000000' }),
        Operation.payment({ destination: customer.publicKey(), asset: usdc, amount: '10000' }),
      ]),
    ];
    const { applied } = this.applyLedger(envelopes.map((e) => decodeEnvelope(e, this.networkPassphrase) as DecodedTransaction), genesisTime);
    const failures = applied.filter(({ outcome }) => outcome.kind === 'rejected' || !outcome.record.successful);
    if (failures.length > 0) throw new Error(`devnet bootstrap failed: ${JSON.stringify(failures.map((f) => f.outcome))}`);
  }
}

/** LedgerEntryChanges (an XDR variable-length array: count, then the elements); the SDK types offer no writer for bare arrays. */
function entryChangesXdr(changes: xdr.LedgerEntryChange[]): string {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(changes.length);
  return Buffer.concat([count, ...changes.map((c) => c.toXDR())]).toString('base64');
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Index of the first record whose id is >= `id` (records are sorted by id). */
export function lowerBound(records: readonly { id: bigint }[], id: bigint): number {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((records[mid] as { id: bigint }).id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
