import { Account, Asset, Horizon, Keypair, NotFoundError, Operation, StrKey, TimeoutInfinite, TransactionBuilder } from '@stellar/stellar-sdk';
import { formatUnits, parseUnits } from '../../domain/money';
import type { DetectedPayin } from '../../domain/payins';
import { PriceUnavailable, type ChainAction, type ChainAdapter, type FeedReading, type PayinCheck, type PaymentDestination, type PreparedChainTx, type SignedChainTx, type TxCheck, type WatchedDeposits } from '../family';
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

/** A payment record of Horizon's `/accounts/:id/payments` with `join=transactions`. */
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
  transaction_attr?: { memo_type: string; memo?: string };
}

/** Ledger of a paging token (TOID: ledger in the high 32 bits). */
const ledgerOf = (pagingToken: string): number => Number(BigInt(pagingToken) >> 32n);

/**
 * Stellar through Horizon (@stellar/stellar-sdk). Every payment is paid into one receiving account (with the USDC
 * trustline) with its own MEMO_ID, as exchanges take deposits: the payment's deposit address is the muxed account
 * (M…, SEP-23) of the receiving account and that id, so it is unique like every family's and a wallet that knows
 * muxed accounts may pay it directly. A payment into the receiving account with no memo, or one no watched payment
 * has, is reported with the receiving account as its recipient: the watcher holds it for the operator.
 */
export class StellarAdapter implements ChainAdapter {
  /** Each account's transactions carry consecutive sequence numbers: earlier unmined ones must land first. */
  readonly orderedNonces = true;
  readonly sharedReceiver: string;
  readonly server: Horizon.Server;

  constructor(
    readonly config: StellarChainConfig,
    private readonly keys: StellarKeys = {},
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
    const id = Buffer.alloc(8);
    id.writeBigUInt64BE(this.memoId(paymentId));
    return StrKey.encodeMed25519PublicKey(Buffer.concat([StrKey.decodeEd25519PublicKey(this.config.receivingAccount), id]));
  }

  paymentDestination(depositAddress: string): PaymentDestination {
    const raw = StrKey.decodeMed25519PublicKey(depositAddress);
    return { address: StrKey.encodeEd25519PublicKey(raw.subarray(0, 32)), memo: raw.readBigUInt64BE(32).toString() };
  }

  private keypair(secret: string | undefined, role: string): Keypair {
    if (!secret) throw new Error(`no ${role} key is configured for chain ${this.config.chainId}`);
    return Keypair.fromSecret(secret);
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
    const [code, issuer] = tokenAddress.split(':');
    return new Asset(code!, issuer);
  }

  /**
   * Pages the receiving account's payments of the ledger range (Horizon cursor paging, `join=transactions` for the
   * memo): the cost grows with the payments received, never with the number of open payments.
   */
  async scanPayins(input: { fromBlock: number; toBlock: number; watched: WatchedDeposits; heartbeat: () => void }): Promise<DetectedPayin[]> {
    const byMemo = new Map((await input.watched.all()).map((d) => [this.paymentDestination(d.address).memo!, d.address]));
    const tokens = new Set(Object.values(this.config.tokens).map((t) => t.address));
    const payins: DetectedPayin[] = [];
    // Paging tokens are TOIDs: everything of ledger `fromBlock` and later comes after (fromBlock << 32) - 1.
    let cursor = input.fromBlock > 0 ? ((BigInt(input.fromBlock) << 32n) - 1n).toString() : '0';
    for (;;) {
      const page = await this.server.payments().forAccount(this.config.receivingAccount).join('transactions').cursor(cursor).order('asc').limit(this.config.pageSize).call();
      input.heartbeat();
      const records = page.records as unknown as PaymentRecord[];
      for (const record of records) {
        if (ledgerOf(record.paging_token) > input.toBlock) return payins;
        const payin = this.payinOf(record, tokens, byMemo);
        if (payin) payins.push(payin);
      }
      if (records.length < this.config.pageSize) return payins;
      cursor = records[records.length - 1]!.paging_token;
    }
  }

