import type { HDNodeVoidWallet, HDNodeWallet } from 'ethers';
import { TronWeb, type Types } from 'tronweb';
import { formatUnits } from '../../domain/money';
import { NATIVE_TOKEN_ADDRESS, isNativeToken } from '../../domain/payment';
import { NATIVE_LOG_INDEX, payinMismatch, type DetectedPayin } from '../../domain/payins';
import {
  PriceUnavailable,
  TxRefused,
  type ChainAction,
  type ChainAdapter,
  type NativeEffects,
  type FeedReading,
  type PayinCheck,
  type PreparedChainTx,
  type SentChainTx,
  type SignedChainTx,
  type TxCheck,
  type TxCost,
  type TxExpiry,
} from '../family';
import { Kept, KEPT_PER_DEPOSIT } from '../kept';
import { RecentReads } from '../recent-reads';
import type { TronChainConfig } from './config';
import { depositAccount, depositAccountXpub, depositAddressFromXpub, depositPrivateKey } from './deposits';

export interface TronKeys {
  /** The deposit account's extended public key (chains/tron/deposits.ts): every process derives deposit addresses from it. */
  depositXpub: HDNodeVoidWallet;
  /** Hex (no 0x): pays payouts and refunds, and the TRX each sweep burns (worker only). */
  treasuryPrivateKey?: string;
  /** BIP-32 seed of the deposit keys, 32 to 64 bytes (worker only): signs sweeps and refunds out of deposits. */
  depositSeed?: Uint8Array;
}
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** A transaction as a block (or `gettransactionbyid`) prints it, addresses in hex. */
interface TronTransaction {
  txID?: string;
  ret?: Array<{ contractRet?: string }>;
  raw_data?: {
    contract: Array<{ type: string; parameter: { value: { owner_address?: string; to_address?: string; amount?: number; asset_name?: string } } }>;
  };
}

interface TronBlock {
  blockID?: string;
  block_header?: { raw_data: { number?: number; timestamp: number } };
  transactions?: TronTransaction[];
}

interface TronTxInfo {
  id?: string;
  fee?: number;
  blockNumber?: number;
  blockTimeStamp?: number;
  result?: string;
  receipt?: { result?: string };
  log?: Array<{ address: string; topics: string[]; data: string }>;
}

/**
 * A TRC-20 transfer out of a deposit: the treasury's TRX top-up of the deposit when it lacks what the call may burn,
 * then the deposit's transfer; `fuelSun` is what the transfer may burn of the deposit's TRX, so what it did not burn
 * can come back (`recovery`).
 */
/** The top-ups a re-signed sweep carries forward from the attempt it replaces (and that attempt's own earlier ones). */
function earlierTopUps(replacing: { rawTx: string } | undefined): string[] {
  if (!replacing) return [];
  const previous = JSON.parse(replacing.rawTx) as Partial<SweepBundle>;
  return [...(previous.earlierTopUps ?? []), ...(previous.topUp ? [previous.topUp.txID] : [])];
}

interface SweepBundle {
  topUp: Types.SignedTransaction | null;
  /** The top-ups of the intent's earlier attempts, which may have landed though their transfer never did (ids). */
  earlierTopUps?: string[];
  transfer: Types.SignedTransaction;
  fuelSun: string;
}

/** Blocks read at once while a scan reads its range. */
const BLOCK_READ_CONCURRENCY = 8;
/** What a transfer out of a deposit is topped up with above the burn estimated now: energy use varies a little. */
const FUEL_MARGIN_PERCENT = 10n;
/** Bytes a TRX transfer takes of its sender's bandwidth (about 270; rounded up). */
const TRX_TRANSFER_BYTES = 300n;
/** Bytes a TRC-20 transfer call takes of its sender's bandwidth (about 345; rounded up). */
const TRC20_CALL_BYTES = 400n;

/** `41` + the 20-byte hex of an ABI-encoded address word. */
const wordToTronHex = (word: string): string => `41${word.slice(24, 64)}`.toLowerCase();
/** A TRC-10 token's id, which names it where a TRC-20 has its contract address. */
const TRC10_ID = /^\d+$/;
const base58 = (hex: string): string => TronWeb.address.fromHex(hex);
const tokenName = (hex: string, configured: ReadonlySet<string>): string => {
  const name = base58(hex);
  return configured.has(name) ? name : hex;
};

