import { Asset, Keypair, xdr } from '@stellar/stellar-sdk';

export interface Thresholds { master: number; low: number; med: number; high: number }
export interface CreditAsset { code: string; issuer: string }

export interface AccountEntry {
  kind: 'account';
  id: string;
  balance: bigint;
  seqNum: bigint;
  numSubEntries: number;
  thresholds: Thresholds;
  /** Ledger and close time (unix seconds) of the last sequence number change, as Horizon's sequence_ledger/_time. */
  seqLedger: number;
  seqTime: bigint;
  lastModifiedLedger: number;
}

export interface TrustlineEntry extends CreditAsset {
  kind: 'trustline';
  account: string;
  balance: bigint;
  limit: bigint;
  lastModifiedLedger: number;
}

export type LedgerEntry = AccountEntry | TrustlineEntry;

export const accountKey = (id: string): string => `account/${id}`;
export const trustlineKey = (account: string, asset: CreditAsset): string => `trustline/${account}/${asset.code}/${asset.issuer}`;

function keyOf(entry: LedgerEntry): string {
  return entry.kind === 'account' ? accountKey(entry.id) : trustlineKey(entry.account, entry);
}

export interface EntryView {
  get(key: string): LedgerEntry | undefined;
  apply(changes: ReadonlyMap<string, LedgerEntry | null>): void;
}

/** The ledger's current entries. */
export class EntryStore implements EntryView {
  private readonly entries = new Map<string, LedgerEntry>();

  constructor(entries: Iterable<LedgerEntry> = []) {
    for (const entry of entries) this.entries.set(keyOf(entry), entry);
  }

  get(key: string): LedgerEntry | undefined {
    return this.entries.get(key);
  }

  apply(changes: ReadonlyMap<string, LedgerEntry | null>): void {
    for (const [key, entry] of changes) {
      if (entry === null) this.entries.delete(key);
      else this.entries.set(key, entry);
    }
  }

  values(): IterableIterator<LedgerEntry> {
    return this.entries.values();
  }
}

/**
 * A nested all-or-nothing view, as stellar-core's LedgerTxn: reads fall through to the parent, writes stay here until
 * commit(), and the difference to the parent is the transaction meta. Entries are modified in place after load*(),
 * which copies them in; get*() is for reading only.
 */
export class LedgerTxn implements EntryView {
  private readonly changes = new Map<string, LedgerEntry | null>();

  constructor(private readonly parent: EntryView, private readonly ledgerSeq: number) {}

  get(key: string): LedgerEntry | undefined {
    const changed = this.changes.get(key);
    return changed === null ? undefined : (changed ?? this.parent.get(key));
  }

  apply(changes: ReadonlyMap<string, LedgerEntry | null>): void {
    for (const [key, entry] of changes) this.changes.set(key, entry);
  }

  getAccount(id: string): Readonly<AccountEntry> | undefined {
    const entry = this.get(accountKey(id));
    return entry?.kind === 'account' ? entry : undefined;
  }

  loadAccount(id: string): AccountEntry | undefined {
    const entry = this.load(accountKey(id));
    return entry?.kind === 'account' ? entry : undefined;
  }

  loadTrustline(account: string, asset: CreditAsset): TrustlineEntry | undefined {
    const entry = this.load(trustlineKey(account, asset));
    return entry?.kind === 'trustline' ? entry : undefined;
  }

  create(entry: LedgerEntry): void {
    this.changes.set(keyOf(entry), { ...entry, lastModifiedLedger: this.ledgerSeq });
  }

  erase(entry: LedgerEntry): void {
    this.changes.set(keyOf(entry), null);
  }

  commit(): void {
    this.parent.apply(this.changes);
    this.changes.clear();
  }

