import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createTransactionMessage,
  compileTransactionMessage,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageEncoder,
  getSignatureFromTransaction,
  isSolanaError,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  type Address,
  type Base64EncodedWireTransaction,
  type TransactionMessageBytesBase64,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import { estimateComputeUnitLimitFactory, getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  findAssociatedTokenPda,
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_2022_PROGRAM_ADDRESS,
} from '@solana-program/token-2022';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { formatUnits } from '../../domain/money';
import { isNativeToken } from '../../domain/payment';
import { payinMismatch, type DetectedPayin } from '../../domain/payins';
import {
  PriceUnavailable,
  TxRefused,
  TxWouldRevert,
  type ChainAction,
  type ChainAdapter,
  type FeedReading,
  type NativeEffects,
  type PayinCheck,
  type PreparedChainTx,
  type SentChainTx,
  type SignedChainTx,
  type TxCheck,
  type TxCost,
  type TxExpiry,
  type WalletRequest,
} from '../family';
import { Kept, KEPT_PER_DEPOSIT } from '../kept';
import { RecentReads } from '../recent-reads';
import type { TokenConfig } from '../registry';
import type { SolanaChainConfig } from './config';
import { depositPath, derivePrivateKey, publicAddress } from './derivation';
import { transfersOf, type TransactionBalances } from './payins';

export interface SolanaKeys {
  /** 64-byte secret key (seed then public key, as solana-keygen writes it): pays every fee and rent, holds liquidity. */
  treasurySecretKey?: Uint8Array;
  /** SLIP-0010 seed of the deposit keys (chains/solana/derivation.ts, worker only): pool addresses and their signatures. */
  depositSeed?: Uint8Array;
}

/** Blocks read at once while a scan reads its range. */
const BLOCK_READ_CONCURRENCY = 8;
/** SPL token account layout: mint (32), owner (32), amount (u64 little-endian). */
const AMOUNT_OFFSET = 64;
/** Compute units added to the simulated figure: execution may take a little more than the simulation did. */
const COMPUTE_UNIT_MARGIN = 1.1;
/** Data length of an associated token account (classic SPL Token; Token-2022's grows with extensions). */
const TOKEN_ACCOUNT_SIZE = 165n;
/**
 * Builds of a deposit transfer that closes its token account: a payin landing between the balance read and the
 * simulation fails the close, and the transfer is built again on the balance as it is then. More payins in a row
 * than this are refused as a failed simulation is.
 */
const CLOSING_BUILDS = 3;

const readAmount = (base64: string): bigint => Buffer.from(base64, 'base64').readBigUInt64LE(0);

/**
 * A Solana cluster through its JSON-RPC (@solana/kit, @solana-program/token-2022 instructions for both token
 * programs). Deposit addresses are wallet keys derived per payment (SLIP-0010); payins land in their associated
 * token accounts. The treasury is the fee payer of every transaction Payrail signs.
 */
export class SolanaAdapter implements ChainAdapter {
  /**
   * Transactions carry a recent blockhash, not a sequence number: each lands on its own. The fee payer (the treasury)
   * only needs lamports for fees; a payer that runs short is refused at broadcast, which waits for an operator.
   */
  readonly sequencing = 'none';
  readonly rpc: Rpc<SolanaRpcApi>;
  private readonly estimateComputeUnits: ReturnType<typeof estimateComputeUnitLimitFactory>;
  private readonly atas = new Kept<string, Address>(KEPT_PER_DEPOSIT);
  private treasurySigner?: Promise<KeyPairSigner>;
  private readonly treasuryPublic: string | null;

  /** The head as this process's waits share it: a burst's checks read it once a moment, not once each. */
  private readonly sharedHead = () => this.shared.read(RecentReads.HEAD, () => this.head());

  /** `shared`: the chain's reads shared by this process's callers (from `ChainAdapters`: the head its waits share). */
  constructor(
    readonly config: SolanaChainConfig,
    private readonly keys: SolanaKeys = {},
    private readonly shared = new RecentReads(),
  ) {
    this.rpc = createSolanaRpc(config.rpcUrl);
    this.estimateComputeUnits = estimateComputeUnitLimitFactory({ rpc: this.rpc });
    this.treasuryPublic = keys.treasurySecretKey ? publicAddress(keys.treasurySecretKey.subarray(0, 32)) : null;
  }