/**
 * Every transfer a successful transaction made: its TRX (`TransferContract`) or TRC-10 (`TransferAssetContract`,
 * the token id as its address) transfer, as the transaction's own value (`NATIVE_LOG_INDEX`), and each TRC-20
 * `Transfer` log of any contract (by log index), from its transaction info. A configured TRC-20 is named as the
 * configuration names it (base58); any other by its hex address, which the ledger's lower case keeps readable.
 */
function transfersOf(chainId: number, blockNumber: number, tx: TronTransaction, info: TronTxInfo, configured: ReadonlySet<string>): DetectedPayin[] {
  if (!tx.txID || tx.ret?.[0]?.contractRet !== 'SUCCESS') return [];
  const base = { chainId, txHash: tx.txID, blockNumber };
  const transfers: DetectedPayin[] = [];
  const contract = tx.raw_data?.contract[0];
  const value = contract?.parameter.value;
  if ((contract?.type === 'TransferContract' || contract?.type === 'TransferAssetContract') && value?.owner_address && value.to_address && value.amount) {
    const tokenAddress = contract.type === 'TransferContract' ? NATIVE_TOKEN_ADDRESS : Buffer.from(value.asset_name ?? '', 'hex').toString('utf8');
    transfers.push({ ...base, logIndex: NATIVE_LOG_INDEX, tokenAddress, from: base58(value.owner_address), to: base58(value.to_address), amountUnits: String(value.amount) });
  }
  (info.log ?? []).forEach((log, logIndex) => {
    if (log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3) return;
    transfers.push({
      ...base,
      logIndex,
      tokenAddress: tokenName(`41${log.address.slice(-40)}`.toLowerCase(), configured),
      from: base58(wordToTronHex(log.topics[1]!)),
      to: base58(wordToTronHex(log.topics[2]!)),
      amountUnits: BigInt(`0x${log.data || '0'}`).toString(),
    });
  });
  return transfers;
}

/**
 * Tron through the full-node HTTP API as TronGrid serves it, with tronweb building and signing. Deposit addresses
 * are secp256k1 keys derived per payment (BIP-32 below m/44'/195'/0', public from the account's xpub); payins are read
 * block by block, each block with its transaction infos (TRX, TRC-10 and every TRC-20 `Transfer` log). A deposit
 * holds no TRX, so a transfer out of it is preceded by the treasury sending it what the call burns (read from the
 * chain, with a margin), and what it did not burn goes back to the treasury afterwards.
 */
export class TronAdapter implements ChainAdapter {
  /**
   * Transactions reference a recent block (TaPoS), not a sequence number: each lands on its own. Their fees burn
   * their sender's TRX (or its free bandwidth): the treasury's own for payouts, a deposit's topped-up TRX for
   * transfers out of it, which go one at a time per deposit (the outbox's deposit queue), so top-ups never overlap.
   */
  readonly sequencing = 'none';
  private readonly tronWeb: TronWeb;
  /** The configured TRC-20 contracts (base58): transfers of these are named as configured. */
  private readonly configuredTokens: ReadonlySet<string>;
  private readonly depositSigner: HDNodeWallet | null;
  /**
   * Deposit keys and addresses by payment: each is five BIP-32 child derivations (a secp256k1 multiplication each),
   * and a payment's sweep, its recovery and their checks ask for them again and again.
   */
  private readonly depositKeys = new Kept<string, string>(KEPT_PER_DEPOSIT);
  private readonly depositAddresses = new Kept<string, string>(KEPT_PER_DEPOSIT);
  /** The treasury's address, derived once from its key (a secp256k1 multiplication on every call otherwise). */
  private readonly treasury: string | null;

  /** The head as this process's waits share it: a burst's checks read it once a moment, not once each. */
  private readonly sharedHead = () => this.shared.read(RecentReads.HEAD, () => this.head());

