// The Solana JSON-RPC methods a wallet, @solana/kit and a payment service use, answered from the ledger in the
// shapes (context wrappers, encodings, error codes) of a real cluster's RPC.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getCompiledTransactionMessageDecoder, type Address } from '@solana/kit';
import { decodeBase58, encodeBase58 } from './base58';
import { isTokenAccount, isTokenProgram, tokenAccountHead, uiTokenAmount, type AccountState } from './accounts';
import {
  invalidParams,
  RPC_BLOCK_NOT_AVAILABLE,
  RPC_INTERNAL_ERROR,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_PARSE_ERROR,
  RPC_PREFLIGHT_FAILURE,
  RPC_SIGNATURE_VERIFICATION_FAILURE,
  RPC_SLOT_SKIPPED,
  RPC_UNSUPPORTED_TRANSACTION_VERSION,
  RpcError,
  transactionErrorMessage,
  type TransactionErrorJson,
} from './errors';
import { GENESIS_SLOT, isWritable, type Commitment, type Decoded, type ExecutionDetail, type Ledger, type TxRecord } from './ledger';
import { parseAccountData, parseInstruction } from './parsed';

export const API_VERSION = '2.2.0';
const RENT_EPOCH_EXEMPT = 18_446_744_073_709_551_615n;
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURE_STATUSES = 256;
const MAX_SIGNATURES_FOR_ADDRESS = 1_000;
const MAX_GET_BLOCKS_RANGE = 500_000;
const MAX_BASE58_ACCOUNT_BYTES = 128;
const MAX_REQUEST_BYTES = 50 * 1024 * 1024;
const PACKET_DATA_SIZE = 1_232;
const GENESIS_HASH = encodeBase58(createHash('sha256').update('payrail-solana-devnet/genesis').digest());

type Params = unknown[];
type Config = Record<string, unknown>;
export type Encoding = 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed' | 'json';

/** Signs and sends the airdrop transfer; the faucet is an ordinary funded account. */
export type Airdrop = (to: Address, lamports: bigint) => Promise<string>;

// ---- parameters ----

export function configAt(params: Params, i: number): Config {
  const value = params[i];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams(`Invalid params: expected a configuration object at position ${i}`);
  return value as Config;
}

export function stringAt(params: Params, i: number, what: string): string {
  const value = params[i];
  if (typeof value !== 'string') throw invalidParams(`Invalid params: ${what} must be a string`);
  return value;
}

export function addressOf(value: unknown): Address {
  let valid = false;
  try {
    valid = typeof value === 'string' && decodeBase58(value).length === 32;
  } catch {
    // not base58
  }
  if (!valid) throw invalidParams('Invalid param: Invalid');
  return value as Address;
}

function integerOf(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalidParams(`Invalid params: ${what} must be a non-negative integer`);
  return BigInt(value);
}

const COMMITMENTS: Record<string, Commitment> = {
  processed: 'processed', confirmed: 'confirmed', finalized: 'finalized',
  // Deprecated spellings the RPC still accepts.
  recent: 'processed', single: 'confirmed', singleGossip: 'confirmed', root: 'finalized', max: 'finalized',
};

/** The RPC's default commitment is finalized (kit sends `confirmed` unless told otherwise). */
export function commitmentOf(config: Config): Commitment {
  if (config.commitment === undefined) return 'finalized';
  const commitment = typeof config.commitment === 'string' ? COMMITMENTS[config.commitment] : undefined;
  if (commitment === undefined) throw invalidParams(`Invalid params: unknown commitment ${JSON.stringify(config.commitment)}`);
  return commitment;
}

function confirmedCommitmentOf(config: Config): Commitment {
  const commitment = commitmentOf(config);
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return commitment;
}

function minContextSlotOf(config: Config): number | undefined {
  return config.minContextSlot === undefined ? undefined : Number(integerOf(config.minContextSlot, 'minContextSlot'));
}

