import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isSolanaError,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  type Address,
  type Base64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import {
  findAssociatedTokenPda,
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token-2022';
import { formatUnits } from '../../domain/money';
import type { DetectedPayin } from '../../domain/payins';
import { PriceUnavailable, type ChainAction, type ChainAdapter, type FeedReading, type PayinCheck, type PreparedChainTx, type SignedChainTx, type TxCheck, type WatchedDeposits } from '../family';
import type { TokenConfig } from '../registry';
import type { SolanaChainConfig } from './config';
import { depositPath, derivePrivateKey, publicAddress } from './derivation';

export interface SolanaKeys {
  /** 64-byte secret key (seed then public key, as solana-keygen writes it): pays every fee and rent, holds liquidity. */
  treasurySecretKey?: Uint8Array;
  /** SLIP-0010 seed of the deposit keys (chains/solana/derivation.ts). */
  depositSeed?: Uint8Array;
}

/** Deposit token accounts read at once while a scan looks for funded ones. */
const SCAN_CONCURRENCY = 8;
/** Newest signatures of a funded deposit account read for its payins (a deposit sees a handful at most). */
const HISTORY_LIMIT = 50;
/** SPL token account layout: mint (32), owner (32), amount (u64 little-endian). */
const AMOUNT_OFFSET = 64;

const readAmount = (base64: string): bigint => Buffer.from(base64, 'base64').readBigUInt64LE(0);

/**
 * A Solana cluster through its JSON-RPC (@solana/kit, @solana-program/token-2022 instructions for both token
 * programs). Deposit addresses are wallet keys derived per payment (SLIP-0010); payins land in their associated
 * token accounts. The treasury is the fee payer of every transaction Payrail signs.
 */
export class SolanaAdapter implements ChainAdapter {
  /** Transactions carry a recent blockhash, not a sequence number: each lands on its own. */
  readonly orderedNonces = false;
  readonly rpc: Rpc<SolanaRpcApi>;
  private readonly atas = new Map<string, Address>();
  private treasurySigner?: Promise<KeyPairSigner>;
  private readonly treasuryPublic: string | null;

  constructor(
    readonly config: SolanaChainConfig,
    private readonly keys: SolanaKeys = {},
  ) {
    this.rpc = createSolanaRpc(config.rpcUrl);
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

  private token(mint: string): TokenConfig & { tokenProgram: Address } {
    const entry = Object.entries(this.config.tokens).find(([, t]) => t.address === mint);
    if (!entry) throw new Error(`${mint} is not a configured token on chain ${this.config.chainId}`);
    return { ...entry[1], symbol: entry[0], tokenProgram: entry[1].tokenProgram as Address };
  }

  /** The owner's associated token account for the mint (derived once per process). */
  async ata(owner: string, mint: string): Promise<Address> {
    const key = `${owner}:${mint}`;
    let ata = this.atas.get(key);
    if (!ata) {
      [ata] = await findAssociatedTokenPda({ owner: owner as Address, mint: mint as Address, tokenProgram: this.token(mint).tokenProgram });
      this.atas.set(key, ata);
    }
    return ata;
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
   * Reads every watched deposit's token account (its payment's token) in `getMultipleAccounts` batches (100
   * accounts a call, only the 8 amount bytes), then the history of the funded ones only: the cost grows with
   * batches of deposits and with funded, not yet swept deposits, never with a call per open payment. A swept account
   * is closed, so it costs nothing afterwards.
   */
  async scanPayins(input: { watched: WatchedDeposits; heartbeat: () => void }): Promise<DetectedPayin[]> {
    const deposits = await input.watched.all();
    const accounts = await Promise.all(deposits.map(async (d) => ({ ...d, ata: await this.ata(d.address, d.tokenAddress) })));
    const batches: (typeof accounts)[] = [];
    for (let i = 0; i < accounts.length; i += this.config.accountBatchSize) batches.push(accounts.slice(i, i + this.config.accountBatchSize));
    const funded: typeof accounts = [];
    for (let i = 0; i < batches.length; i += SCAN_CONCURRENCY) {
      const wave = batches.slice(i, i + SCAN_CONCURRENCY);
      const results = await Promise.all(
        wave.map((batch) =>
          this.rpc
            .getMultipleAccounts(
              batch.map((a) => a.ata),
              { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: AMOUNT_OFFSET, length: 8 } },
            )
            .send(),
        ),
      );
      input.heartbeat();
      results.forEach(({ value }, w) =>
        value.forEach((account, j) => {
          if (account && readAmount(account.data[0]) > 0n) funded.push(wave[w]![j]!);
        }),
      );
    }
    const payins = await Promise.all(funded.map((f) => this.payinsInto(f.address, f.ata)));
    input.heartbeat();
    return payins.flat();
  }

  /**
   * Transfers into a deposit's token account, from its history: each transaction whose token balance of the account
   * went up is one payin, identified by (signature, the account's index in the transaction).
   */
  private async payinsInto(owner: string, ata: Address): Promise<DetectedPayin[]> {
    const signatures = await this.rpc.getSignaturesForAddress(ata, { commitment: 'confirmed', limit: HISTORY_LIMIT }).send();
    const payins: DetectedPayin[] = [];
    for (const entry of signatures) {
      if (entry.err) continue;
      const payin = await this.payinIn(entry.signature, owner, ata);
      if (payin) payins.push(payin);
    }
    return payins;
  }

  private async payinIn(signature: Signature, owner: string, ata: Address): Promise<DetectedPayin | null> {
    const tx = await this.rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    if (!tx?.meta || tx.meta.err) return null;
    const keys = [...tx.transaction.message.accountKeys, ...(tx.meta.loadedAddresses?.writable ?? []), ...(tx.meta.loadedAddresses?.readonly ?? [])];
    const index = keys.indexOf(ata);
    if (index < 0) return null;
    const pre = tx.meta.preTokenBalances ?? [];
    const post = tx.meta.postTokenBalances ?? [];
    const after = post.find((b) => b.accountIndex === index);
    if (!after) return null;
    const before = BigInt(pre.find((b) => b.accountIndex === index)?.uiTokenAmount.amount ?? '0');
    const received = BigInt(after.uiTokenAmount.amount) - before;
    if (received <= 0n) return null;
    // The sender: the wallet whose account of the same mint went down in this transaction.
    const sender = pre.find((b) => b.mint === after.mint && b.accountIndex !== index && BigInt(b.uiTokenAmount.amount) > BigInt(post.find((p) => p.accountIndex === b.accountIndex)?.uiTokenAmount.amount ?? '0'));
    if (!sender?.owner) return null;
    return {
      chainId: this.config.chainId,
      txHash: signature,
      logIndex: index,
      blockNumber: Number(tx.slot),
      tokenAddress: after.mint,
      from: sender.owner,
      to: owner,
      amountUnits: received.toString(),
    };
  }

  private async status(signature: string) {
    const { value } = await this.rpc.getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send();
    return value[0] ?? null;
  }

  private async confirmedAt(slot: bigint): Promise<string> {
    return new Date(((await this.blockTime(Number(slot))) ?? 0) * 1000).toISOString();
  }

  async checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck> {
    const status = await this.status(payin.txHash);
    if (!status) return { state: 'missing' };
    if (status.err) return { state: 'dropped' };
    if ((await this.head()) - Number(status.slot) + 1 < depth) return { state: 'pending' };
    return { state: 'confirmed', payin: { ...payin, blockNumber: Number(status.slot), confirmedAt: await this.confirmedAt(status.slot) } };
  }

  private async instructions(action: ChainAction, treasury: KeyPairSigner): Promise<{ to: string; instructions: Instruction[] }> {
    const token = this.token(action.tokenAddress);
    const mint = token.address as Address;
    const programAddress = token.tokenProgram;
    const amount = BigInt(action.amountUnits);
    const toAccount = async (owner: string) => {
      const ata = await this.ata(owner, mint);
      // The treasury pays the rent of a recipient's token account that does not exist yet.
      const create = getCreateAssociatedTokenIdempotentInstruction({ payer: treasury, ata, owner: owner as Address, mint, tokenProgram: programAddress });
      return { ata, create };
    };
    switch (action.kind) {
      case 'sweep': {
        const deposit = await createKeyPairSignerFromPrivateKeyBytes(this.depositPrivateKey(action.paymentId));
        const source = await this.ata(deposit.address, mint);
        const destination = await toAccount(action.to);
        // A sweep that empties the account closes it: its rent goes back to the treasury.
        const empties = (await this.tokenAmount(source)) === amount;
        return {
          to: action.to,
          instructions: [
            destination.create,
            getTransferCheckedInstruction({ source, mint, destination: destination.ata, authority: deposit, amount, decimals: token.decimals }, { programAddress }),
            ...(empties ? [getCloseAccountInstruction({ account: source, destination: treasury.address, owner: deposit }, { programAddress })] : []),
          ],
        };
      }
      case 'transfer': {
        const treasuryAta = await this.ata(treasury.address, mint);
        const destination = await toAccount(action.to);
        return {
          to: action.to,
          instructions: [
            destination.create,
            getTransferCheckedInstruction({ source: treasuryAta, mint, destination: destination.ata, authority: treasury, amount, decimals: token.decimals }, { programAddress }),
          ],
        };
      }
    }
  }

  /**
   * The treasury pays the fee. The transaction carries a recent blockhash (valid for 150 blocks): the outbox stores
   * it signed and re-broadcasts those bytes, which land at once or not at all.
   */
  async prepare(action: ChainAction): Promise<PreparedChainTx> {
    const treasury = await this.treasury();
    const { to, instructions } = await this.instructions(action, treasury);
    const { value: lifetime } = await this.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    return {
      signer: treasury.address,
      to,
      chainPendingNonce: 0,
      sign: async (): Promise<SignedChainTx> => {
        const message = pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayerSigner(treasury, m),
          (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
          (m) => appendTransactionMessageInstructions(instructions, m),
        );
        const signed = await signTransactionMessageWithSigners(message);
        return { rawTx: getBase64EncodedWireTransaction(signed), txHash: getSignatureFromTransaction(signed) };
      },
    };
  }

  async broadcast(tx: SignedChainTx): Promise<'sent' | 'known'> {
    if (await this.status(tx.txHash)) return 'known';
    try {
      await this.rpc.sendTransaction(tx.rawTx as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
      return 'sent';
    } catch (err) {
      // Already processed (a concurrent broadcast won): the chain has it.
      if (await this.status(tx.txHash)) return 'known';
      if (isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)) throw new Error(`chain ${this.config.chainId} refused ${tx.txHash}: ${String(err.cause ?? err)}`);
      throw err;
    }
  }

  /** Solana transactions are never replaced (no nonces): one signature is looked at, the first one the chain has. */
  async checkTx(txHashes: string[], depth: number): Promise<TxCheck> {
    for (const txHash of txHashes) {
      const status = await this.status(txHash);
      if (!status) continue;
      if ((await this.head()) - Number(status.slot) + 1 < depth) return { state: 'pending', txHash, blockNumber: Number(status.slot) };
      return { state: 'mined', txHash, blockNumber: Number(status.slot), succeeded: status.err === null, confirmedAt: await this.confirmedAt(status.slot) };
    }
    return { state: 'unmined' };
  }

  private async tokenAmount(account: Address): Promise<bigint> {
    const { value } = await this.rpc.getAccountInfo(account, { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: AMOUNT_OFFSET, length: 8 } }).send();
    return value ? readAmount(value.data[0]) : 0n;
  }

  async balanceOf(owner: string, tokenAddress: string): Promise<bigint> {
    return this.tokenAmount(await this.ata(owner, tokenAddress));
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

  destroy(): void {
    // The kit RPC holds no connection between requests.
  }
}
