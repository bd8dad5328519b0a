import { Account, Asset, Horizon, Keypair, NotFoundError, Operation, StrKey, TimeoutInfinite, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { formatUnits, parseUnits } from '../../domain/money';
import { NATIVE_TOKEN_ADDRESS, isNativeToken } from '../../domain/payment';
import { payinMismatch, type DetectedPayin } from '../../domain/payins';
import {
  PriceUnavailable,
  TxRefused,
  type ChainAction,
  type ChainAdapter,
  type FeedReading,
  type NativeEffects,
  type PayinCheck,
  type PaymentDestination,
  type PreparedChainTx,
  type SentChainTx,
  type SignedChainTx,
  type TxCheck,
  type TxCost,
  type TxExpiry,
} from '../family';
import { RecentReads } from '../recent-reads';
import type { StellarChainConfig } from './config';

export interface StellarKeys {
  /** The receiving account's secret (S…): signs sweeps out of it. The API never needs it. */
  receivingSecret?: string;
  /** The treasury's secret (S…): payouts and refunds. */
  treasurySecret?: string;
}

const DECIMALS = 7;
/** The low 12 bits of an operation id (TOID) are its 1-based index in its transaction. */
const OPERATION_INDEX_MASK = 0xfffn;

/** The operations Horizon lists as payments that credit their destination with an amount of an asset. */
const CREDITING = new Set(['payment', 'path_payment_strict_send', 'path_payment_strict_receive']);
const MAX_MEMO_ID = (1n << 64n) - 1n;

/** A transaction's memo, as Horizon renders it. */
interface MemoFields {
  memo_type: string;
  memo?: string;
}

/** A payment record of Horizon's payments lists (`join=transactions` embeds the transaction); path payments give the destination's asset and amount. */
interface PaymentRecord {
  id: string;
  paging_token: string;
  type: string;
  transaction_hash: string;
  transaction_successful: boolean;
  from?: string;
  to?: string;
  to_muxed_id?: string;
  asset_type?: string;
  asset_code?: string;
  asset_issuer?: string;
  amount?: string;
  /** The joined transaction (the SDK keeps `transaction` for the link and puts the embedded record here). */
  transaction_attr?: MemoFields;
}

/** Ledger of a paging token (TOID: ledger in the high 32 bits). */
const ledgerOf = (pagingToken: string): number => Number(BigInt(pagingToken) >> 32n);

/**
 * Stellar through Horizon (@stellar/stellar-sdk). Every payment is paid into one receiving account (with the USDC
 * trustline) with its own MEMO_ID, as exchanges take deposits: the payment's deposit address is the muxed account
 * (M…, SEP-23) of the receiving account and that id, so it is unique like every family's and a wallet that knows
 * muxed accounts may pay it directly. A payment into the receiving account is reported under the deposit its memo
 * names, or the receiving account itself without one; the watcher holds one that names no watched payment.
 */
export class StellarAdapter implements ChainAdapter {
  /**
   * Each account's transactions carry its next sequence number, and stellar-core takes one transaction of an
   * account at a time: each is prepared once the one before has landed (tx_bad_seq otherwise).
   */
  readonly sequencing = 'sequence';
  readonly sharedReceiver: string;
  readonly server: Horizon.Server;
  /** The treasury's and the receiving account's keypairs, each derived once (an ed25519 key derivation per use otherwise). */
  private readonly keypairs = new Map<string, Keypair>();

  /** The head as this process's waits share it: a burst's checks read it once a moment, not once each. */
  private readonly sharedHead = () => this.shared.read(RecentReads.HEAD, () => this.head());

  /** `shared`: the chain's reads shared by this process's callers (from `ChainAdapters`: the head its waits share). */
  constructor(
    readonly config: StellarChainConfig,
    private readonly keys: StellarKeys = {},
    private readonly shared = new RecentReads(),
  ) {
    this.server = new Horizon.Server(config.rpcUrl, { allowHttp: config.rpcUrl.startsWith('http://') });
    this.sharedReceiver = config.receivingAccount;
  }

  /** The payment's memo id: the first 64 bits of its UUID. */
  private memoId(paymentId: string): bigint {
    const hex = paymentId.replace(/-/g, '');
    if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`payment id ${paymentId} is not a UUID`);
    return BigInt(`0x${hex.slice(0, 16)}`);
  }

  depositAddress(paymentId: string): string {
    return this.receiverOf(this.memoId(paymentId).toString());
  }

  paymentDestination(depositAddress: string): PaymentDestination {
    const raw = StrKey.decodeMed25519PublicKey(depositAddress);
    return { address: StrKey.encodeEd25519PublicKey(raw.subarray(0, 32)), memo: raw.readBigUInt64BE(32).toString() };
  }

  private keypair(secret: string | undefined, role: string): Keypair {
    if (!secret) throw new Error(`no ${role} key is configured for chain ${this.config.chainId}`);
    let keypair = this.keypairs.get(secret);
    if (!keypair) {
      keypair = Keypair.fromSecret(secret);
      this.keypairs.set(secret, keypair);
    }
    return keypair;
  }

  treasuryAddress(): string {
    return this.keypair(this.keys.treasurySecret, 'treasury').publicKey();
  }

  async head(): Promise<number> {
    const page = await this.server.ledgers().order('desc').limit(1).call();
    return page.records[0]?.sequence ?? 0;
  }

  /** Closed ledgers are final on Stellar: a ledger number stands for itself as the cursor's hash. */
  blockHash(n: number): Promise<string | null> {
    return Promise.resolve(`ledger:${n}`);
  }

  /** When ledger `n` closed (Horizon's `closed_at`); null when Horizon does not have it. */
  async blockTime(n: number): Promise<number | null> {
    const ledger = (await this.server.ledgers().ledger(n).call().catch(() => null)) as unknown as { closed_at?: string } | null;
    return ledger?.closed_at ? Math.floor(Date.parse(ledger.closed_at) / 1000) : null;
  }

  private asset(tokenAddress: string): Asset {
    if (isNativeToken(tokenAddress)) return Asset.native();
    const [code, issuer] = tokenAddress.split(':');
    return new Asset(code!, issuer);
  }

  /** The deposit address a memo id names (the receiving account's muxed address with it), or the account itself. */
  private receiverOf(memoId: string | undefined): string {
    const id = memoId?.trim();
    if (id === undefined || !/^\d{1,20}$/.test(id) || BigInt(id) > MAX_MEMO_ID) return this.config.receivingAccount;
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64BE(BigInt(id));
    return StrKey.encodeMed25519PublicKey(Buffer.concat([StrKey.decodeEd25519PublicKey(this.config.receivingAccount), bytes]));
  }

  /**
   * Pages the receiving account's payments of the ledger range (Horizon cursor paging, `join=transactions` for the
   * memo) and reports each that credits it: any asset, by payment or path payment (`transferOf`). The cost grows with
   * the payments received, never with the number of open payments; every payment since the cursor is read.
   */
  async scanPayins(input: { fromBlock: number; toBlock: number; heartbeat: () => void }): Promise<DetectedPayin[]> {
    const treasury = this.keys.treasurySecret ? this.treasuryAddress() : null;
    const transfers: DetectedPayin[] = [];
    // Paging tokens are TOIDs: everything of ledger `fromBlock` and later comes after (fromBlock << 32) - 1.
    let cursor = input.fromBlock > 0 ? ((BigInt(input.fromBlock) << 32n) - 1n).toString() : '0';
    for (;;) {
      const page = await this.server.payments().forAccount(this.config.receivingAccount).join('transactions').cursor(cursor).order('asc').limit(this.config.pageSize).call();
      input.heartbeat();
      const records = page.records as unknown as PaymentRecord[];
      for (const record of records) {
        if (ledgerOf(record.paging_token) > input.toBlock) return transfers;
        const transfer = this.transferOf(record, record.transaction_attr);
        // The treasury's lumens for the receiving account's fees are the service's own.
        if (transfer && transfer.from !== treasury) transfers.push(transfer);
      }
      if (records.length < this.config.pageSize) return transfers;
      cursor = records[records.length - 1]!.paging_token;
    }
  }

  /**
   * The transfer a successful payment or path payment made into the receiving account: the asset and amount it
   * delivered, its sender, and the deposit its muxed destination or its transaction's memo (MEMO_ID, or a text memo of
   * the same digits) names; identified by (transaction, operation index).
   */
  private transferOf(record: PaymentRecord, memo: MemoFields | undefined): DetectedPayin | null {
    const transfer = this.paymentOf(record);
    if (!transfer || record.to !== this.config.receivingAccount) return null;
    const memoId = record.to_muxed_id ?? (memo?.memo_type === 'id' || memo?.memo_type === 'text' ? memo.memo : undefined);
    return { ...transfer, to: this.receiverOf(memoId) };
  }

  /** A successful payment or path payment as it moved the asset: its sender, its receiving account, what it delivered. */
  private paymentOf(record: PaymentRecord): DetectedPayin | null {
    if (!CREDITING.has(record.type) || !record.transaction_successful || !record.to || !record.from || !record.amount) return null;
    return {
      chainId: this.config.chainId,
      txHash: record.transaction_hash,
      logIndex: Number(BigInt(record.id) & OPERATION_INDEX_MASK),
      blockNumber: ledgerOf(record.paging_token),
      tokenAddress: record.asset_type === 'native' ? NATIVE_TOKEN_ADDRESS : `${record.asset_code}:${record.asset_issuer}`,
      from: record.from,
      to: record.to,
      amountUnits: parseUnits(record.amount, DECIMALS).toString(),
    };
  }

  /** Every payment of the transaction, to or from any account (the scan reads the receiving account's only). */
  async transactionTransfers(txHash: string): Promise<DetectedPayin[]> {
    if (!(await this.transaction(txHash))) return [];
    const page = await this.server.payments().forTransaction(txHash).limit(200).call();
    return (page.records as unknown as PaymentRecord[]).flatMap((record) => this.paymentOf(record) ?? []);
  }

  private async transaction(hash: string): Promise<Horizon.ServerApi.TransactionRecord | null> {
    try {
      return await this.server.transactions().transaction(hash).call();
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  /**
   * Reads the payin's transaction (its memo) and payments again from Horizon and takes the transfer at its operation
   * index from them alone; the claimed one must be exactly it.
   */
  async checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck> {
    const tx = await this.transaction(payin.txHash);
    if (!tx) return { state: 'missing' };
    if (!tx.successful) return { state: 'dropped', reason: 'the transaction failed' };
    const page = await this.server.payments().forTransaction(payin.txHash).limit(200).call();
    const onChain = (page.records as unknown as PaymentRecord[])
      .map((record) => this.transferOf(record, tx as unknown as MemoFields))
      .find((t) => t?.logIndex === payin.logIndex);
    if (!onChain) return { state: 'dropped', reason: `no payment into the receiving account at operation ${payin.logIndex}` };
    const mismatch = payinMismatch(payin, onChain);
    if (mismatch) return { state: 'dropped', reason: mismatch };
    if ((await this.sharedHead()) - tx.ledger_attr + 1 < depth) return { state: 'pending' };
    return { state: 'confirmed', payin: { ...onChain, confirmedAt: new Date(tx.created_at).toISOString() } };
  }

  /** Sweeps and refunds are paid out of the receiving account (signed with its key), payouts out of the treasury. */
  private signerOf(action: ChainAction): Keypair {
    return action.kind === 'sweep' ? this.keypair(this.keys.receivingSecret, 'receiving account') : this.keypair(this.keys.treasurySecret, 'treasury');
  }

  /** The account whose sequence the action's transaction takes. */
  sequenceAccount(action: ChainAction): string {
    return this.signerOf(action).publicKey();
  }

  /** The account's sequence number as its creation ledger (high 32 bits) and a count (low bits). */
  private async sequenceOf(account: string): Promise<{ high: bigint; count: number }> {
    const sequence = BigInt((await this.server.loadAccount(account)).sequenceNumber());
    const high = (sequence >> 32n) << 32n;
    return { high, count: Number(sequence - high) };
  }

  /**
   * Sequence numbers are the outbox's nonces: an account's sequence is its creation ledger in the high 32 bits and a
   * count in the low ones, so the outbox counts the low part (it fits a JavaScript number) and the signature adds the
   * high part back. No time bounds: stored bytes stay valid until they land or their sequence number is used.
   */
  async prepare(action: ChainAction): Promise<PreparedChainTx> {
    const signer = this.signerOf(action);
    const { high, count } = await this.sequenceOf(signer.publicKey());
    const fee = String(await this.server.fetchBaseFee());
    return {
      signer: signer.publicKey(),
      to: action.to,
      chainPendingNonce: count + 1,
      sign: (nonce: number): Promise<SignedChainTx> => {
        // The builder uses the account's sequence + 1.
        const source = new Account(signer.publicKey(), (high + BigInt(nonce) - 1n).toString());
        const tx = new TransactionBuilder(source, { fee, networkPassphrase: this.config.networkPassphrase })
          .addOperation(Operation.payment({ destination: action.to, asset: this.asset(action.tokenAddress), amount: formatUnits(BigInt(action.amountUnits), DECIMALS) }))
          .setTimeout(TimeoutInfinite)
          .build();
        tx.sign(signer);
        return Promise.resolve({ rawTx: tx.toXDR(), txHash: tx.hash().toString('hex') });
      },
    };
  }

  /** One payment operation at the network's base fee (stroops). */
  async estimateCost(): Promise<TxCost> {
    return { feeUnits: BigInt(await this.server.fetchBaseFee()), feeDecimals: DECIMALS };
  }

  /** A transaction can no longer land once its account's sequence reached its own (it landed, or another took it). */
  readonly expiry: TxExpiry = {
    canLand: async (tx) => (await this.sequenceOf(tx.signer)).count < tx.nonce,
  };

  async broadcast(tx: SignedChainTx): Promise<'sent' | 'known'> {
    if (await this.transaction(tx.txHash)) return 'known';
    try {
      await this.server.submitTransaction(TransactionBuilder.fromXDR(tx.rawTx, this.config.networkPassphrase));
      return 'sent';
    } catch (err) {
      if (await this.transaction(tx.txHash)) return 'known';
      const codes = (err as { response?: { data?: { extras?: { result_codes?: unknown } } } }).response?.data?.extras?.result_codes;
      // Result codes: stellar-core refused the transaction (sequence, fee, balance); anything else is the transport's.
      if (codes) throw new TxRefused(`chain ${this.config.chainId} refused ${tx.txHash}: ${JSON.stringify(codes)}`, { cause: err });
      throw err;
    }
  }

  /**
   * Stellar transactions are signed once per sequence number: the first of the hashes Horizon has is looked at. It
   * landed for the receiver when it succeeded and its payment operation's result is a success.
   */
  async checkTx(txHashes: string[], depth: number, sent?: SentChainTx): Promise<TxCheck> {
    for (const txHash of txHashes) {
      const tx = await this.transaction(txHash);
      if (!tx) continue;
      if ((await this.sharedHead()) - tx.ledger_attr + 1 < depth) return { state: 'pending', txHash, blockNumber: tx.ledger_attr };
      const succeeded = tx.successful && (!sent?.action || paymentSucceeded(tx.result_xdr));
      return { state: 'mined', txHash, blockNumber: tx.ledger_attr, succeeded, confirmedAt: new Date(tx.created_at).toISOString() };
    }
    return { state: 'unmined' };
  }

  /**
   * From Horizon: the fee account (the source, or a fee bump's payer) paid `fee_charged`; a successful transaction's
   * lumen payments and account creations moved their amounts.
   */
  async nativeEffects(tx: { txHash: string }): Promise<NativeEffects> {
    const read = await this.transaction(tx.txHash);
    if (!read) throw new Error(`chain ${this.config.chainId}: transaction ${tx.txHash} is not in a ledger`);
    const effects: NativeEffects = { fees: [{ address: read.fee_account || read.source_account, units: BigInt(read.fee_charged) }], changes: [] };
    if (!read.successful) return effects;
    const operations = await this.server.operations().forTransaction(tx.txHash).limit(200).call();
    for (const op of operations.records) {
      const moved =
        op.type === Horizon.HorizonApi.OperationResponseType.payment && op.asset_type === 'native'
          ? { from: op.from, to: op.to, units: parseUnits(op.amount, DECIMALS) }
          : op.type === Horizon.HorizonApi.OperationResponseType.createAccount
            ? { from: op.funder, to: op.account, units: parseUnits(op.starting_balance, DECIMALS) }
            : null;
      if (moved) effects.changes.push({ address: moved.from, deltaUnits: -moved.units }, { address: moved.to, deltaUnits: moved.units });
    }
    return effects;
  }

  async balanceOf(owner: string, tokenAddress: string): Promise<bigint> {
    // Read as the ledger keeps assets too (lowercased: an unconfigured asset is known by no other spelling): the issuer
    // is a StrKey, of one case; the code is compared without case.
    const [code = '', issuer = ''] = isNativeToken(tokenAddress) ? [] : tokenAddress.split(':');
    try {
      const account = await this.server.loadAccount(owner);
      const line = isNativeToken(tokenAddress)
        ? account.balances.find((b) => b.asset_type === 'native')
        : account.balances.find((b) => 'asset_code' in b && b.asset_code.toLowerCase() === code.toLowerCase() && 'asset_issuer' in b && b.asset_issuer === issuer.toUpperCase());
      return line ? parseUnits(line.balance, DECIMALS) : 0n;
    } catch (err) {
      if (err instanceof NotFoundError) return 0n;
      throw err;
    }
  }

  readUsdPriceFeed(feed: string): Promise<FeedReading> {
    return Promise.reject(new PriceUnavailable(`chain ${this.config.chainId} has no price feed ${feed}: Stellar assets are not priced here`));
  }

  readonly explorer = {
    tx: (txHash: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/tx/${txHash}` : null),
    address: (address: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/account/${address}` : null),
  };

  /** A SEP-0007 pay request to the receiving account with the payment's MEMO_ID. */
  paymentUri(input: { address: string; tokenAddress: string | null; amountUnits: string; decimals: number }): string {
    const destination = this.paymentDestination(input.address);
    const params = new URLSearchParams({ destination: destination.address, amount: formatUnits(BigInt(input.amountUnits), input.decimals) });
    if (input.tokenAddress) {
      const asset = this.asset(input.tokenAddress);
      params.set('asset_code', asset.getCode());
      params.set('asset_issuer', asset.getIssuer());
    }
    params.set('memo', destination.memo!);
    params.set('memo_type', 'MEMO_ID');
    params.set('network_passphrase', this.config.networkPassphrase);
    return `web+stellar:pay?${params.toString()}`;
  }

  destroy(): void {
    // Horizon.Server holds no connection between requests.
  }
}

/** The transaction's result says its (one) payment operation paid. */
function paymentSucceeded(resultXdr: string): boolean {
  const results = xdr.TransactionResult.fromXDR(resultXdr, 'base64').result().results();
  return results.length > 0 && results.every((op) => op.switch().name === 'opInner' && op.tr().switch().name === 'payment' && op.tr().paymentResult().switch().name === 'paymentSuccess');
}