export function encodingOf(config: Config, fallback: Encoding, allowed: readonly Encoding[]): Encoding {
  const encoding = (config.encoding ?? fallback) as Encoding;
  if (!allowed.includes(encoding)) throw invalidParams(`Invalid params: unsupported encoding ${String(encoding)}`);
  return encoding;
}

function bytesOf(encoded: string, encoding: Encoding): Uint8Array {
  try {
    return encoding === 'base64' ? new Uint8Array(Buffer.from(encoded, 'base64')) : decodeBase58(encoded);
  } catch {
    throw invalidParams(`invalid ${encoding} encoding`);
  }
}

/** A wire transaction, refused like the RPC refuses one that does not fit a packet. */
function wireOf(encoded: string, encoding: Encoding): Uint8Array {
  const wire = bytesOf(encoded, encoding);
  if (wire.length > PACKET_DATA_SIZE) throw invalidParams(`${encoding} encoded VersionedTransaction too large: ${wire.length} bytes (max: ${PACKET_DATA_SIZE})`);
  return wire;
}

// ---- JSON shapes ----

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const base58 = encodeBase58;

interface DataSlice { offset: number; length: number }

function dataSliceOf(config: Config): DataSlice | undefined {
  const slice = config.dataSlice as { offset?: unknown; length?: unknown } | undefined;
  if (slice === undefined) return undefined;
  return { offset: Number(integerOf(slice.offset, 'dataSlice.offset')), length: Number(integerOf(slice.length, 'dataSlice.length')) };
}

export class SolanaRpc {
  private readonly methods: Record<string, (params: Params) => unknown>;

  constructor(private readonly ledger: Ledger, private readonly airdrop: Airdrop) {
    this.methods = {
      getHealth: () => 'ok',
      getVersion: () => ({ 'solana-core': API_VERSION, 'feature-set': 0 }),
      getGenesisHash: () => GENESIS_HASH,
      getSlot: (p) => this.atCommitment(p, 0, (c) => this.ledger.slotAt(c)),
      getBlockHeight: (p) => this.atCommitment(p, 0, (c) => this.ledger.blockHeight(c)),
      getEpochInfo: (p) => this.atCommitment(p, 0, (c) => this.ledger.epochInfo(c)),
      getTransactionCount: (p) => this.atCommitment(p, 0, (c) => this.ledger.epochInfo(c).transactionCount),
      getBlockTime: (p) => this.getBlockTime(p),
      getBlock: (p) => this.getBlock(p),
      getBlocks: (p) => this.getBlocks(p),
      getLatestBlockhash: (p) => this.withContext(p, 0, (c) => {
        const { blockhash, lastValidBlockHeight } = this.ledger.latestBlockhash(c);
        return { blockhash, lastValidBlockHeight };
      }),
      isBlockhashValid: (p) => this.withContext(p, 1, (c) => this.ledger.isBlockhashValid(stringAt(p, 0, 'blockhash'), c)),
      getMinimumBalanceForRentExemption: (p) => this.ledger.minimumBalanceForRentExemption(integerOf(p[0], 'data length')),
      getFeeForMessage: (p) => this.getFeeForMessage(p),
      getRecentPrioritizationFees: (p) => {
        const addresses = p[0] === undefined ? [] : p[0];
        if (!Array.isArray(addresses) || addresses.length > 128) throw invalidParams('Invalid params: expected at most 128 addresses');
        return this.ledger.recentPrioritizationFees(addresses.map(addressOf));
      },
      getAccountInfo: (p) => this.getAccounts(p, false),
      getMultipleAccounts: (p) => this.getAccounts(p, true),
      getBalance: (p) => this.withContext(p, 1, (c) => this.ledger.account(addressOf(p[0]), c)?.lamports ?? 0n),
      getTokenAccountBalance: (p) => this.withContext(p, 1, (c) => {
        const account = this.ledger.account(addressOf(p[0]), c);
        if (account === null) throw invalidParams('Invalid param: could not find account');
        if (!isTokenAccount(account)) throw invalidParams('Invalid param: not a Token account');
        const { mint, amount } = tokenAccountHead(account);
        return uiTokenAmount(amount, this.ledger.decimals(mint) ?? 0);
      }),
      getTokenAccountsByOwner: (p) => this.getTokenAccountsByOwner(p),
      getSignatureStatuses: (p) => this.getSignatureStatuses(p),
      getSignaturesForAddress: (p) => this.getSignaturesForAddress(p),
      getTransaction: (p) => this.getTransaction(p),
      sendTransaction: (p) => this.sendTransaction(p),
      simulateTransaction: (p) => this.simulateTransaction(p),
      requestAirdrop: (p) => {
        const config = configAt(p, 2);
        commitmentOf(config);
        return this.airdrop(addressOf(p[0]), integerOf(p[1], 'lamports'));
      },
    };
  }