  /** `shared`: the chain's reads shared by this process's callers (from `ChainAdapters`: the head its waits share). */
  constructor(
    readonly config: TronChainConfig,
    private readonly keys: TronKeys,
    private readonly shared = new RecentReads(),
  ) {
    // TronGrid's API key header on every request, when one is configured.
    this.tronWeb = new TronWeb({ fullHost: config.rpcUrl, headers: config.apiKey ? { 'TRON-PRO-API-KEY': config.apiKey } : {} });
    this.configuredTokens = new Set(Object.values(config.tokens).map((t) => t.address));
    if (keys.depositSeed && depositAccountXpub(keys.depositSeed) !== keys.depositXpub.extendedKey) {
      // Addresses the API hands out would be keys this worker cannot sign for.
      throw new Error(`TRON_DEPOSIT_XPUB is not the deposit account of TRON_DEPOSIT_SEED: for this seed it is ${depositAccountXpub(keys.depositSeed)}`);
    }
    this.depositSigner = keys.depositSeed ? depositAccount(keys.depositSeed) : null;
    this.treasury = keys.treasuryPrivateKey ? (TronWeb.address.fromPrivateKey(keys.treasuryPrivateKey) as string) : null;
  }

  private depositKey(paymentId: string): string {
    const signer = this.depositSigner;
    if (!signer) throw new Error(`no deposit seed is configured for chain ${this.config.chainId}`);
    return this.depositKeys.getOrMake(paymentId, () => depositPrivateKey(signer, paymentId));
  }

  depositAddress(paymentId: string): string {
    return this.depositAddresses.getOrMake(paymentId, () => depositAddressFromXpub(this.keys.depositXpub, paymentId));
  }

  private treasuryKey(): string {
    if (!this.keys.treasuryPrivateKey) throw new Error(`no treasury key is configured for chain ${this.config.chainId}`);
    return this.keys.treasuryPrivateKey;
  }

  /** A sweep's top-up never exceeds what its TRC-20 call may burn: the `fee_limit` it is signed with. */
  get maxSweepFuelUnits(): bigint {
    return BigInt(this.config.feeLimitSun);
  }

  treasuryAddress(): string {
    if (!this.treasury) throw new Error(`no treasury key is configured for chain ${this.config.chainId}`);
    return this.treasury;
  }

  private request<T>(path: string, body: Record<string, unknown>): Promise<T> {
    return this.tronWeb.fullNode.request<T>(path, body, 'post');
  }

  async head(): Promise<number> {
    const block = await this.request<TronBlock>('wallet/getnowblock', {});
    return block.block_header?.raw_data.number ?? 0;
  }

  async blockHash(n: number): Promise<string | null> {
    const block = await this.request<TronBlock>('wallet/getblockbynum', { num: n });
    return block.blockID ?? null;
  }

  /** The block header's timestamp (milliseconds on Tron), in seconds. */
  async blockTime(n: number): Promise<number | null> {
    const block = await this.request<TronBlock>('wallet/getblockbynum', { num: n });
    const ms = block.block_header?.raw_data.timestamp;
    return ms === undefined ? null : Math.floor(ms / 1000);
  }

  /**
   * Reads each block of the range whole (`getblockbynum` and `gettransactioninfobyblocknum`, a few blocks at once)
   * and reports every transfer its transactions made (`transfersOf`): TRX, TRC-10 and the TRC-20 of any contract, to
   * anyone. Two calls a block, whatever the number of open payments. The treasury's TRX top-ups of deposits are its
   * own and left out. Transfers made by a contract's internal transactions (`internal_transactions`) are not read.
   */
  async scanPayins(input: { fromBlock: number; toBlock: number; heartbeat: () => void }): Promise<DetectedPayin[]> {
    const treasury = this.keys.treasuryPrivateKey ? this.treasuryAddress() : null;
    const transfers: DetectedPayin[] = [];
    for (let start = input.fromBlock; start <= input.toBlock; start += BLOCK_READ_CONCURRENCY) {
      const numbers = Array.from({ length: Math.min(BLOCK_READ_CONCURRENCY, input.toBlock - start + 1) }, (_, i) => start + i);
      const blocks = await Promise.all(numbers.map((n) => this.blockTransfers(n)));
      input.heartbeat();
      for (const t of blocks.flat()) if (t.from !== treasury) transfers.push(t);
    }
    return transfers;
  }

  private async blockTransfers(num: number): Promise<DetectedPayin[]> {
    const [block, infos] = await Promise.all([
      this.request<TronBlock>('wallet/getblockbynum', { num }),
      this.request<TronTxInfo[] | Record<string, never>>('wallet/gettransactioninfobyblocknum', { num }),
    ]);
    if (block.block_header?.raw_data.number !== num) throw new Error(`block ${num} on chain ${this.config.chainId} is not available`);
    const infoById = new Map((Array.isArray(infos) ? infos : []).map((info) => [info.id, info]));
    return (block.transactions ?? []).flatMap((tx) => transfersOf(this.config.chainId, num, tx, infoById.get(tx.txID) ?? {}, this.configuredTokens));
  }