  depositAddress(paymentId: string): string {
    return publicAddress(this.depositPrivateKey(paymentId));
  }

  private depositPrivateKey(paymentId: string): Buffer {
    if (!this.keys.depositSeed) throw new Error(`no deposit seed is configured for chain ${this.config.chainId}`);
    return derivePrivateKey(this.keys.depositSeed, depositPath(paymentId));
  }

  treasuryAddress(): string {
    if (!this.treasuryPublic) throw new Error(`no treasury key is configured for chain ${this.config.chainId}`);
    return this.treasuryPublic;
  }

  private treasury(): Promise<KeyPairSigner> {
    if (!this.keys.treasurySecretKey) throw new Error(`no treasury key is configured for chain ${this.config.chainId}`);
    this.treasurySigner ??= createKeyPairSignerFromBytes(this.keys.treasurySecretKey);
    return this.treasurySigner;
  }

  private configuredToken(mint: string): (TokenConfig & { tokenProgram: Address }) | undefined {
    const entry = Object.entries(this.config.tokens).find(([, t]) => t.address === mint);
    return entry && { ...entry[1], symbol: entry[0], tokenProgram: entry[1].tokenProgram as Address };
  }

  private token(mint: string): TokenConfig & { tokenProgram: Address } {
    const token = this.configuredToken(mint);
    if (!token) throw new Error(`${mint} is not a configured token on chain ${this.config.chainId}`);
    return token;
  }

  /** The owner's associated token account for the mint (derived once while kept). */
  async ata(owner: string, mint: string): Promise<Address> {
    return this.atas.getOrLoad(`${owner}:${mint}`, async () => {
      const [ata] = await findAssociatedTokenPda({ owner: owner as Address, mint: mint as Address, tokenProgram: this.token(mint).tokenProgram });
      return ata;
    });
  }

  async head(): Promise<number> {
    return Number(await this.rpc.getSlot({ commitment: 'confirmed' }).send());
  }

  /** Confirmed slots are not rolled back: a slot stands for itself as the cursor's hash. */
  blockHash(n: number): Promise<string | null> {
    return Promise.resolve(`slot:${n}`);
  }

  async blockTime(n: number): Promise<number | null> {
    const time = await this.rpc.getBlockTime(BigInt(n)).send();
    return time === null ? null : Number(time);
  }

  /**
   * Reads every block of the range (`getBlocks`, then `getBlock` with each transaction's accounts and balances, a few
   * at once) and reports every transfer its transactions made (chains/solana/payins.ts `transfersOf`): tokens of any
   * mint to any owner, and SOL to any wallet. The cost is the range's blocks, whatever the number of open payments;
   * every transaction since the cursor is read, so none hides another. Blocks at `confirmed` are complete.
   */
  async scanPayins(input: { fromBlock: number; toBlock: number; heartbeat: () => void }): Promise<DetectedPayin[]> {
    const slots = await this.rpc.getBlocks(BigInt(input.fromBlock), BigInt(input.toBlock), { commitment: 'confirmed' }).send();
    const transfers: DetectedPayin[] = [];
    for (let i = 0; i < slots.length; i += BLOCK_READ_CONCURRENCY) {
      const blocks = await Promise.all(slots.slice(i, i + BLOCK_READ_CONCURRENCY).map((slot) => this.blockBalances(slot)));
      input.heartbeat();
      for (const tx of blocks.flat()) transfers.push(...this.ownTransfersLeftOut(transfersOf(this.config.chainId, tx)));
    }
    return transfers;
  }