  /** The method's result, or a promise of it (requestAirdrop signs). */
  handle(method: string, params: Params): unknown {
    const handler = Object.hasOwn(this.methods, method) ? this.methods[method] : undefined;
    if (handler === undefined) throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found');
    this.ledger.tick();
    return handler(params);
  }

  private atCommitment<T>(params: Params, configIndex: number, read: (commitment: Commitment) => T): T {
    const config = configAt(params, configIndex);
    const commitment = commitmentOf(config);
    this.ledger.assertMinContextSlot(minContextSlotOf(config), commitment);
    return read(commitment);
  }

  private withContext<T>(params: Params, configIndex: number, read: (commitment: Commitment, config: Config) => T): { context: { apiVersion: string; slot: number }; value: T } {
    const config = configAt(params, configIndex);
    const commitment = commitmentOf(config);
    this.ledger.assertMinContextSlot(minContextSlotOf(config), commitment);
    return { context: { apiVersion: API_VERSION, slot: this.ledger.slotAt(commitment) }, value: read(commitment, config) };
  }

  // ---- accounts ----

  /** An account in the RPC's JSON, for the HTTP methods and the websocket notifications alike. */
  accountJson(account: AccountState, encoding: Encoding, slice: DataSlice | undefined): Record<string, unknown> {
    const sliced = slice === undefined ? account.data : account.data.subarray(slice.offset, slice.offset + slice.length);
    let data: unknown;
    if (encoding === 'jsonParsed') {
      data = parseAccountData(account, (mint) => this.ledger.decimals(mint)) ?? [base64(account.data), 'base64'];
    } else if (encoding === 'base58') {
      if (sliced.length > MAX_BASE58_ACCOUNT_BYTES) {
        throw new RpcError(RPC_INVALID_REQUEST, 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
      }
      data = [base58(sliced), 'base58'];
    } else {
      data = [base64(sliced), 'base64'];
    }
    return { data, executable: account.executable, lamports: account.lamports, owner: account.owner, rentEpoch: RENT_EPOCH_EXEMPT, space: account.data.length };
  }

  private getAccounts(params: Params, multiple: boolean): unknown {
    return this.withContext(params, 1, (commitment, config) => {
      const encoding = encodingOf(config, multiple ? 'base64' : 'base58', ['base58', 'base64', 'jsonParsed']);
      const slice = dataSliceOf(config);
      const read = (address: Address): unknown => {
        const account = this.ledger.account(address, commitment);
        return account === null ? null : this.accountJson(account, encoding, slice);
      };
      if (!multiple) return read(addressOf(params[0]));
      const addresses = params[0];
      if (!Array.isArray(addresses)) throw invalidParams('Invalid params: expected an array of addresses');
      if (addresses.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      return addresses.map((a) => read(addressOf(a)));
    });
  }

  private getTokenAccountsByOwner(params: Params): unknown {
    const owner = addressOf(params[0]);
    const filter = configAt(params, 1);
    return this.withContext(params, 2, (commitment, config) => {
      const encoding = encodingOf(config, 'base64', ['base58', 'base64', 'jsonParsed']);
      const slice = dataSliceOf(config);
      let mint: Address | undefined;
      let programId: Address;
      if (filter.mint !== undefined) {
        mint = addressOf(filter.mint);
        const mintAccount = this.ledger.account(mint, commitment);
        if (mintAccount === null || !isTokenProgram(mintAccount.owner) || this.ledger.decimals(mint) === null) throw invalidParams('Invalid param: could not find mint');
        programId = mintAccount.owner;
      } else if (filter.programId !== undefined) {
        programId = addressOf(filter.programId);
        if (!isTokenProgram(programId)) throw invalidParams('Invalid param: unrecognized Token program id');
      } else {
        throw invalidParams('Invalid params: expected a filter with mint or programId');
      }
      return this.ledger.tokenAccountsOf(owner).flatMap((pubkey) => {
        const account = this.ledger.account(pubkey, commitment);
        if (account === null || !isTokenAccount(account) || account.owner !== programId) return [];
        const head = tokenAccountHead(account);
        if (head.owner !== owner || (mint !== undefined && head.mint !== mint)) return [];
        return [{ pubkey, account: this.accountJson(account, encoding, slice) }];
      });
    });
  }

  // ---- slots and fees ----

  private getBlockTime(params: Params): number {
    const slot = Number(integerOf(params[0], 'slot'));
    if (slot > this.ledger.slotAt('confirmed')) throw new RpcError(RPC_BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
    if (slot < GENESIS_SLOT) throw new RpcError(RPC_SLOT_SKIPPED, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
    return this.ledger.blockTime(slot);
  }

  private getFeeForMessage(params: Params): unknown {
    const bytes = bytesOf(stringAt(params, 0, 'message'), 'base64');
    let message: Decoded['message'];
    try {
      message = getCompiledTransactionMessageDecoder().decode(bytes) as Decoded['message'];
    } catch {
      throw invalidParams('Invalid params: failed to deserialize message');
    }
    return this.withContext(params, 1, () => (this.ledger.lifetimeValid(message) ? this.ledger.fee(message) : null));
  }

  // ---- transactions ----

  private static returnDataJson(returnData: TxRecord['returnData']): unknown {
    return returnData === null ? null : { programId: returnData.programId, data: [base64(returnData.data), 'base64'] };
  }

  private innerInstructionsJson(inner: TxRecord['innerInstructions'], keys: Address[], parsed: boolean): unknown {
    return inner.map(({ index, instructions }) => ({
      index,
      instructions: instructions.map((ix) => parsed
        ? parseInstruction(keys[ix.programIdIndex]!, ix.accounts.map((i) => keys[i]!), ix.data, ix.stackHeight, (m) => this.ledger.decimals(m))
        : { programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: base58(ix.data), stackHeight: ix.stackHeight }),
    }));
  }

  private static preflightFailure(detail: ExecutionDetail): RpcError {
    return new RpcError(RPC_PREFLIGHT_FAILURE, `Transaction simulation failed: ${transactionErrorMessage(detail.err ?? 'SanitizeFailure')}`, {
      accounts: null,
      err: detail.err,
      innerInstructions: null,
      loadedAccountsDataSize: 0,
      logs: detail.logs,
      replacementBlockhash: null,
      returnData: SolanaRpc.returnDataJson(detail.returnData),
      unitsConsumed: detail.unitsConsumed,
      fee: null,
    });
  }

  /**
   * sendTransaction's checks in the RPC's order: decode, status cache, lifetime, preflight simulation, then the leader.
   * With skipPreflight a transaction the leader refuses is dropped and only its signature comes back, as on a cluster.
   */
  send(wire: Uint8Array, skipPreflight: boolean): string {
    const decoded = this.ledger.decode(wire);
    const refuse = (detail: ExecutionDetail): string => {
      if (detail.err === 'SignatureFailure') throw new RpcError(RPC_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
      if (skipPreflight) return decoded.signature;
      throw SolanaRpc.preflightFailure(detail);
    };
    const bare = (err: TransactionErrorJson): ExecutionDetail => ({ err, logs: [], unitsConsumed: 0n, returnData: null, innerInstructions: [] });
    if (this.ledger.isKnown(decoded.signature)) return refuse(bare('AlreadyProcessed'));
    if (!this.ledger.lifetimeValid(decoded.message)) return refuse(bare('BlockhashNotFound'));
    if (!skipPreflight) {
      const simulation = this.ledger.simulate(decoded, { sigVerify: true, addresses: [] });
      if (simulation.err !== null) return refuse(simulation);
    }
    const result = this.ledger.execute(decoded);
    return 'dropped' in result ? refuse(result.detail) : decoded.signature;
  }

  private sendTransaction(params: Params): string {
    const config = configAt(params, 1);
    const encoding = encodingOf(config, 'base58', ['base58', 'base64']);
    if (config.preflightCommitment !== undefined) commitmentOf({ commitment: config.preflightCommitment });
    this.ledger.assertMinContextSlot(minContextSlotOf(config), 'processed');
    return this.send(wireOf(stringAt(params, 0, 'transaction'), encoding), config.skipPreflight === true);
  }

  private simulateTransaction(params: Params): unknown {
    return this.withContext(params, 1, (_commitment, config) => {
      const encoding = encodingOf(config, 'base58', ['base58', 'base64']);
      const sigVerify = config.sigVerify === true;
      const replaceRecentBlockhash = config.replaceRecentBlockhash === true;
      if (sigVerify && replaceRecentBlockhash) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      const accountsConfig = config.accounts as { addresses?: unknown; encoding?: unknown } | undefined;
      const addresses = accountsConfig === undefined ? undefined : (accountsConfig.addresses as unknown[] | undefined ?? []).map(addressOf);
      const accountsEncoding = encodingOf({ encoding: accountsConfig?.encoding }, 'base64', ['base64', 'jsonParsed']);
      const decoded = this.ledger.decode(wireOf(stringAt(params, 0, 'transaction'), encoding));
      const replacement = replaceRecentBlockhash ? this.ledger.latestBlockhash('processed') : null;
      const simulation = replacement === null && !this.ledger.lifetimeValid(decoded.message)
        ? { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0n, returnData: null, innerInstructions: [], accounts: [], fee: null }
        : this.ledger.simulate(decoded, { sigVerify, addresses: addresses ?? [] });
      if (simulation.err === 'SignatureFailure' && sigVerify) throw new RpcError(RPC_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
      const keys = this.ledger.accountKeys(decoded.message);
      return {
        err: simulation.err,
        logs: simulation.logs,
        accounts: addresses === undefined || simulation.err !== null ? null : simulation.accounts.map((a) => (a === null ? null : this.accountJson(a, accountsEncoding, undefined))),
        unitsConsumed: simulation.unitsConsumed,
        returnData: SolanaRpc.returnDataJson(simulation.returnData),
        innerInstructions: config.innerInstructions === true && !('error' in keys)
          ? this.innerInstructionsJson(simulation.innerInstructions, keys.keys, accountsEncoding === 'jsonParsed')
          : null,
        replacementBlockhash: replacement === null ? null : { blockhash: replacement.blockhash, lastValidBlockHeight: replacement.lastValidBlockHeight },
        loadedAccountsDataSize: 0,
        fee: simulation.fee,
      };
    });
  }

  private getSignatureStatuses(params: Params): unknown {
    const signatures = params[0];
    if (!Array.isArray(signatures)) throw invalidParams('Invalid params: expected an array of signatures');
    if (signatures.length > MAX_SIGNATURE_STATUSES) throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
    const search = configAt(params, 1).searchTransactionHistory === true;
    return {
      context: { apiVersion: API_VERSION, slot: this.ledger.slotAt('processed') },
      value: signatures.map((signature) => {
        const record = this.ledger.status(String(signature), search);
        if (record === null) return null;
        return {
          slot: record.slot,
          confirmations: this.ledger.confirmations(record),
          err: record.err,
          status: record.err === null ? { Ok: null } : { Err: record.err },
          confirmationStatus: this.ledger.confirmationStatus(record),
        };
      }),
    };
  }

  private getSignaturesForAddress(params: Params): unknown {
    const address = addressOf(params[0]);
    const config = configAt(params, 1);
    const commitment = confirmedCommitmentOf(config);
    this.ledger.assertMinContextSlot(minContextSlotOf(config), commitment);
    const limit = config.limit === undefined ? MAX_SIGNATURES_FOR_ADDRESS : Number(integerOf(config.limit, 'limit'));
    if (limit < 1 || limit > MAX_SIGNATURES_FOR_ADDRESS) throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_FOR_ADDRESS}`);
    const cursor = (key: 'before' | 'until'): string | undefined => (config[key] === undefined ? undefined : stringAt([config[key]], 0, key));
    return this.ledger.signaturesFor(address, { before: cursor('before'), until: cursor('until'), limit, commitment }).map((record) => ({
      signature: record.signature,
      slot: record.slot,
      err: record.err,
      memo: record.memo,
      blockTime: record.blockTime,
      confirmationStatus: this.ledger.confirmationStatus(record),
    }));
  }

  private getTransaction(params: Params): unknown {
    const signature = stringAt(params, 0, 'signature');
    // The second parameter may still be a bare encoding string in old clients.
    const config = typeof params[1] === 'string' ? { encoding: params[1] } : configAt(params, 1);
    const encoding = encodingOf(config, 'json', ['json', 'jsonParsed', 'base58', 'base64']);
    const record = this.ledger.transaction(signature, confirmedCommitmentOf(config));
    if (record === null) return null;
    return { slot: record.slot, blockTime: record.blockTime, ...this.transactionJson(record, encoding, maxVersionOf(config)) };
  }

  /**
   * getBlock: a slot's block up to the commitment's slot (the slot being produced has none yet), with its
   * transactions in full, as their accounts and balances (`accounts`), as signatures, or none.
   */
  private getBlock(params: Params): unknown {
    const slot = Number(integerOf(params[0], 'slot'));
    const config = typeof params[1] === 'string' ? { encoding: params[1] } : configAt(params, 1);
    const commitment = confirmedCommitmentOf(config);
    const encoding = encodingOf(config, 'json', ['json', 'jsonParsed', 'base58', 'base64']);
    const details = config.transactionDetails ?? 'full';
    if (details !== 'full' && details !== 'accounts' && details !== 'signatures' && details !== 'none') throw invalidParams(`Invalid params: unknown transactionDetails ${JSON.stringify(details)}`);
    if (slot < GENESIS_SLOT) throw new RpcError(RPC_SLOT_SKIPPED, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
    const block = this.ledger.block(slot, commitment);
    if (block === null) throw new RpcError(RPC_BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
    const maxVersion = maxVersionOf(config);
    const head = { blockHeight: block.blockHeight, blockTime: block.blockTime, blockhash: block.blockhash, parentSlot: block.parentSlot, previousBlockhash: block.previousBlockhash };
    const rewards = config.rewards === false ? {} : { rewards: [] };
    if (details === 'none') return { ...head, ...rewards };
    if (details === 'signatures') return { ...head, signatures: block.txs.map((r) => r.signature), ...rewards };
    const transactions = block.txs.map((record) => {
      const full = this.transactionJson(record, details === 'accounts' ? 'jsonParsed' : encoding, maxVersion);
      if (details === 'full') return full;
      const { message, signatures } = full.transaction as { message: { accountKeys: unknown[] }; signatures: string[] };
      const { err, status, fee, preBalances, postBalances, preTokenBalances, postTokenBalances } = full.meta;
      return {
        ...('version' in full ? { version: full.version } : {}),
        transaction: { accountKeys: message.accountKeys, signatures },
        meta: { err, fee, postBalances, postTokenBalances, preBalances, preTokenBalances, status },
      };
    });
    return { ...head, transactions, ...rewards };
  }

  /** getBlocks: the slots with a block between two slots (inclusive, at most 500,000 apart), up to the commitment's slot. */
  private getBlocks(params: Params): number[] {
    const start = Number(integerOf(params[0], 'start slot'));
    const hasEnd = typeof params[1] === 'number' || typeof params[1] === 'bigint';
    const config = configAt(params, hasEnd ? 2 : 1);
    const newest = this.ledger.slotAt(confirmedCommitmentOf(config));
    const end = hasEnd ? Number(integerOf(params[1], 'end slot')) : newest;
    if (end - start > MAX_GET_BLOCKS_RANGE) throw invalidParams(`Slot range too large; max ${MAX_GET_BLOCKS_RANGE}`);
    const slots: number[] = [];
    for (let slot = Math.max(start, GENESIS_SLOT); slot <= Math.min(end, newest); slot++) slots.push(slot);
    return slots;
  }

  /** A landed transaction as getTransaction and getBlock (full) print it: its version, the transaction, and meta. */
  private transactionJson(record: TxRecord, encoding: Encoding, maxVersion: number | undefined) {
    const { message, signatures } = this.ledger.decode(record.wire);
    const version = message.version;
    if (version !== 'legacy' && (maxVersion === undefined || version > maxVersion)) {
      throw new RpcError(RPC_UNSUPPORTED_TRANSACTION_VERSION,
        `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`);
    }
    const parsed = encoding === 'jsonParsed';
    const keys = record.accountKeys;
    const lookups = 'addressTableLookups' in message && message.addressTableLookups !== undefined
      ? { addressTableLookups: message.addressTableLookups.map((l) => ({ accountKey: l.lookupTableAddress, writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) }
      : version === 0 ? { addressTableLookups: [] } : {};
    const { header } = message;
    let transaction: unknown;
    if (encoding === 'base64' || encoding === 'base58') {
      transaction = [encoding === 'base64' ? base64(record.wire) : base58(record.wire), encoding];
    } else {
      const instructions = message.instructions.map((ix) => {
        const accounts = ix.accountIndices ?? [];
        const data = ix.data ?? new Uint8Array();
        return parsed
          ? parseInstruction(keys[ix.programAddressIndex]!, accounts.map((i) => keys[i]!), new Uint8Array(data), null, (m) => this.ledger.decimals(m))
          : { programIdIndex: ix.programAddressIndex, accounts, data: base58(new Uint8Array(data)), stackHeight: null };
      });
      const accountKeys = parsed
        ? keys.map((pubkey, i) => ({ pubkey, signer: i < header.numSignerAccounts, writable: isWritable(message, i, record.loadedAddresses.writable.length), source: i < message.staticAccounts.length ? 'transaction' : 'lookupTable' }))
        : message.staticAccounts;
      transaction = {
        signatures,
        message: {
          accountKeys,
          ...(parsed ? {} : {
            header: { numRequiredSignatures: header.numSignerAccounts, numReadonlySignedAccounts: header.numReadonlySignerAccounts, numReadonlyUnsignedAccounts: header.numReadonlyNonSignerAccounts },
          }),
          recentBlockhash: message.lifetimeToken,
          instructions,
          ...lookups,
        },
      };
    }
    const meta = {
      err: record.err,
      status: record.err === null ? { Ok: null } : { Err: record.err },
      fee: record.fee,
      preBalances: record.preBalances,
      postBalances: record.postBalances,
      innerInstructions: this.innerInstructionsJson(record.innerInstructions, keys, parsed),
      logMessages: record.logMessages,
      preTokenBalances: record.preTokenBalances,
      postTokenBalances: record.postTokenBalances,
      rewards: [],
      ...(parsed ? {} : { loadedAddresses: record.loadedAddresses }),
      computeUnitsConsumed: record.computeUnitsConsumed,
      ...(record.returnData === null ? {} : { returnData: SolanaRpc.returnDataJson(record.returnData) }),
    };
    return { ...(maxVersion === undefined ? {} : { version }), transaction, meta };
  }
}

function maxVersionOf(config: Config): number | undefined {
  return config.maxSupportedTransactionVersion === undefined ? undefined : Number(integerOf(config.maxSupportedTransactionVersion, 'maxSupportedTransactionVersion'));
}

// ---- HTTP ----

const BIGINT_MARKER = `__bigint_${randomBytes(6).toString('hex')}__`;
const BIGINT_PATTERN = new RegExp(`"${BIGINT_MARKER}(-?\\d+)"`, 'g');

/** JSON with u64s written as exact integers, as the RPC writes them (kit parses them back into bigints). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${BIGINT_MARKER}${v}` : v)).replace(BIGINT_PATTERN, '$1');
}

export interface JsonRpcRequest { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }
export type MethodHandler = (method: string, params: Params) => unknown;

/** One JSON-RPC 2.0 response: the handler's result, or its RpcError (anything else is logged as an internal error). */
export async function answer(handle: MethodHandler, request: JsonRpcRequest, log: (line: string) => void): Promise<unknown> {
  const id = request.id ?? null;
  try {
    if (request === null || typeof request !== 'object' || request.jsonrpc !== '2.0' || typeof request.method !== 'string') {
      throw new RpcError(RPC_INVALID_REQUEST, 'Invalid request');
    }
    const params = request.params === undefined ? [] : request.params;
    if (!Array.isArray(params)) throw invalidParams('Invalid params: expected an array');
    return { jsonrpc: '2.0', result: await handle(request.method, params), id };
  } catch (err) {
    if (err instanceof RpcError) {
      return { jsonrpc: '2.0', error: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) }, id };
    }
    log(`internal error in ${String(request?.method)}: ${(err as Error).stack ?? String(err)}`);
    return { jsonrpc: '2.0', error: { code: RPC_INTERNAL_ERROR, message: 'Internal error' }, id };
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) throw new Error('request too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function reply(res: ServerResponse, status: number, body: string, contentType = 'application/json'): void {
  res.writeHead(status, { 'content-type': contentType, 'access-control-allow-origin': '*' });
  res.end(body);
}

/** POST / with a JSON-RPC 2.0 request or batch; GET /health as the validator's RPC has it; CORS for browser wallets. */
export function createRpcServer(rpc: SolanaRpc, log: (line: string) => void): Server {
  const handle: MethodHandler = (method, params) => rpc.handle(method, params);
  return createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'POST, GET, OPTIONS', 'access-control-allow-headers': '*' });
      res.end();
      return;
    }
    if (req.method === 'GET' && req.url === '/health') return reply(res, 200, 'ok', 'text/plain');
    if (req.method !== 'POST') return reply(res, 405, toJson({ error: 'use POST with a JSON-RPC request' }));
    void (async () => {
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        return reply(res, 200, toJson({ jsonrpc: '2.0', error: { code: RPC_PARSE_ERROR, message: 'Parse error' }, id: null }));
      }
      if (Array.isArray(body)) {
        if (body.length === 0) return reply(res, 200, toJson({ jsonrpc: '2.0', error: { code: RPC_INVALID_REQUEST, message: 'Invalid request' }, id: null }));
        const out: unknown[] = [];
        // In order, one at a time: the ledger is single-threaded and a batch must see its own earlier effects.
        for (const request of body) out.push(await answer(handle, request as JsonRpcRequest, log));
        return reply(res, 200, toJson(out));
      }
      return reply(res, 200, toJson(await answer(handle, body as JsonRpcRequest, log)));
    })().catch((err: unknown) => {
      log(`request failed: ${String(err)}`);
      if (!res.headersSent) reply(res, 500, toJson({ error: 'internal error' }));
    });
  });
}