  private info(txID: string): Promise<TronTxInfo> {
    return this.request<TronTxInfo>('wallet/gettransactioninfobyid', { value: txID });
  }

  /** The transaction and its info, as the node has them now. */
  private transactionWithInfo(txID: string): Promise<[TronTransaction, TronTxInfo]> {
    return Promise.all([this.request<TronTransaction>('wallet/gettransactionbyid', { value: txID }), this.info(txID)]);
  }

  /** Every transfer of the transaction (the scan leaves the treasury's own out; this does not). */
  async transactionTransfers(txHash: string): Promise<DetectedPayin[]> {
    const [tx, info] = await this.transactionWithInfo(txHash);
    return info.blockNumber === undefined ? [] : transfersOf(this.config.chainId, info.blockNumber, tx, info, this.configuredTokens);
  }

  /**
   * Reads the payin's transaction and its info again and takes the transfer at its index from them alone; the claimed
   * one must be exactly it. Blocks never reorganize on Tron once solidified; a transaction the node does not know is missing.
   */
  async checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck> {
    const [tx, info] = await this.transactionWithInfo(payin.txHash);
    if (info.blockNumber === undefined) return { state: 'missing' };
    const onChain = transfersOf(this.config.chainId, info.blockNumber, tx, info, this.configuredTokens).find((t) => t.logIndex === payin.logIndex);
    if (!onChain) return { state: 'dropped', reason: `no successful transfer at index ${payin.logIndex} of the transaction` };
    const mismatch = payinMismatch(payin, onChain);
    if (mismatch) return { state: 'dropped', reason: mismatch };
    if ((await this.sharedHead()) - info.blockNumber + 1 < depth) return { state: 'pending' };
    return { state: 'confirmed', payin: { ...onChain, confirmedAt: new Date(info.blockTimeStamp ?? 0).toISOString() } };
  }

  private async transferCall(token: string, from: string, to: string, amountUnits: string, key: string): Promise<Types.SignedTransaction> {
    const { transaction } = await this.tronWeb.transactionBuilder.triggerSmartContract(
      token,
      'transfer(address,uint256)',
      { feeLimit: this.config.feeLimitSun },
      [
        { type: 'address', value: to },
        { type: 'uint256', value: amountUnits },
      ],
      from,
    );
    return this.tronWeb.trx.sign(transaction, key);
  }

  /** The chain's fee parameters (sun): per energy unit, per bandwidth byte, for a new account, and the devnet's flat call fee. */
  private async chainFees(): Promise<{ energy: bigint; byte: bigint; newAccount: bigint; flatCall: bigint }> {
    const { chainParameter } = await this.request<{ chainParameter: Array<{ key: string; value?: number }> }>('wallet/getchainparameters', {});
    const value = (key: string) => BigInt(chainParameter.find((p) => p.key === key)?.value ?? 0);
    return {
      energy: value('getEnergyFee'),
      byte: value('getTransactionFee'),
      newAccount: value('getCreateAccountFee') + value('getCreateNewAccountFeeInSystemContract'),
      // Only the devnet burns a flat fee per call in place of energy (tools/devnets/tron): 0 on mainnet.
      flatCall: value('getDevnetContractCallFee'),
    };
  }

  /** The account's free bandwidth left today (bytes). */
  private async freeBandwidth(owner: string): Promise<bigint> {
    const net = await this.request<{ freeNetLimit?: number; freeNetUsed?: number }>('wallet/getaccountnet', { address: owner, visible: true });
    return BigInt(Math.max(0, (net.freeNetLimit ?? 0) - (net.freeNetUsed ?? 0)));
  }

  private async trxBalance(owner: string): Promise<bigint> {
    const account = await this.request<{ balance?: number }>('wallet/getaccount', { address: owner, visible: true });
    return BigInt(account.balance ?? 0);
  }

  private async trc10Balance(owner: string, id: string): Promise<bigint> {
    const account = await this.request<{ assetV2?: Array<{ key: string; value: number }> }>('wallet/getaccount', { address: owner, visible: true });
    return BigInt(account.assetV2?.find((a) => a.key === id)?.value ?? 0);
  }