  /** The block's transactions as balance changes (`transactionDetails: 'accounts'`: keys and meta, no instructions). */
  private async blockBalances(slot: bigint): Promise<TransactionBalances[]> {
    const block = await this.rpc
      .getBlock(slot, { commitment: 'confirmed', encoding: 'json', transactionDetails: 'accounts', maxSupportedTransactionVersion: 0, rewards: false })
      .send();
    if (!block) throw new Error(`block ${slot} on chain ${this.config.chainId} is not available`);
    // A transaction whose status metadata the node does not have shows no balances to read.
    return block.transactions.flatMap((tx) =>
      tx.meta ? [{ signature: tx.transaction.signatures[0]!, slot: Number(slot), keys: tx.transaction.accountKeys.map((k) => k.pubkey), meta: tx.meta }] : [],
    );
  }

  /** The treasury's own lamports (fees, rent) never count as anyone's transfer. */
  private ownTransfersLeftOut(transfers: DetectedPayin[]): DetectedPayin[] {
    return this.treasuryPublic === null ? transfers : transfers.filter((t) => t.from !== this.treasuryPublic);
  }

  private async status(signature: string) {
    const { value } = await this.rpc.getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send();
    return value[0] ?? null;
  }

  private async confirmedAt(slot: bigint): Promise<string> {
    return new Date(((await this.blockTime(Number(slot))) ?? 0) * 1000).toISOString();
  }

