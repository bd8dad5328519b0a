import { encodeMuxedAccountToAddress, FeeBumpTransaction, StrKey, Transaction, xdr } from '@stellar/stellar-sdk';
import type { CreditAsset } from './entries';

// Transaction envelopes decoded into what the ledger checks and applies; amounts stay int64 stroops.

/** An account as a transaction names it: a G address, or an M (muxed) address over one. */
export interface AccountRef { account: string; muxed?: { address: string; id: string } }

/** undefined where the XDR names an asset Stellar would refuse as malformed. */
export type AssetRef = { type: 'native' } | ({ type: 'credit' } & CreditAsset) | undefined;

export type DecodedOp =
  | { type: 'createAccount'; source?: AccountRef; destination: string; startingBalance: bigint }
  | { type: 'payment'; source?: AccountRef; destination: AccountRef; asset: AssetRef; amount: bigint }
  | { type: 'pathPaymentStrictSend'; source?: AccountRef; destination: AccountRef; sendAsset: AssetRef; sendAmount: bigint; destAsset: AssetRef; destMin: bigint; path: AssetRef[] }
  | { type: 'pathPaymentStrictReceive'; source?: AccountRef; destination: AccountRef; sendAsset: AssetRef; sendMax: bigint; destAsset: AssetRef; destAmount: bigint; path: AssetRef[] }
  | { type: 'changeTrust'; source?: AccountRef; asset: AssetRef | 'pool'; limit: bigint }
  | { type: 'unsupported'; source?: AccountRef; name: string };

export type MemoType = 'none' | 'text' | 'id' | 'hash' | 'return';
/** Horizon's rendering: text as a string (memo_bytes holds the raw bytes), id in decimal, hash and return in base64. */
export interface Memo { type: MemoType; value?: string; bytes?: string }

export interface DecodedTransaction {
  kind: 'transaction';
  hash: string;
  hashBytes: Buffer;
  envelopeXdr: string;
  source: AccountRef;
  fee: bigint;
  seq: bigint;
  memo: Memo;
  timeBounds?: { min: bigint; max: bigint };
  /** Ledger bounds, minimum sequence number/age/gap or extra signers: preconditions this devnet does not model. */
  unsupportedPreconditions: boolean;
  ops: DecodedOp[];
  signatures: xdr.DecoratedSignature[];
}

/** Fee-bump envelopes are recognised (so they get a hash and a clear tx_not_supported) but not applied. */
export interface DecodedFeeBump { kind: 'feeBump'; hash: string; envelopeXdr: string; opCount: number }

export function accountRef(muxed: xdr.MuxedAccount): AccountRef {
  if (muxed.switch() === xdr.CryptoKeyType.keyTypeMuxedEd25519()) {
    const med = muxed.med25519();
    return { account: StrKey.encodeEd25519PublicKey(med.ed25519()), muxed: { address: encodeMuxedAccountToAddress(muxed, true), id: med.id().toString() } };
  }
  return { account: StrKey.encodeEd25519PublicKey(muxed.ed25519()) };
}

function assetCode(raw: Buffer, maxLength: 4 | 12): string | undefined {
  const code = raw.toString('latin1').replace(/\0+$/, '');
  const minLength = maxLength === 4 ? 1 : 5;
  return /^[A-Za-z0-9]+$/.test(code) && code.length >= minLength && code.length <= maxLength ? code : undefined;
}

function decodeAsset(asset: xdr.Asset | xdr.ChangeTrustAsset): AssetRef | 'pool' {
  const type = asset.switch().name;
  if (type === 'assetTypeNative') return { type: 'native' };
  if (type === 'assetTypePoolShare') return 'pool';
  const alphaNum = type === 'assetTypeCreditAlphanum4' ? asset.alphaNum4() : asset.alphaNum12();
  const code = assetCode(alphaNum.assetCode(), type === 'assetTypeCreditAlphanum4' ? 4 : 12);
  return code === undefined ? undefined : { type: 'credit', code, issuer: StrKey.encodeEd25519PublicKey(alphaNum.issuer().ed25519()) };
}

/** An asset a payment moves (a pool share is none: malformed). */
function plainAsset(asset: xdr.Asset): AssetRef {
  const decoded = decodeAsset(asset);
  return decoded === 'pool' ? undefined : decoded;
}