  /**
   * What a TRC-20 `transfer` from `from` burns now (sun): the energy a constant call of it uses at the chain's energy
   * price, and its bytes when the sender's free bandwidth does not cover them.
   */
  private async callBurn(token: string, from: string, to: string, amountUnits: string): Promise<bigint> {
    const [fees, free, call] = await Promise.all([
      this.chainFees(),
      this.freeBandwidth(from),
      this.tronWeb.transactionBuilder.triggerConstantContract(token, 'transfer(address,uint256)', {}, [{ type: 'address', value: to }, { type: 'uint256', value: amountUnits }], from),
    ]);
    const energy = BigInt((call as { energy_used?: number }).energy_used ?? 0);
    return energy * fees.energy + fees.flatCall + (free >= TRC20_CALL_BYTES ? 0n : TRC20_CALL_BYTES * fees.byte);
  }

  /**
   * Payouts are the treasury's TRC-20 transfers. A transfer out of a deposit is the deposit's TRC-20 transfer, with
   * the treasury's top-up of what its call may burn (estimated now, plus a margin, less the TRX the deposit already
   * has) signed before it when the deposit lacks it; both are stored together, and the transfer's id is the intent's.
   * A native sweep (TRX the treasury's top-up left, going back) is the deposit's TRX transfer.
   */
  async prepare(action: ChainAction, replacing?: { rawTx: string }): Promise<PreparedChainTx> {
    const treasury = this.treasuryAddress();
    const key = this.treasuryKey();
    if (action.kind === 'transfer') {
      return {
        signer: treasury,
        to: action.to,
        chainPendingNonce: 0,
        sign: async () => {
          const signed = await this.transferCall(action.tokenAddress, treasury, action.to, action.amountUnits, key);
          return { rawTx: JSON.stringify(signed), txHash: signed.txID, validUntil: String(signed.raw_data.expiration) };
        },
      };
    }
    const depositKey = this.depositKey(action.paymentId);
    const deposit = TronWeb.address.fromPrivateKey(depositKey) as string;
    if (isNativeToken(action.tokenAddress)) {
      return {
        signer: deposit,
        to: action.to,
        chainPendingNonce: 0,
        sign: async () => {
          const signed = await this.tronWeb.trx.sign(await this.tronWeb.transactionBuilder.sendTrx(action.to, Number(action.amountUnits), deposit), depositKey);
          return { rawTx: JSON.stringify(signed), txHash: signed.txID, validUntil: String(signed.raw_data.expiration) };
        },
      };
    }
    const burn = await this.callBurn(action.tokenAddress, deposit, action.to, action.amountUnits);
    const fuel = (burn * (100n + FUEL_MARGIN_PERCENT)) / 100n;
    if (fuel > BigInt(this.config.feeLimitSun)) throw new Error(`chain ${this.config.chainId}: a transfer would burn ${fuel} sun, above its fee_limit of ${this.config.feeLimitSun}`);
    const held = await this.trxBalance(deposit);
    const topUp = fuel > held ? fuel - held : 0n;
    return {
      signer: deposit,
      to: action.to,
      chainPendingNonce: 0,
      ...(topUp > 0n ? { fuel: { to: deposit, amountUnits: topUp.toString() } } : {}),
      sign: async () => {
        const topUpTx = topUp > 0n ? await this.tronWeb.trx.sign(await this.tronWeb.transactionBuilder.sendTrx(deposit, Number(topUp), treasury), key) : null;
        const transfer = await this.transferCall(action.tokenAddress, deposit, action.to, action.amountUnits, depositKey);
        const bundle: SweepBundle = { topUp: topUpTx, transfer, fuelSun: fuel.toString(), earlierTopUps: earlierTopUps(replacing) };
        return { rawTx: JSON.stringify(bundle), txHash: transfer.txID, validUntil: String(transfer.raw_data.expiration) };
      },
    };
  }