  /**
   * Reads the payin's transaction again (`getTransaction`) and takes the transfer at its account index from the
   * balance changes alone; the claimed one must be exactly it, and a configured mint must have reached the owner's
   * associated token account (the one a sweep moves).
   */
  async checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck> {
    const tx = await this.rpc.getTransaction(payin.txHash as Signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    if (!tx?.meta) return (await this.status(payin.txHash)) ? { state: 'pending' } : { state: 'missing' };
    if (tx.meta.err) return { state: 'dropped', reason: 'the transaction failed' };
    const keys = [...tx.transaction.message.accountKeys, ...(tx.meta.loadedAddresses?.writable ?? []), ...(tx.meta.loadedAddresses?.readonly ?? [])];
    const onChain = transfersOf(this.config.chainId, { signature: payin.txHash, slot: Number(tx.slot), keys, meta: tx.meta }).find((t) => t.logIndex === payin.logIndex);
    if (!onChain) return { state: 'dropped', reason: `no transfer at account ${payin.logIndex} of the transaction` };
    const mismatch = payinMismatch(payin, onChain);
    if (mismatch) return { state: 'dropped', reason: mismatch };
    if (this.isConfiguredMint(onChain.tokenAddress) && keys[onChain.logIndex] !== (await this.ata(onChain.to, onChain.tokenAddress))) {
      return { state: 'dropped', reason: 'the tokens reached an account other than the owner’s associated token account' };
    }
    if ((await this.sharedHead()) - Number(tx.slot) + 1 < depth) return { state: 'pending' };
    return { state: 'confirmed', payin: { ...onChain, confirmedAt: await this.confirmedAt(tx.slot) } };
  }

  private isConfiguredMint(mint: string): boolean {
    return Object.values(this.config.tokens).some((t) => t.address === mint);
  }

  /**
   * The action's instructions. A payout creates the merchant's token account when it has none (the treasury pays its
   * rent once). A transfer out of a deposit that empties its token account closes it, its rent going to the treasury;
   * a refund goes only to a token account its recipient already has: the treasury never pays a refund recipient's
   * rent, which the recipient could take back by closing the account (`estimateCost` holds such a refund).
   */
  private async instructions(
    action: ChainAction,
    treasury: KeyPairSigner,
  ): Promise<{ to: string; writable: Address[]; instructions: Instruction[]; creates: Address | null; closes: Address | null }> {
    const token = this.token(action.tokenAddress);
    const mint = token.address as Address;
    const programAddress = token.tokenProgram;
    const amount = BigInt(action.amountUnits);
    const destination = await this.ata(action.to, mint);
    const create = getCreateAssociatedTokenIdempotentInstruction({ payer: treasury, ata: destination, owner: action.to as Address, mint, tokenProgram: programAddress });
    if (action.kind === 'transfer') {
      const source = await this.ata(treasury.address, mint);
      return {
        to: action.to,
        writable: [treasury.address, source, destination],
        instructions: [create, getTransferCheckedInstruction({ source, mint, destination, authority: treasury, amount, decimals: token.decimals }, { programAddress })],
        creates: destination,
        closes: null,
      };
    }
    const deposit = await createKeyPairSignerFromPrivateKeyBytes(this.depositPrivateKey(action.paymentId));
    const source = await this.ata(deposit.address, mint);
    const intoTreasury = action.to === treasury.address;
    if (!intoTreasury && !(await this.accountExists(destination))) throw new TxWouldRevert(`${action.to} has no token account for ${mint}: a refund never pays its rent`);
    const empties = (await this.tokenAmount(source)) === amount;
    return {
      to: action.to,
      writable: [treasury.address, source, destination],
      instructions: [
        ...(intoTreasury ? [create] : []),
        getTransferCheckedInstruction({ source, mint, destination, authority: deposit, amount, decimals: token.decimals }, { programAddress }),
        ...(empties ? [getCloseAccountInstruction({ account: source, destination: treasury.address, owner: deposit }, { programAddress })] : []),
      ],
      creates: intoTreasury ? destination : null,
      closes: empties ? source : null,
    };
  }

  /**
   * The compute-unit price to pay now: the `priorityFeePercentile` of what transactions writing the same accounts paid
   * in the recent slots where any paid (`getRecentPrioritizationFees`: a slot where none did answers 0, no competition),
   * capped by `maxComputeUnitPriceMicroLamports`; 0 when no recent slot had any.
   */
  private async computeUnitPrice(writable: Address[]): Promise<bigint> {
    const fees = (await this.rpc.getRecentPrioritizationFees(writable).send())
      .map((f) => BigInt(f.prioritizationFee))
      .filter((fee) => fee > 0n)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (fees.length === 0) return 0n;
    const at = fees[Math.min(fees.length - 1, Math.floor((fees.length * this.config.priorityFeePercentile) / 100))]!;
    const cap = BigInt(this.config.maxComputeUnitPriceMicroLamports);
    return at < cap ? at : cap;
  }

  /**
   * The action's transaction message, paid by the treasury, with the priority fee recent slots paid and a compute
   * unit limit from a simulation (a call that would fail throws TxWouldRevert; a deposit transfer whose close a payin
   * foiled is built again), under a recent blockhash.
   */
  private async message(action: ChainAction) {
    const treasury = await this.treasury();
    for (let build = 1; ; build++) {
      const { to, writable, instructions, creates, closes } = await this.instructions(action, treasury);
      const [price, { value: lifetime }] = await Promise.all([this.computeUnitPrice(writable), this.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()]);
      const budget = price > 0n ? [getSetComputeUnitPriceInstruction({ microLamports: price })] : [];
      const draft = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(treasury, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) => appendTransactionMessageInstructions([...budget, ...instructions], m),
      );
      let units: number;
      try {
        units = await this.estimateComputeUnits(draft);
      } catch (err) {
        // A payin landed at the deposit after its balance was read: the account no longer empties, so the close fails.
        if (closes && build < CLOSING_BUILDS && (await this.tokenAmount(closes)) !== BigInt(action.amountUnits)) continue;
        throw new TxWouldRevert(`the transaction to ${to} would fail in simulation`, { cause: err });
      }
      const message = appendTransactionMessageInstructions([getSetComputeUnitLimitInstruction({ units: Math.ceil(units * COMPUTE_UNIT_MARGIN) })], draft);
      return { to, message, lifetime, creates };
    }
  }

  /**
   * The treasury pays the fee. The transaction carries a recent blockhash, valid up to `lastValidBlockHeight`: the
   * outbox stores it signed and re-broadcasts those bytes until they land, or signs it again once it can no longer.
   */
  async prepare(action: ChainAction): Promise<PreparedChainTx> {
    const treasury = await this.treasury();
    const { to, message, lifetime } = await this.message(action);
    return {
      signer: treasury.address,
      to,
      chainPendingNonce: 0,
      sign: async (): Promise<SignedChainTx> => {
        const signed = await signTransactionMessageWithSigners(message);
        return { rawTx: getBase64EncodedWireTransaction(signed), txHash: getSignatureFromTransaction(signed), validUntil: lifetime.lastValidBlockHeight.toString() };
      },
    };
  }