  /** What this view changed relative to its parent, as core's LedgerEntryChanges (state before each update). */
  entryChanges(): xdr.LedgerEntryChange[] {
    const out: xdr.LedgerEntryChange[] = [];
    for (const [key, after] of this.changes) {
      const before = this.parent.get(key);
      if (before !== undefined) out.push(xdr.LedgerEntryChange.ledgerEntryState(entryXdr(before)));
      if (after === null) {
        if (before !== undefined) out.push(xdr.LedgerEntryChange.ledgerEntryRemoved(entryKeyXdr(before)));
      } else {
        out.push(before === undefined ? xdr.LedgerEntryChange.ledgerEntryCreated(entryXdr(after)) : xdr.LedgerEntryChange.ledgerEntryUpdated(entryXdr(after)));
      }
    }
    return out;
  }

  private load(key: string): LedgerEntry | undefined {
    const changed = this.changes.get(key);
    if (changed !== undefined) return changed ?? undefined;
    const entry = this.parent.get(key);
    if (entry === undefined) return undefined;
    const copy = { ...entry, lastModifiedLedger: this.ledgerSeq };
    this.changes.set(key, copy);
    return copy;
  }
}

const AUTHORIZED_FLAG = 1;

function trustLineAssetXdr(asset: CreditAsset): xdr.TrustLineAsset {
  return new Asset(asset.code, asset.issuer).toTrustLineXDRObject();
}

function entryXdr(entry: LedgerEntry): xdr.LedgerEntry {
  const accountId = Keypair.fromPublicKey(entry.kind === 'account' ? entry.id : entry.account).xdrAccountId();
  const data = entry.kind === 'account'
    ? xdr.LedgerEntryData.account(new xdr.AccountEntry({
      accountId,
      balance: new xdr.Int64(entry.balance),
      seqNum: new xdr.Int64(entry.seqNum),
      numSubEntries: entry.numSubEntries,
      inflationDest: null,
      flags: 0,
      homeDomain: '',
      thresholds: Buffer.from([entry.thresholds.master, entry.thresholds.low, entry.thresholds.med, entry.thresholds.high]),
      signers: [],
      ext: new xdr.AccountEntryExt(0),
    }))
    : xdr.LedgerEntryData.trustline(new xdr.TrustLineEntry({
      accountId,
      asset: trustLineAssetXdr(entry),
      balance: new xdr.Int64(entry.balance),
      limit: new xdr.Int64(entry.limit),
      flags: AUTHORIZED_FLAG,
      ext: new xdr.TrustLineEntryExt(0),
    }));
  return new xdr.LedgerEntry({ lastModifiedLedgerSeq: entry.lastModifiedLedger, data, ext: new xdr.LedgerEntryExt(0) });
}

function entryKeyXdr(entry: LedgerEntry): xdr.LedgerKey {
  return entry.kind === 'account'
    ? xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(entry.id).xdrAccountId() }))
    : xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId: Keypair.fromPublicKey(entry.account).xdrAccountId(), asset: trustLineAssetXdr(entry) }));
}

export type EntryJson = Record<string, string | number | Thresholds>;

/** JSON for the state file: bigints as decimal strings. */
export function entryToJson(entry: LedgerEntry): EntryJson {
  return Object.fromEntries<string | number | Thresholds>(Object.entries(entry).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]));
}

export function entryFromJson(json: EntryJson): LedgerEntry {
  const str = (field: string): string => {
    const value = json[field];
    if (typeof value !== 'string') throw new Error(`state file: entry field ${field} is not a string`);
    return value;
  };
  const num = (field: string): number => {
    const value = json[field];
    if (typeof value !== 'number') throw new Error(`state file: entry field ${field} is not a number`);
    return value;
  };
  if (json.kind === 'account') {
    return {
      kind: 'account', id: str('id'), balance: BigInt(str('balance')), seqNum: BigInt(str('seqNum')), numSubEntries: num('numSubEntries'),
      thresholds: json.thresholds as Thresholds, seqLedger: num('seqLedger'), seqTime: BigInt(str('seqTime')), lastModifiedLedger: num('lastModifiedLedger'),
    };
  }
  if (json.kind === 'trustline') {
    return {
      kind: 'trustline', account: str('account'), code: str('code'), issuer: str('issuer'), balance: BigInt(str('balance')),
      limit: BigInt(str('limit')), lastModifiedLedger: num('lastModifiedLedger'),
    };
  }
  throw new Error(`state file: unknown entry kind ${JSON.stringify(json.kind)}`);
}