  /**
   * The burn of the action's call, the top-up's bytes, and the activation of a deposit account that does not exist
   * yet (on mainnet the sender of its first TRX pays it). What the margin leaves unburnt comes back (`recovery`).
   */
  async estimateCost(action: ChainAction): Promise<TxCost> {
    if (isNativeToken(action.tokenAddress)) return { feeUnits: 0n, feeDecimals: 6 };
    if (action.kind === 'transfer') return { feeUnits: await this.callBurn(action.tokenAddress, this.treasuryAddress(), action.to, action.amountUnits), feeDecimals: 6 };
    const deposit = this.depositAddress(action.paymentId);
    const [burn, fees, account] = await Promise.all([
      this.callBurn(action.tokenAddress, deposit, action.to, action.amountUnits),
      this.chainFees(),
      this.request<{ address?: string }>('wallet/getaccount', { address: deposit, visible: true }),
    ]);
    return { feeUnits: burn + TRX_TRANSFER_BYTES * fees.byte + (account.address ? 0n : fees.newAccount), feeDecimals: 6 };
  }

  /**
   * What a TRC-20 transfer out of a deposit did not burn of the fuel it was signed with (its transaction's `fee`
   * tells), less the bytes of sending it back when the deposit's free bandwidth does not cover them: a TRX sweep of
   * it to the treasury, or null when too little is left.
   */
  async recovery(action: ChainAction & { kind: 'sweep' }, signed: { rawTx: string; txHash: string }): Promise<(ChainAction & { kind: 'sweep' }) | null> {
    if (isNativeToken(action.tokenAddress)) return null;
    const bundle = JSON.parse(signed.rawTx) as SweepBundle;
    const deposit = this.depositAddress(action.paymentId);
    const [info, fees, free, held] = await Promise.all([this.info(signed.txHash), this.chainFees(), this.freeBandwidth(deposit), this.trxBalance(deposit)]);
    const unburnt = BigInt(bundle.fuelSun) - BigInt(info.fee ?? 0);
    const left = (unburnt < held ? unburnt : held) - (free >= TRX_TRANSFER_BYTES ? 0n : TRX_TRANSFER_BYTES * fees.byte);
    return left > 0n ? { kind: 'sweep', paymentId: action.paymentId, tokenAddress: NATIVE_TOKEN_ADDRESS, to: this.treasuryAddress(), amountUnits: left.toString() } : null;
  }

  /** A transaction can no longer land once the head block's time reached its expiration (java-tron's rule). */
  readonly expiry: TxExpiry = {
    canLand: async (tx) => {
      if (tx.validUntil === null) return true;
      const head = await this.request<TronBlock>('wallet/getnowblock', {});
      return (head.block_header?.raw_data.timestamp ?? 0) < Number(tx.validUntil);
    },
  };

  private async send(tx: Types.SignedTransaction): Promise<void> {
    const sent = await this.tronWeb.trx.sendRawTransaction(tx);
    if (sent.result || sent.code === 'DUP_TRANSACTION_ERROR') return;
    // The node already has it in a block: success.
    if ((await this.info(tx.txID)).blockNumber !== undefined) return;
    const message = sent.message ? this.tronWeb.toUtf8(sent.message) : JSON.stringify(sent);
    throw new TxRefused(`chain ${this.config.chainId} refused ${tx.txID}: ${String(sent.code)} ${message}`);
  }

  async broadcast(tx: SignedChainTx): Promise<'sent' | 'known'> {
    if ((await this.info(tx.txHash)).blockNumber !== undefined) return 'known';
    const parsed = JSON.parse(tx.rawTx) as SweepBundle | Types.SignedTransaction;
    if ('transfer' in parsed) {
      if (parsed.topUp) {
        await this.send(parsed.topUp);
        // The transfer spends the top-up: it is sent once the top-up is in a block, by a later broadcast (the wait for
        // the sweep re-broadcasts it at every new block while it is not mined).
        if ((await this.info(parsed.topUp.txID)).blockNumber === undefined) return 'sent';
      }
      await this.send(parsed.transfer);
    } else {
      await this.send(parsed);
    }
    return 'sent';
  }

  /**
   * The first of the ids the node has in a block is looked at (one signed again replaces one that expired). A TRC-20
   * transfer landed for the receiver when it succeeded and its `Transfer` event names the recipient and the amount.
   */
  async checkTx(txHashes: string[], depth: number, sent?: SentChainTx): Promise<TxCheck> {
    for (const txHash of txHashes) {
      const info = await this.info(txHash);
      if (info.blockNumber === undefined) continue;
      if ((await this.sharedHead()) - info.blockNumber + 1 < depth) return { state: 'pending', txHash, blockNumber: info.blockNumber };
      const action = sent?.action;
      // A TRX transfer cannot fail once in a block (the node validated it); a contract call has a receipt result.
      const succeeded = action && isNativeToken(action.tokenAddress) ? info.result !== 'FAILED' : info.receipt?.result === 'SUCCESS' && (!action || this.transferLogged(info, action));
      return { state: 'mined', txHash, blockNumber: info.blockNumber, succeeded, confirmedAt: new Date(info.blockTimeStamp ?? 0).toISOString() };
    }
    return { state: 'unmined' };
  }