  /**
   * The message's fee (`getFeeForMessage`: signatures and priority fee) and the rent of a merchant's token account a
   * payout creates. A refund to a recipient without a token account is refused: Payrail never pays its rent.
   */
  async estimateCost(action: ChainAction): Promise<TxCost> {
    let built;
    try {
      built = await this.message(action);
    } catch (err) {
      if (err instanceof TxWouldRevert && action.kind === 'sweep' && !(await this.accountExists(await this.ata(action.to, action.tokenAddress)))) return { feeUnits: 0n, feeDecimals: 9, refusal: err.message };
      throw err;
    }
    const bytes = Buffer.from(getCompiledTransactionMessageEncoder().encode(compileTransactionMessage(built.message))).toString('base64') as TransactionMessageBytesBase64;
    const { value: fee } = await this.rpc.getFeeForMessage(bytes, { commitment: 'confirmed' }).send();
    const rent = built.creates && !(await this.accountExists(built.creates)) ? await this.rpc.getMinimumBalanceForRentExemption(TOKEN_ACCOUNT_SIZE).send() : 0n;
    return { feeUnits: BigInt(fee ?? 0) + rent, feeDecimals: 9 };
  }

  /**
   * A transaction can no longer land once a finalized block is higher than its blockhash's last valid block height:
   * no block that could still hold it can be finalized any more.
   */
  readonly expiry: TxExpiry = {
    canLand: async (tx) => tx.validUntil === null || (await this.rpc.getBlockHeight({ commitment: 'finalized' }).send()) <= BigInt(tx.validUntil),
  };

  async broadcast(tx: SignedChainTx): Promise<'sent' | 'known'> {
    if (await this.status(tx.txHash)) return 'known';
    try {
      await this.rpc.sendTransaction(tx.rawTx as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
      return 'sent';
    } catch (err) {
      // Already processed (a concurrent broadcast won): the chain has it.
      if (await this.status(tx.txHash)) return 'known';
      if (isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) throw new TxRefused(`chain ${this.config.chainId} refused ${tx.txHash}: ${String(err.cause ?? err)}`, { cause: err });
      throw err;
    }
  }

  /**
   * Solana transactions are atomic: one that succeeded moved the tokens. It landed for the receiver when, besides, its
   * token balances show the recipient's account of the mint up by the amount. The first signature the chain has counts
   * (one signed again replaces one that can no longer land).
   */
  async checkTx(txHashes: string[], depth: number, sent?: SentChainTx): Promise<TxCheck> {
    for (const txHash of txHashes) {
      const status = await this.status(txHash);
      if (!status) continue;
      if ((await this.sharedHead()) - Number(status.slot) + 1 < depth) return { state: 'pending', txHash, blockNumber: Number(status.slot) };
      const succeeded = status.err === null && (!sent?.action || (await this.receiverCredited(txHash, sent.action)));
      return { state: 'mined', txHash, blockNumber: Number(status.slot), succeeded, confirmedAt: await this.confirmedAt(status.slot) };
    }
    return { state: 'unmined' };
  }

  /** The transaction's token balances show the action's recipient up by its amount of the mint. */
  private async receiverCredited(signature: string, action: ChainAction): Promise<boolean> {
    const tx = await this.rpc.getTransaction(signature as Signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    if (!tx?.meta) return false;
    const of = (balances: typeof tx.meta.postTokenBalances) => balances?.find((b) => b.owner === action.to && b.mint === action.tokenAddress);
    const after = of(tx.meta.postTokenBalances);
    const before = BigInt(of(tx.meta.preTokenBalances)?.uiTokenAmount.amount ?? '0');
    return after !== undefined && BigInt(after.uiTokenAmount.amount) - before === BigInt(action.amountUnits);
  }

  private async accountExists(account: Address): Promise<boolean> {
    const { value } = await this.rpc.getAccountInfo(account, { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: 0, length: 0 } }).send();
    return value !== null;
  }

  private async tokenAmount(account: Address): Promise<bigint> {
    const { value } = await this.rpc.getAccountInfo(account, { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: AMOUNT_OFFSET, length: 8 } }).send();
    return value ? readAmount(value.data[0]) : 0n;
  }