  private payinOf(record: PaymentRecord, tokens: Set<string>, byMemo: Map<string, string>): DetectedPayin | null {
    if (record.type !== 'payment' || !record.transaction_successful || record.to !== this.config.receivingAccount) return null;
    const tokenAddress = `${record.asset_code}:${record.asset_issuer}`;
    if (!tokens.has(tokenAddress) || !record.from || !record.amount) return null;
    // A muxed destination carries the id itself; otherwise the memo (MEMO_ID, or a text memo of the same digits).
    const memo = record.to_muxed_id ?? (record.transaction_attr?.memo_type === 'id' || record.transaction_attr?.memo_type === 'text' ? record.transaction_attr.memo : undefined);
    return {
      chainId: this.config.chainId,
      txHash: record.transaction_hash,
      logIndex: Number(BigInt(record.id) & OPERATION_INDEX_MASK),
      blockNumber: ledgerOf(record.paging_token),
      tokenAddress,
      from: record.from,
      to: (memo !== undefined && byMemo.get(memo.trim())) || this.config.receivingAccount,
      amountUnits: parseUnits(record.amount, DECIMALS).toString(),
    };
  }

  private async transaction(hash: string): Promise<Horizon.ServerApi.TransactionRecord | null> {
    try {
      return await this.server.transactions().transaction(hash).call();
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  async checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck> {
    const tx = await this.transaction(payin.txHash);
    if (!tx) return { state: 'missing' };
    if (!tx.successful) return { state: 'dropped' };
    if ((await this.head()) - tx.ledger_attr + 1 < depth) return { state: 'pending' };
    return { state: 'confirmed', payin: { ...payin, blockNumber: tx.ledger_attr, confirmedAt: new Date(tx.created_at).toISOString() } };
  }

  /**
   * Sweeps are payments out of the receiving account (signed with its key), payouts and refunds out of the
   * treasury. Sequence numbers are the outbox's nonces: an account's sequence is its creation ledger in the high 32
   * bits and a count in the low ones, so the outbox counts the low part (it fits a JavaScript number) and the
   * signature adds the high part back. No time bounds: stored bytes stay valid until they land.
   */
  async prepare(action: ChainAction): Promise<PreparedChainTx> {
    const signer = action.kind === 'sweep' ? this.keypair(this.keys.receivingSecret, 'receiving account') : this.keypair(this.keys.treasurySecret, 'treasury');
    const account = await this.server.loadAccount(signer.publicKey());
    const sequence = BigInt(account.sequenceNumber());
    const high = (sequence >> 32n) << 32n;
    const fee = String(await this.server.fetchBaseFee());
    return {
      signer: signer.publicKey(),
      to: action.to,
      chainPendingNonce: Number(sequence - high + 1n),
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

  async broadcast(tx: SignedChainTx): Promise<'sent' | 'known'> {
    if (await this.transaction(tx.txHash)) return 'known';
    try {
      await this.server.submitTransaction(TransactionBuilder.fromXDR(tx.rawTx, this.config.networkPassphrase));
      return 'sent';
    } catch (err) {
      if (await this.transaction(tx.txHash)) return 'known';
      const codes = (err as { response?: { data?: { extras?: { result_codes?: unknown } } } }).response?.data?.extras?.result_codes;
      throw new Error(`chain ${this.config.chainId} refused ${tx.txHash}: ${codes ? JSON.stringify(codes) : String(err)}`);
    }
  }

  /** Stellar transactions are signed once (no replacement): the first of the hashes Horizon has is looked at. */
  async checkTx(txHashes: string[], depth: number): Promise<TxCheck> {
    for (const txHash of txHashes) {
      const tx = await this.transaction(txHash);
      if (!tx) continue;
      if ((await this.head()) - tx.ledger_attr + 1 < depth) return { state: 'pending', txHash, blockNumber: tx.ledger_attr };
      return { state: 'mined', txHash, blockNumber: tx.ledger_attr, succeeded: tx.successful, confirmedAt: new Date(tx.created_at).toISOString() };
    }
    return { state: 'unmined' };
  }

  async balanceOf(owner: string, tokenAddress: string): Promise<bigint> {
    const asset = this.asset(tokenAddress);
    try {
      const account = await this.server.loadAccount(owner);
      const line = account.balances.find((b) => 'asset_code' in b && b.asset_code === asset.getCode() && 'asset_issuer' in b && b.asset_issuer === asset.getIssuer());
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
