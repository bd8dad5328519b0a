// toncenter v2 JSON shapes (as @ton/ton's TonClient and pytonlib-based clients read them).
import { Address, Cell, beginCell, storeStateInit, type Message, type TupleItem } from '@ton/core';
import { ChainError, feesOf, messageCell, type TxRecord } from './chain';

export function b64(buffer: Buffer): string {
  return buffer.toString('base64');
}

export function bocB64(cell: Cell): string {
  return b64(cell.toBoc());
}

/** A text comment (op 0 followed by a snake string), or null for any other body. */
export function textComment(body: Cell): string | null {
  try {
    const slice = body.beginParse();
    if (slice.remainingBits < 32 || slice.loadUint(32) !== 0) return null;
    return slice.loadStringTail();
  } catch {
    return null;
  }
}

function addressOrEmpty(address: unknown): string {
  return Address.isAddress(address) ? address.toString() : '';
}

export function messageJson(message: Message): Record<string, unknown> {
  const { info, body } = message;
  const internal = info.type === 'internal' ? info : undefined;
  const comment = textComment(body);
  return {
    '@type': 'raw.message',
    hash: b64(messageCell(message).hash()),
    source: info.type === 'external-in' ? '' : addressOrEmpty(info.src),
    destination: info.type === 'external-out' ? '' : addressOrEmpty(info.dest),
    value: (internal?.value.coins ?? 0n).toString(),
    extra_currencies: [],
    fwd_fee: (internal?.forwardFee ?? 0n).toString(),
    ihr_fee: (internal?.ihrFee ?? 0n).toString(),
    created_lt: (info.type === 'external-in' ? 0n : info.createdLt).toString(),
    body_hash: b64(body.hash()),
    // tonlib's msg.dataText carries the comment bytes base64-encoded; `message` is the readable form.
    msg_data: comment !== null
      ? { '@type': 'msg.dataText', text: b64(Buffer.from(comment, 'utf8')) }
      : { '@type': 'msg.dataRaw', body: bocB64(body), init_state: message.init ? bocB64(beginCell().store(storeStateInit(message.init)).endCell()) : '' },
    ...(comment !== null ? { message: comment } : {}),
  };
}

export function transactionIdJson(lt: bigint, hash: Buffer): Record<string, unknown> {
  return { '@type': 'internal.transactionId', lt: lt.toString(), hash: b64(hash) };
}

export function transactionJson({ account, tx, hash }: TxRecord): Record<string, unknown> {
  const storageFee = feesOf(tx).storageFee;
  const fee = tx.totalFees.coins;
  return {
    '@type': 'raw.transaction',
    address: { '@type': 'accountAddress', account_address: account.toString() },
    utime: tx.now,
    data: bocB64(tx.raw),
    transaction_id: transactionIdJson(tx.lt, hash),
    fee: fee.toString(),
    storage_fee: storageFee.toString(),
    other_fee: (fee - storageFee).toString(),
    // Left out (not null) when there is none: TonClient's schema allows only a message or nothing.
    ...(tx.inMessage ? { in_msg: messageJson(tx.inMessage) } : {}),
    out_msgs: [...tx.outMessages.values()].map(messageJson),
  };
}

/** Python's hex(): 0x1f, -0x1f. */
function hexInt(value: bigint): string {
  return value < 0n ? `-0x${(-value).toString(16)}` : `0x${value.toString(16)}`;
}

/** Top-level stack entries as toncenter renders them: numbers in hex, slices and builders as cells. */
export function stackJson(stack: TupleItem[]): unknown[] {
  return stack.map((item): unknown[] => {
    switch (item.type) {
      case 'int': return ['num', hexInt(item.value)];
      case 'null': return ['null'];
      case 'cell': case 'slice': case 'builder': return ['cell', { bytes: bocB64(item.cell) }];
      case 'tuple': return ['tuple', { '@type': 'tvm.tuple', elements: item.items.map(nestedStackEntry) }];
      case 'nan': return ['num', 'NaN'];
    }
  });
}

/** Entries inside tuples use tonlib's typed objects. */
function nestedStackEntry(item: TupleItem): Record<string, unknown> {
  switch (item.type) {
    case 'int': return { '@type': 'tvm.stackEntryNumber', number: { '@type': 'tvm.numberDecimal', number: item.value.toString() } };
    case 'cell': case 'builder': return { '@type': 'tvm.stackEntryCell', cell: { '@type': 'tvm.cell', bytes: bocB64(item.cell) } };
    case 'slice': return { '@type': 'tvm.stackEntrySlice', slice: { '@type': 'tvm.slice', bytes: bocB64(item.cell) } };
    case 'tuple': return { '@type': 'tvm.stackEntryTuple', tuple: { '@type': 'tvm.tuple', elements: item.items.map(nestedStackEntry) } };
    case 'null': case 'nan': return { '@type': 'tvm.stackEntryUnsupported' };
  }
}

function parseSignedInt(value: unknown): bigint {
  const text = String(value).trim();
  return text.startsWith('-') ? -BigInt(text.slice(1)) : BigInt(text);
}

function cellArgument(value: unknown): Cell {
  const bytes = typeof value === 'object' && value !== null && 'bytes' in value ? value.bytes : value;
  if (typeof bytes !== 'string') throw new Error('expected a base64 bag of cells');
  return Cell.fromBase64(bytes);
}

/** Get-method arguments as clients send them: ['num', '12'], ['tvm.Slice', b64], ['cell', { bytes }], … */
export function parseStack(input: unknown): TupleItem[] {
  const entries: unknown = typeof input === 'string' ? JSON.parse(input) : input ?? [];
  if (!Array.isArray(entries)) throw new ChainError(422, 'stack must be an array of [type, value] pairs');
  return entries.map((entry: unknown): TupleItem => {
    const [kind, value] = Array.isArray(entry) ? (entry as unknown[]) : [];
    if (typeof kind !== 'string') throw new ChainError(422, 'stack entries must be [type, value] pairs');
    try {
      switch (kind) {
        case 'num': case 'number': case 'int': return { type: 'int', value: parseSignedInt(value) };
        case 'tvm.Cell': case 'cell': return { type: 'cell', cell: cellArgument(value) };
        case 'tvm.Slice': case 'slice': return { type: 'slice', cell: cellArgument(value) };
        case 'tvm.Builder': case 'builder': return { type: 'builder', cell: cellArgument(value) };
      }
    } catch (error) {
      throw new ChainError(422, `bad ${kind} stack entry: ${error instanceof Error ? error.message : String(error)}`);
    }
    throw new ChainError(422, `unsupported stack entry type ${kind}`);
  });
}