function decodeOp(op: xdr.Operation): DecodedOp {
  const sourceXdr = op.sourceAccount();
  const source = sourceXdr ? accountRef(sourceXdr) : undefined;
  const body = op.body();
  switch (body.switch().name) {
    case 'createAccount': {
      const o = body.createAccountOp();
      return { type: 'createAccount', source, destination: StrKey.encodeEd25519PublicKey(o.destination().ed25519()), startingBalance: o.startingBalance().toBigInt() };
    }
    case 'payment': {
      const o = body.paymentOp();
      return { type: 'payment', source, destination: accountRef(o.destination()), asset: plainAsset(o.asset()), amount: o.amount().toBigInt() };
    }
    case 'pathPaymentStrictSend': {
      const o = body.pathPaymentStrictSendOp();
      return {
        type: 'pathPaymentStrictSend', source, destination: accountRef(o.destination()),
        sendAsset: plainAsset(o.sendAsset()), sendAmount: o.sendAmount().toBigInt(), destAsset: plainAsset(o.destAsset()), destMin: o.destMin().toBigInt(), path: o.path().map(plainAsset),
      };
    }
    case 'pathPaymentStrictReceive': {
      const o = body.pathPaymentStrictReceiveOp();
      return {
        type: 'pathPaymentStrictReceive', source, destination: accountRef(o.destination()),
        sendAsset: plainAsset(o.sendAsset()), sendMax: o.sendMax().toBigInt(), destAsset: plainAsset(o.destAsset()), destAmount: o.destAmount().toBigInt(), path: o.path().map(plainAsset),
      };
    }
    case 'changeTrust': {
      const o = body.changeTrustOp();
      return { type: 'changeTrust', source, asset: decodeAsset(o.line()), limit: o.limit().toBigInt() };
    }
    default:
      return { type: 'unsupported', source, name: body.switch().name };
  }
}

function decodeMemo(memo: xdr.Memo): Memo {
  switch (memo.switch().name) {
    case 'memoText': {
      const bytes = Buffer.from(memo.text());
      return { type: 'text', value: bytes.toString('utf8'), bytes: bytes.toString('base64') };
    }
    case 'memoId':
      return { type: 'id', value: memo.id().toString() };
    case 'memoHash':
      return { type: 'hash', value: memo.hash().toString('base64') };
    case 'memoReturn':
      return { type: 'return', value: memo.retHash().toString('base64') };
    default:
      return { type: 'none' };
  }
}

function preconditions(cond: xdr.Preconditions): { timeBounds: xdr.TimeBounds | null; unsupported: boolean } {
  switch (cond.switch().name) {
    case 'precondTime':
      return { timeBounds: cond.timeBounds(), unsupported: false };
    case 'precondV2': {
      const v2 = cond.v2();
      const unsupported = v2.ledgerBounds() !== null || v2.minSeqNum() !== null || v2.minSeqAge().toBigInt() !== 0n
        || v2.minSeqLedgerGap() !== 0 || v2.extraSigners().length > 0;
      return { timeBounds: v2.timeBounds(), unsupported };
    }
    default:
      return { timeBounds: null, unsupported: false };
  }
}

/** Throws when the base64 is not a TransactionEnvelope (Horizon's transaction_malformed). */
export function decodeEnvelope(envelopeXdr: string, networkPassphrase: string): DecodedTransaction | DecodedFeeBump {
  const envelope = xdr.TransactionEnvelope.fromXDR(envelopeXdr, 'base64');
  const canonical = envelope.toXDR('base64');
  if (envelope.switch() === xdr.EnvelopeType.envelopeTypeTxFeeBump()) {
    return {
      kind: 'feeBump', hash: new FeeBumpTransaction(envelope, networkPassphrase).hash().toString('hex'), envelopeXdr: canonical,
      opCount: envelope.feeBump().tx().innerTx().v1().tx().operations().length,
    };
  }
  const hashBytes = new Transaction(envelope, networkPassphrase).hash();
  const common = { kind: 'transaction' as const, hash: hashBytes.toString('hex'), hashBytes, envelopeXdr: canonical };
  if (envelope.switch() === xdr.EnvelopeType.envelopeTypeTxV0()) {
    const v0 = envelope.v0();
    const tx = v0.tx();
    const timeBounds = tx.timeBounds();
    return {
      ...common,
      source: { account: StrKey.encodeEd25519PublicKey(tx.sourceAccountEd25519()) },
      fee: BigInt(tx.fee()),
      seq: tx.seqNum().toBigInt(),
      memo: decodeMemo(tx.memo()),
      timeBounds: timeBounds ? { min: timeBounds.minTime().toBigInt(), max: timeBounds.maxTime().toBigInt() } : undefined,
      unsupportedPreconditions: false,
      ops: tx.operations().map(decodeOp),
      signatures: v0.signatures(),
    };
  }
  const v1 = envelope.v1();
  const tx = v1.tx();
  const { timeBounds, unsupported } = preconditions(tx.cond());
  return {
    ...common,
    source: accountRef(tx.sourceAccount()),
    fee: BigInt(tx.fee()),
    seq: tx.seqNum().toBigInt(),
    memo: decodeMemo(tx.memo()),
    timeBounds: timeBounds ? { min: timeBounds.minTime().toBigInt(), max: timeBounds.maxTime().toBigInt() } : undefined,
    unsupportedPreconditions: unsupported,
    ops: tx.operations().map(decodeOp),
    signatures: v1.signatures(),
  };
}