  async balanceOf(owner: string, tokenAddress: string): Promise<bigint> {
    if (isNativeToken(tokenAddress)) return (await this.rpc.getBalance(owner as Address, { commitment: 'confirmed' }).send()).value;
    if (this.configuredToken(tokenAddress)) return this.tokenAmount(await this.ata(owner, tokenAddress));
    return this.unconfiguredBalanceOf(owner, tokenAddress);
  }

  /**
   * A mint nobody configured (quarantined at a deposit): the ledger keeps it in lower case, which base58 cannot be
   * read back from, so the owner's token accounts of both token programs are read and matched without case.
   */
  private async unconfiguredBalanceOf(owner: string, mint: string): Promise<bigint> {
    const held = await Promise.all(
      [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS].map(async (programId) => {
        const { value } = await this.rpc.getTokenAccountsByOwner(owner as Address, { programId }, { commitment: 'confirmed', encoding: 'jsonParsed' }).send();
        return value
          .map((a) => a.account.data.parsed.info)
          .filter((info) => info.mint.toLowerCase() === mint.toLowerCase())
          .reduce((sum, info) => sum + BigInt(info.tokenAmount.amount), 0n);
      }),
    );
    return held.reduce((a, b) => a + b, 0n);
  }

  /**
   * From the transaction's lamport balances: the fee payer (the first key) paid `meta.fee`; every other change of an
   * account's lamports (SOL moved, rent paid to create a token account or returned by closing one) as the balances show.
   */
  async nativeEffects(tx: { txHash: string }): Promise<NativeEffects> {
    const read = await this.rpc.getTransaction(tx.txHash as Signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    if (!read?.meta) throw new Error(`chain ${this.config.chainId}: transaction ${tx.txHash} is not confirmed`);
    const { meta } = read;
    const keys = [...read.transaction.message.accountKeys, ...(meta.loadedAddresses?.writable ?? []), ...(meta.loadedAddresses?.readonly ?? [])];
    const payer = keys[0]!;
    const changes = keys
      .map((address, i) => ({ address, deltaUnits: BigInt(meta.postBalances[i] ?? 0n) - BigInt(meta.preBalances[i] ?? 0n) + (i === 0 ? BigInt(meta.fee) : 0n) }))
      .filter((c) => c.deltaUnits !== 0n);
    return { fees: [{ address: payer, units: BigInt(meta.fee) }], changes };
  }

  readUsdPriceFeed(feed: string): Promise<FeedReading> {
    return Promise.reject(new PriceUnavailable(`chain ${this.config.chainId} has no price feed ${feed}: Solana coins are not priced here`));
  }

  readonly explorer = {
    tx: (txHash: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/tx/${txHash}` : null),
    address: (address: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/address/${address}` : null),
  };

  /** A Solana Pay transfer request: `solana:<recipient>?amount=<decimal>&spl-token=<mint>`. */
  paymentUri(input: { address: string; tokenAddress: string | null; amountUnits: string; decimals: number }): string {
    const params = new URLSearchParams({ amount: formatUnits(BigInt(input.amountUnits), input.decimals) });
    if (input.tokenAddress) params.set('spl-token', input.tokenAddress);
    return `solana:${input.address}?${params.toString()}`;
  }

  /** Wallet Standard: the cluster, the mint and its program, and a blockhash the page builds the transfer on. */
  async walletRequest(input: { address: string; tokenAddress: string | null; amountUnits: string; decimals: number }): Promise<WalletRequest> {
    const { value } = await this.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const token = input.tokenAddress ? Object.values(this.config.tokens).find((t) => t.address === input.tokenAddress) : undefined;
    return {
      standard: 'solana',
      chain: `solana:${this.config.cluster}`,
      tokenAddress: input.tokenAddress,
      tokenProgram: token?.tokenProgram ?? null,
      decimals: input.decimals,
      recipient: input.address,
      amountUnits: input.amountUnits,
      recentBlockhash: value.blockhash,
      lastValidBlockHeight: value.lastValidBlockHeight.toString(),
    };
  }

  destroy(): void {
    // The kit RPC holds no connection between requests.
  }
}