  /** The transaction's logs carry the token's `Transfer` of the amount to the recipient. */
  private transferLogged(info: TronTxInfo, action: ChainAction): boolean {
    const token = TronWeb.address.toHex(action.tokenAddress).toLowerCase().slice(2);
    const to = TronWeb.address.toHex(action.to).toLowerCase();
    return (info.log ?? []).some((log) => log.address.toLowerCase().slice(-40) === token && log.topics[0] === TRANSFER_TOPIC && wordToTronHex(log.topics[2] ?? '') === to && BigInt(`0x${log.data}`) === BigInt(action.amountUnits));
  }

  /**
   * From the transactions' infos: each payer (the contract's owner) burnt the info's `fee` (energy, bandwidth, a new
   * account's activation), and the TRX transfers moved their amounts. A transfer out of a deposit is read with the
   * treasury's top-up signed with it (the stored bundle's `topUp`), when that is in a block.
   */
  async nativeEffects(tx: { txHash: string; rawTx: string }): Promise<NativeEffects> {
    const stored = JSON.parse(tx.rawTx) as SweepBundle | Types.SignedTransaction;
    const ids = ['transfer' in stored ? [...(stored.earlierTopUps ?? []), ...(stored.topUp ? [stored.topUp.txID] : [])] : [], [tx.txHash]].flat();
    const effects: NativeEffects = { fees: [], changes: [] };
    for (const id of ids) {
      const [read, info] = await Promise.all([this.request<TronTransaction>('wallet/gettransactionbyid', { value: id }), this.info(id)]);
      if (info.blockNumber === undefined) continue;
      const owner = read.raw_data?.contract[0]?.parameter.value.owner_address;
      if (owner && info.fee) effects.fees.push({ address: base58(owner), units: BigInt(info.fee) });
      for (const t of transfersOf(this.config.chainId, info.blockNumber, read, info, this.configuredTokens).filter((t) => isNativeToken(t.tokenAddress))) {
        effects.changes.push({ address: t.from, deltaUnits: -BigInt(t.amountUnits) }, { address: t.to, deltaUnits: BigInt(t.amountUnits) });
      }
    }
    return effects;
  }

  async balanceOf(owner: string, tokenAddress: string): Promise<bigint> {
    if (isNativeToken(tokenAddress)) return this.trxBalance(owner);
    if (TRC10_ID.test(tokenAddress)) return this.trc10Balance(owner, tokenAddress);
    const read = await this.tronWeb.transactionBuilder.triggerConstantContract(tokenAddress, 'balanceOf(address)', {}, [{ type: 'address', value: owner }], owner);
    const word = (read.constant_result as string[] | undefined)?.[0];
    return word ? BigInt(`0x${word}`) : 0n;
  }

  readUsdPriceFeed(feed: string): Promise<FeedReading> {
    return Promise.reject(new PriceUnavailable(`chain ${this.config.chainId} has no price feed ${feed}: Tron coins are not priced here`));
  }

  readonly explorer = {
    tx: (txHash: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/#/transaction/${txHash}` : null),
    address: (address: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/#/address/${address}` : null),
  };

  /**
   * Tron has no payment-URI standard that wallets agree on; `tron:<address>?amount=<decimal>&token=<contract>` is what
   * TronLink and most Tron wallets scan (an address alone where they do not read parameters).
   */
  paymentUri(input: { address: string; tokenAddress: string | null; amountUnits: string; decimals: number }): string {
    const params = new URLSearchParams({ amount: formatUnits(BigInt(input.amountUnits), input.decimals) });
    if (input.tokenAddress) params.set('token', input.tokenAddress);
    return `tron:${input.address}?${params.toString()}`;
  }

  destroy(): void {
    // tronweb holds no connection between requests; the keys derived go with the adapter.
    this.depositKeys.clear();
  }
}
