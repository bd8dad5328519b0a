import { Address, Cell, SendMode, beginCell, internal, loadTransaction, toNano, type MessageRelaxed, type Transaction } from '@ton/core';
import type { TonClient } from '@ton/ton';
import { NATIVE_TOKEN_ADDRESS, isNativeToken } from '../../domain/payment';
import { NATIVE_LOG_INDEX, payinMismatch, type DetectedPayin } from '../../domain/payins';
import { PriceUnavailable, TxRefused, type ChainAction, type ChainAdapter, type DepositAccounts, type NativeEffects, type PayinCheck, type PreparedChainTx, type SentChainTx, type SignedChainTx, type StoredChainTx, type TxCheck, type TxCost, type TxExpiry } from '../family';
import { Kept, KEPT_PER_DEPOSIT } from '../kept';
import { RecentReads } from '../recent-reads';
import type { TonChainConfig } from './config';
import { notificationOf, opOf, transfersOf, type DepositAccount, type JettonNotification } from './payins';
import { pacedFetch, pacedTonClient, RequestPacer } from './toncenter';
import {
  JETTON_OPS,
  depositWallet,
  jettonTransferBody,
  normalizedHash,
  rawAddress,
  signedInternalRequest,
  storedMessageSeqno,
  externalRequestSeqno,
  treasuryExternal,
  WALLET_V5R1_OPS,
  treasuryWallet,
  walletFacingAddress,
  type TonWallet,
} from './wallets';

export interface TonKeys {
  /** Seed of the deposit keys (SLIP-0010, worker only): deposit addresses for the pool, and their signatures. */
  depositSeed?: Uint8Array;
  /** The treasury wallet's 64-byte ed25519 secret key (worker only). */
  treasurySecretKey?: Uint8Array;
}

/**
 * TON the treasury sends along to a deposit wallet to pay for a transfer out of it. All but `GAS_KEPT` travels on in
 * the same transaction and comes back: with the payin itself on a sweep into the treasury, through the jetton
 * wallet's excess (the transfer's response destination) on a jetton transfer, as a message of its own on a refund.
 */
const SWEEP_GAS = toNano('0.05');
/**
 * What a deposit wallet keeps of the gas sent along, for its own fees (storage, compute, forwarding): a little above
 * them, so a transfer never takes them from the funds the deposit holds for others. A wallet's outgoing messages
 * pay from its balance, so this is what a chain of wallet messages cannot return.
 */
const GAS_KEPT = toNano('0.004');
/**
 * Refund economics: an upper estimate of what one internal message along a transfer costs (its forwarding fee, the
 * receiving contract's compute and storage), counted per hop on top of the treasury's own external message.
 */
const HOP_FEE = toNano('0.005');
/** Messages of one transfer's chain followed at most (the longest, a jetton refund out of a deposit, has six). */
const MAX_CHAIN_MESSAGES = 16;
/** TON attached to a jetton transfer for the jetton wallets' fees; the excess returns to the treasury. */
const JETTON_TRANSFER_VALUE = toNano('0.05');
/** Forwarded to the recipient with a jetton transfer, so its wallet app shows the transfer notification. */
const JETTON_FORWARD_TON = 1n;
/**
 * How long a signed message stays valid. The outbox signs once and re-broadcasts the same bytes until they land, and
 * wallet seqnos make a replay impossible, so the bound only has to outlast any outage of the worker.
 */
const MESSAGE_VALIDITY_SECONDS = 30 * 24 * 3600;
/** toncenter's documented rate limits: without a key, and with a key of the Free plan (requests per second). */
const KEYLESS_REQUESTS_PER_SECOND = 1;
const FREE_PLAN_REQUESTS_PER_SECOND = 10;
/** Transactions read per `getTransactions` page. */
const TX_PAGE = 50;
/** Transactions read per `getBlockTransactionsExt` page (toncenter's default). */
const BLOCK_TX_PAGE = 40;
/** Masterchain blocks read at once while a scan reads its range. */
const BLOCK_READ_CONCURRENCY = 4;
/** New deposits whose jetton wallets are looked up at once (one get-method call each, within toncenter's rate). */
const RECORD_CONCURRENCY = 8;
const MASTERCHAIN_SHARD = '-9223372036854775808';
/**
 * Masterchain blocks whose transactions stay read: toncenter serves only committed blocks, which never change, and
 * the checks of a burst's payins (and the watcher's scan) read the same few recent blocks.
 */
const FINAL_BLOCKS_KEPT = 32;
/**
 * Treasury transactions kept parsed: a committed transaction never changes, and every check of a pending treasury
 * message reads the treasury's newest pages again (parsing a page of BOCs was a fifth of a burst's worker CPU).
 */
const PARSED_TXS_KEPT = 1_000;
/** Transactions of our transfers' message chains kept: a few per transfer, more than a burst has in flight. */
const CHAIN_TXS_KEPT = 10_000;

/** toncenter answered the request with a refusal (the liteserver would not take the message). */
class ToncenterRefusal extends Error {}

interface ShardBlockId {
  workchain: number;
  shard: string;
  seqno: number;
}

/** A transaction of a block: decoded, with its hash (hex) and account. */
interface BlockTransaction {
  tx: Transaction;
  hash: string;
  account: Address;
}

/** One transaction of toncenter's `getTransactions`: its BOC and its id (hash in base64). */
interface AccountTransactionEntry {
  data: string;
  transaction_id: { lt: string; hash: string };
}

interface BlockTransactionsPage {
  incomplete: boolean;
  transactions: Array<{ address: { account_address: string }; data: string; transaction_id: { lt: string; hash: string } }>;
}

/** A TON chain through toncenter v2 (`TonClient`, and its block reads over JSON-RPC). */
export class TonAdapter implements ChainAdapter {
  /**
   * Treasury messages carry the wallet's seqno, and a transfer out of a deposit the deposit wallet's, read when it is
   * prepared: the treasury's transactions go one at a time, each prepared once the one before has landed.
   */
  readonly sequencing = 'sequence';
  readonly client: TonClient;
  /** toncenter's rate limit, shared by every request of this adapter. */
  private readonly pacer: RequestPacer;
  private readonly treasury: TonWallet | null;
  /** Jetton wallet of (master, owner): a pure function of the two, read once per pair while kept. */
  private readonly jettonWallets = new Kept<string, Address>(KEPT_PER_DEPOSIT);
  /** Deposit addresses by payment (derivation costs a key derivation). */
  private readonly deposits = new Kept<string, TonWallet>(KEPT_PER_DEPOSIT);
  /** Transactions of our transfers' message chains, by the message that made them (final once found). */
  private readonly chainTxs = new Kept<string, Transaction>(CHAIN_TXS_KEPT);
  /** The basechain transactions of recent masterchain blocks, by seqno (`FINAL_BLOCKS_KEPT`). */
  private readonly finalBlocks = new Kept<number, Promise<BlockTransaction[]>>(FINAL_BLOCKS_KEPT);
  /** Treasury transactions parsed, by toncenter's id (`PARSED_TXS_KEPT`). */
  private readonly parsedTxs = new Kept<string, Transaction>(PARSED_TXS_KEPT);

  /** The head as this process's waits share it: a burst's checks read it once a moment, not once each. */
  private readonly sharedHead = () => this.shared.read(RecentReads.HEAD, () => this.head());

  /** `shared`: the chain's reads shared by this process's callers (from `ChainAdapters`: the head its waits share). */
  constructor(
    readonly config: TonChainConfig,
    private readonly keys: TonKeys = {},
    private readonly shared = new RecentReads(),
  ) {
    this.pacer = new RequestPacer(config.requestsPerSecond ?? (config.apiKey ? FREE_PLAN_REQUESTS_PER_SECOND : KEYLESS_REQUESTS_PER_SECOND));
    this.client = pacedTonClient(this.pacer, { endpoint: config.rpcUrl, apiKey: config.apiKey });
    this.treasury = keys.treasurySecretKey ? treasuryWallet(keys.treasurySecretKey) : null;
  }

  private depositWalletOf(paymentId: string): TonWallet {
    const seed = this.keys.depositSeed;
    if (!seed) throw new Error(`no TON deposit seed is configured for chain ${this.config.chainId}`);
    return this.deposits.getOrMake(paymentId, () => depositWallet(seed, paymentId));
  }

  depositAddress(paymentId: string): string {
    return rawAddress(this.depositWalletOf(paymentId).contract.address);
  }

  private treasuryOrThrow(): TonWallet {
    if (!this.treasury) throw new Error(`no TON treasury key is configured for chain ${this.config.chainId}`);
    return this.treasury;
  }

  treasuryAddress(): string {
    return rawAddress(this.treasuryOrThrow().contract.address);
  }

  async head(): Promise<number> {
    return (await this.client.getMasterchainInfo()).latestSeqno;
  }

  /** TON blocks are final once in the masterchain; the hash still lets the watcher notice a different node's chain. */
  async blockHash(n: number): Promise<string | null> {
    const result = await this.rpc<{ root_hash?: string }>('lookupBlock', { workchain: -1, shard: MASTERCHAIN_SHARD, seqno: n }).catch(() => null);
    return result?.root_hash ?? null;
  }

  /** When masterchain block `n` was generated (`getBlockHeader`'s `gen_utime`). */
  async blockTime(n: number): Promise<number | null> {
    const header = await this.rpc<{ gen_utime?: number }>('getBlockHeader', { workchain: -1, shard: MASTERCHAIN_SHARD, seqno: n }).catch(() => null);
    return header?.gen_utime ?? null;
  }

  /**
   * Reads every transaction of the range's masterchain blocks (the basechain shard blocks each commits, read whole
   * with `getBlockTransactionsExt`) and reports what reached an account of a watched deposit (`transfersOf`): TON into
   * a deposit wallet, jettons into its jetton wallets, and jettons of any other master a deposit was notified of (once
   * that master confirms the notifying wallet is the deposit's). The accounts are recorded in PostgreSQL when a deposit
   * is new (`recordAccounts`), and matched against a block's accounts in one query: the cost is the range's blocks
   * and the new deposits, never the open ones, and no number of transactions hides another. The treasury's own TON
   * (a sweep's gas) is left out. toncenter serves only masterchain-committed blocks, so what it shows is final.
   */
  async scanPayins(input: { fromBlock: number; toBlock: number; accounts: DepositAccounts; heartbeat: () => void }): Promise<DetectedPayin[]> {
    await this.recordAccounts(input.accounts, input.heartbeat);
    const txs: Array<BlockTransaction & { block: number }> = [];
    for (let start = input.fromBlock; start <= input.toBlock; start += BLOCK_READ_CONCURRENCY) {
      const numbers = Array.from({ length: Math.min(BLOCK_READ_CONCURRENCY, input.toBlock - start + 1) }, (_, i) => start + i);
      const blocks = await Promise.all(numbers.map((n) => this.blockTransactions(n)));
      input.heartbeat();
      blocks.forEach((block, i) => txs.push(...block.map((t) => ({ ...t, block: numbers[i]! }))));
    }
    const notifications = txs.map((t) => notificationOf(t.tx));
    const addresses = [...txs.map((t) => rawAddress(t.account)), ...notifications.flatMap((n) => (n ? [rawAddress(n.wallet)] : []))];
    const known = await input.accounts.find([...new Set(addresses)]);
    const transfers: DetectedPayin[] = [];
    for (const [i, t] of txs.entries()) {
      const account = known.get(rawAddress(t.account));
      if (!account) continue;
      transfers.push(...this.transfersInto(t, t.block, account));
      const notification = notifications[i];
      if (account.tokenAddress === NATIVE_TOKEN_ADDRESS && notification && !known.has(rawAddress(notification.wallet))) {
        const other = await this.otherJettonTransfer(t, t.block, account.address, notification);
        if (other) transfers.push(other);
      }
    }
    return transfers;
  }

  /**
   * A jetton deposit takes no TON as a payin: the TON reaching it rides mostly on its jetton transfers' notifications
   * (their sender's fee for them), too little to return; it is quarantined for the operator instead.
   */
  takesPayin(paymentToken: string, tokenAddress: string): boolean {
    return isNativeToken(paymentToken) || !isNativeToken(tokenAddress);
  }

  /** A transaction's transfers into a deposit's account, without the treasury's own TON. */
  private transfersInto(t: BlockTransaction, block: number, account: DepositAccount): DetectedPayin[] {
    const treasury = this.treasury ? rawAddress(this.treasury.contract.address) : null;
    return transfersOf(this.config.chainId, t.tx, t.hash, block, account).filter((transfer) => transfer.from !== treasury);
  }

  /**
   * Jettons of a master nobody configured, notified to a deposit wallet (index 0 of its transaction, beside the TON
   * the notification carried): believed only when the master's `get_wallet_address` for the deposit is the notifying
   * wallet, so a contract that merely claims to be a jetton wallet is not. A configured master's wallet of a deposit
   * is recorded and read directly: another wallet naming it is not its wallet.
   */
  private async otherJettonTransfer(t: BlockTransaction, block: number, deposit: string, notification: JettonNotification): Promise<DetectedPayin | null> {
    const data = await this.client.runMethod(notification.wallet, 'get_wallet_data').catch(() => null);
    if (!data) return null;
    data.stack.readBigNumber();
    const owner = data.stack.readAddress();
    const master = data.stack.readAddress();
    if (!owner.equals(Address.parse(deposit)) || Object.values(this.config.tokens).some((token) => Address.parse(token.address).equals(master))) return null;
    const wallet = await this.jettonWalletOf(rawAddress(master), owner).catch(() => null);
    if (!wallet?.equals(notification.wallet)) return null;
    const from = rawAddress(notification.sender ?? notification.wallet);
    return { chainId: this.config.chainId, txHash: t.hash, logIndex: 0, blockNumber: block, tokenAddress: rawAddress(master), from, to: deposit, amountUnits: notification.amount.toString() };
  }

  /**
   * Records the accounts of watched deposits created since the last scan: the deposit wallet (its TON) and its jetton
   * wallet of every configured jetton (one `get_wallet_address` each), so every scan after matches them by address.
   */
  private async recordAccounts(accounts: DepositAccounts, heartbeat: () => void): Promise<void> {
    const deposits = await accounts.unrecorded();
    const jettons = Object.values(this.config.tokens).map((token) => token.address);
    for (let i = 0; i < deposits.length; i += RECORD_CONCURRENCY) {
      const batch = deposits.slice(i, i + RECORD_CONCURRENCY);
      const recorded = await Promise.all(
        batch.map(async ({ address }) => ({
          address,
          accounts: [
            { account: address, tokenAddress: NATIVE_TOKEN_ADDRESS },
            ...(await Promise.all(jettons.map(async (master) => ({ account: rawAddress(await this.jettonWalletOf(master, Address.parse(address))), tokenAddress: master })))),
          ],
        })),
      );
      await accounts.record(recorded);
      heartbeat();
    }
  }

  /**
   * The basechain transactions masterchain block `seqno` commits: of each shard, the shard blocks since those the
   * previous masterchain block committed, every page of each.
   */
  private blockTransactions(seqno: number): Promise<BlockTransaction[]> {
    let read = this.finalBlocks.get(seqno);
    if (!read) {
      read = this.readBlockTransactions(seqno);
      this.finalBlocks.set(seqno, read);
      // A failed read is not kept: the next caller asks again.
      read.catch(() => this.finalBlocks.get(seqno) === read && this.finalBlocks.delete(seqno));
    }
    return read;
  }

  private async readBlockTransactions(seqno: number): Promise<BlockTransaction[]> {
    const [current, previous] = await Promise.all([this.shards(seqno), seqno > 0 ? this.shards(seqno - 1) : Promise.resolve([])]);
    const blocks: ShardBlockId[] = [];
    for (const shard of current.filter((b) => b.workchain === 0)) {
      const before = previous.find((b) => b.workchain === shard.workchain && b.shard === shard.shard);
      for (let n = before ? before.seqno + 1 : shard.seqno; n <= shard.seqno; n++) blocks.push({ ...shard, seqno: n });
    }
    return (await Promise.all(blocks.map((block) => this.shardBlockTransactions(block)))).flat();
  }

  private async shards(seqno: number): Promise<ShardBlockId[]> {
    return (await this.rpc<{ shards: ShardBlockId[] }>('shards', { seqno })).shards;
  }

  private async shardBlockTransactions(block: ShardBlockId): Promise<BlockTransaction[]> {
    const out: BlockTransaction[] = [];
    let after: { after_lt: string; after_hash: string } | undefined;
    for (;;) {
      const page = await this.rpc<BlockTransactionsPage>('getBlockTransactionsExt', { ...block, count: BLOCK_TX_PAGE, ...after });
      for (const entry of page.transactions) {
        const tx = loadTransaction(Cell.fromBase64(entry.data).beginParse());
        out.push({ tx, hash: tx.hash().toString('hex'), account: Address.parse(entry.address.account_address) });
      }
      const last = out.at(-1);
      if (!page.incomplete || !last) return out;
      after = { after_lt: last.tx.lt.toString(), after_hash: last.account.hash.toString('base64') };
    }
  }

  /**
   * Finds the payin's transaction in the masterchain block it names and takes the transfer at its index from it
   * alone: TON the deposit wallet took in, jettons its jetton wallet of the claimed master accepted, or jettons of an
   * unconfigured master it was notified of. The claimed one must be exactly it. A block past the head is missing.
   */
  async checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck> {
    const head = await this.sharedHead();
    if (payin.blockNumber > head) return { state: 'missing' };
    if (head < payin.blockNumber + depth - 1) return { state: 'pending' };
    const found = (await this.blockTransactions(payin.blockNumber)).find((t) => t.hash === payin.txHash);
    if (!found) return { state: 'dropped', reason: `no transaction ${payin.txHash} in masterchain block ${payin.blockNumber}` };
    const onChain = await this.transferAt(found, payin);
    if (!onChain) return { state: 'dropped', reason: `no transfer at index ${payin.logIndex} of the transaction into ${payin.to}` };
    const mismatch = payinMismatch(payin, onChain);
    if (mismatch) return { state: 'dropped', reason: mismatch };
    return { state: 'confirmed', payin: { ...onChain, confirmedAt: new Date(found.tx.now * 1000).toISOString() } };
  }

  private async transferAt(t: BlockTransaction, payin: DetectedPayin): Promise<DetectedPayin | undefined> {
    const deposit = Address.parse(payin.to);
    if (t.account.equals(deposit)) {
      if (payin.logIndex === NATIVE_LOG_INDEX) return this.transfersInto(t, payin.blockNumber, { address: payin.to, tokenAddress: NATIVE_TOKEN_ADDRESS })[0];
      const notification = notificationOf(t.tx);
      return (notification && (await this.otherJettonTransfer(t, payin.blockNumber, payin.to, notification))) ?? undefined;
    }
    if (isNativeToken(payin.tokenAddress)) return undefined;
    const wallet = await this.jettonWallet(payin.tokenAddress, deposit).catch(() => null);
    if (!wallet?.equals(t.account)) return undefined;
    return this.transfersInto(t, payin.blockNumber, { address: payin.to, tokenAddress: payin.tokenAddress })[0];
  }

  private async rpc<T>(method: string, params: Record<string, unknown>): Promise<T> {
    const res = await pacedFetch(this.pacer, this.config.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.config.apiKey ? { 'X-API-Key': this.config.apiKey } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { ok: boolean; result?: T; error?: string; code?: number };
    if (body.ok && body.result !== undefined) return body.result;
    // toncenter's own answer (a liteserver refusing the message: 500, a bad request: 400), not a transport failure.
    if (body.ok === false && (body.code === 500 || body.code === 400)) throw new ToncenterRefusal(`toncenter ${method}: ${body.error ?? res.status}`);
    throw new Error(`toncenter ${method}: ${body.error ?? res.status}`);
  }

  /** The jetton wallet `owner` has (or would have) for the master, read once per pair while this process keeps it. */
  private async jettonWallet(master: string, owner: Address): Promise<Address> {
    return this.jettonWallets.getOrLoad(`${master}/${rawAddress(owner)}`, () => this.jettonWalletOf(master, owner));
  }

  /** The master's `get_wallet_address` for `owner`: a pure function of the two. */
  private async jettonWalletOf(master: string, owner: Address): Promise<Address> {
    const { stack } = await this.client.runMethod(Address.parse(master), 'get_wallet_address', [{ type: 'slice', cell: beginCell().storeAddress(owner).endCell() }]);
    return stack.readAddress();
  }

  /** A wallet's seqno, 0 before it is deployed. */
  private async seqno(address: Address): Promise<number> {
    const state = await this.client.getContractState(address);
    if (state.state !== 'active') return 0;
    return (await this.client.runMethod(address, 'seqno')).stack.readNumber();
  }

  /**
   * Every action is one treasury transaction. A sweep is the treasury's internal message to the deposit wallet
   * carrying the wallet's state init (deploying it on first use), gas, and the deposit key's signed request
   * (wallet v5r1 internal authentication) to send the funds on: the deposit never needs TON of its own. `hops`: the
   * internal messages the transfer's chain takes to land (refund economics).
   */
  private async messages(action: ChainAction, treasury: TonWallet): Promise<{ to: Address; messages: MessageRelaxed[]; hops: number; kept: bigint }> {
    const validUntil = Math.floor(Date.now() / 1000) + MESSAGE_VALIDITY_SECONDS;
    const to = Address.parse(action.to);
    const amount = BigInt(action.amountUnits);
    const treasuryAddress = treasury.contract.address;
    if (action.kind === 'transfer') {
      if (isNativeToken(action.tokenAddress)) return { to, messages: [internal({ to, value: amount, bounce: false })], hops: 1, kept: 0n };
      const wallet = await this.jettonWallet(action.tokenAddress, treasuryAddress);
      const body = jettonTransferBody({ queryId: BigInt(Date.now()), amount, destination: to, responseTo: treasuryAddress, forwardTonAmount: JETTON_FORWARD_TON });
      // The treasury's jetton wallet, the recipient's, its notification and the excess back.
      return { to, messages: [internal({ to: wallet, value: JETTON_TRANSFER_VALUE, bounce: true, body })], hops: 4, kept: 0n };
    }
    const deposit = this.depositWalletOf(action.paymentId);
    const depositAddress = deposit.contract.address;
    const deployed = (await this.client.getContractState(depositAddress)).state === 'active';
    const seqno = deployed ? await this.seqno(depositAddress) : 0;
    // Every message pays its fees from the deposit's balance, which the gas has joined; `GAS_KEPT` of the gas stays for them.
    const send = (message: MessageRelaxed) => ({ message, mode: SendMode.PAY_GAS_SEPARATELY });
    let request: { messages: Array<{ message: MessageRelaxed; mode: SendMode }>; gas: bigint; hops: number };
    if (isNativeToken(action.tokenAddress)) {
      request = to.equals(treasuryAddress)
        ? // Into the treasury: the amount and the gas not kept, in one message.
          { messages: [send(internal({ to, value: amount + SWEEP_GAS - GAS_KEPT, bounce: false }))], gas: SWEEP_GAS, hops: 2 }
        : // Elsewhere (refunds): exactly the amount, and the gas not kept straight back to the treasury.
          { messages: [send(internal({ to, value: amount, bounce: false })), send(internal({ to: treasuryAddress, value: SWEEP_GAS - GAS_KEPT, bounce: false }))], gas: SWEEP_GAS, hops: 3 };
    } else {
      const wallet = await this.jettonWallet(action.tokenAddress, depositAddress);
      // What the deposit's jetton wallet does not spend comes back to the treasury (the transfer's response destination).
      const body = jettonTransferBody({ queryId: BigInt(Date.now()), amount, destination: to, responseTo: treasuryAddress, forwardTonAmount: JETTON_FORWARD_TON });
      const gas = SWEEP_GAS + JETTON_TRANSFER_VALUE;
      request = { messages: [send(internal({ to: wallet, value: gas - GAS_KEPT, bounce: true, body }))], gas, hops: 5 };
    }
    const signed = signedInternalRequest(deposit, { seqno, validUntil, messages: request.messages });
    const message = internal({ to: depositAddress, value: request.gas, bounce: false, init: deployed ? undefined : deposit.contract.init, body: signed });
    return { to, messages: [message], hops: request.hops, kept: GAS_KEPT };
  }

  async prepare(action: ChainAction): Promise<PreparedChainTx> {
    const treasury = this.treasuryOrThrow();
    const { to, messages } = await this.messages(action, treasury);
    const validUntil = Math.floor(Date.now() / 1000) + MESSAGE_VALIDITY_SECONDS;
    return {
      signer: rawAddress(treasury.contract.address),
      to: rawAddress(to),
      chainPendingNonce: await this.seqno(treasury.contract.address),
      sign: (seqno) => {
        const { boc, hash } = treasuryExternal(treasury, { seqno, validUntil, messages });
        return Promise.resolve({ rawTx: boc, txHash: hash, validUntil: String(validUntil) });
      },
    };
  }

  /** The account every TON transaction of Payrail takes its seqno from: the treasury's (a deposit's rides inside it). */
  sequenceAccount(): string {
    return this.treasuryAddress();
  }

  /**
   * What the action costs the treasury: the fees of its external message (toncenter's `estimateFee`, read from the
   * chain), an upper estimate per internal message of its chain, and the gas a native refund keeps at the deposit.
   */
  async estimateCost(action: ChainAction): Promise<TxCost> {
    const treasury = this.treasuryOrThrow();
    const { messages, hops, kept } = await this.messages(action, treasury);
    const seqno = await this.seqno(treasury.contract.address);
    const body = treasury.contract.createTransfer({ seqno, secretKey: treasury.keyPair.secretKey, messages, sendMode: SendMode.PAY_GAS_SEPARATELY, timeout: Math.floor(Date.now() / 1000) + 60 });
    const { source_fees: fees } = await this.client.estimateExternalMessageFee(treasury.contract.address, { body, initCode: null, initData: null, ignoreSignature: true });
    const external = BigInt(fees.in_fwd_fee) + BigInt(fees.storage_fee) + BigInt(fees.gas_fee) + BigInt(fees.fwd_fee);
    return { feeUnits: external + BigInt(hops) * HOP_FEE + kept, feeDecimals: 9 };
  }

  /**
   * A treasury message can no longer land once the treasury's seqno passed it (it landed, or another message took
   * the seqno: the check that follows tells which) or the chain's time passed its `valid_until`.
   */
  readonly expiry: TxExpiry = {
    canLand: async (tx) => {
      const canLand = await this.messageCanLand(tx);
      // The message may have landed after the shared treasury page was read: the check that follows reads it anew.
      if (!canLand) for (const limit of [TX_PAGE, 2 * TX_PAGE]) this.shared.forget(treasuryTransactionsKey(limit));
      return canLand;
    },
  };

  private async messageCanLand(tx: StoredChainTx): Promise<boolean> {
    if ((await this.seqno(this.treasuryOrThrow().contract.address)) > tx.nonce) return false;
    if (tx.validUntil === null) return true;
    const now = await this.blockTime(await this.sharedHead());
    return now === null || now < Number(tx.validUntil);
  }

  /**
   * A message already on chain cannot be sent again (its seqno is used): the chain having it is success for the
   * outbox. toncenter refusing it (the wallet would not accept it now) is `TxRefused`.
   */
  async broadcast(tx: SignedChainTx): Promise<'sent' | 'known'> {
    try {
      await this.rpc('sendBoc', { boc: tx.rawTx });
      return 'sent';
    } catch (err) {
      // Read fresh: a refusal is final only when the chain, as it is now, does not have the message.
      if ((await this.findTreasuryTx(tx.txHash, storedMessageSeqno(tx.rawTx), 'fresh')) !== null) return 'known';
      throw err instanceof ToncenterRefusal ? new TxRefused(`chain ${this.config.chainId} refused ${tx.txHash}: ${err.message}`, { cause: err }) : err;
    }
  }

  /**
   * The treasury transaction whose external message has this normalized hash. Knowing the seqno it carries, the
   * treasury's transactions are read newest first down to the one that took that seqno (another message's: null)
   * or an earlier one; without it, among the 100 most recent. The newest page is the one this process's checks share
   * unless `fresh`.
   */
  private async findTreasuryTx(txHash: string, seqno: number | null, read: 'shared' | 'fresh' = 'shared'): Promise<Transaction | null> {
    const treasury = this.treasuryOrThrow().contract.address;
    const ours = (tx: Transaction) => tx.inMessage?.info.type === 'external-in' && normalizedHash(tx.inMessage) === txHash;
    if (seqno === null) return (await this.treasuryTransactions(treasury, 2 * TX_PAGE, read)).find(ours) ?? null;
    let cursor: { lt: string; hash: string } | undefined;
    for (;;) {
      const page = await this.treasuryTransactions(treasury, TX_PAGE, cursor ? 'fresh' : read, cursor);
      for (const tx of page) {
        if (tx.inMessage?.info.type !== 'external-in') continue;
        const taken = externalRequestSeqno(tx.inMessage.body);
        if (taken === seqno) return ours(tx) ? tx : null;
        if (taken !== null && taken < seqno) return null;
      }
      const last = page.at(-1);
      if (page.length < TX_PAGE || !last) return null;
      cursor = { lt: last.lt.toString(), hash: last.hash().toString('base64') };
    }
  }

  /**
   * The treasury's `limit` transactions newest first, or those before `before`. A `shared` newest page is read once a
   * moment for all of this process's checks (`RecentReads`); each transaction is parsed once.
   */
  private treasuryTransactions(treasury: Address, limit: number, read: 'shared' | 'fresh', before?: { lt: string; hash: string }): Promise<Transaction[]> {
    const page = async () => {
      const params = { address: treasury.toString(), archival: true, limit: before ? limit + 1 : limit, ...(before ? { lt: before.lt, hash: Buffer.from(before.hash, 'base64').toString('hex') } : {}) };
      // toncenter's page from a cursor includes the cursor's own transaction.
      const entries = (await this.rpc<AccountTransactionEntry[]>('getTransactions', params)).filter((e) => !(e.transaction_id.lt === before?.lt && e.transaction_id.hash === before.hash));
      return entries.slice(0, limit).map((entry) => this.parsedTransaction(entry));
    };
    return read === 'shared' ? this.shared.read(treasuryTransactionsKey(limit), page) : page();
  }

  private parsedTransaction(entry: AccountTransactionEntry): Transaction {
    const id = `${entry.transaction_id.lt}:${entry.transaction_id.hash}`;
    return this.parsedTxs.getOrMake(id, () => loadTransaction(Cell.fromBase64(entry.data).beginParse()));
  }

  /**
   * Mined once the transfer landed for its receiver: the treasury's transaction and every message of its chain after
   * it have their transactions (TON blocks are final then, so any depth is reached): the deposit wallet's that carried
   * a signed request out, the jetton wallets' transfer and internal transfer, and the receiver's (its notification, a
   * plain transfer). It failed when any of them failed or bounced. TON messages are never replaced (a seqno is
   * signed once; one signed again takes another): the first hash the chain has counts.
   */
  async checkTx(txHashes: string[], _depth: number, sent?: SentChainTx): Promise<TxCheck> {
    const seqno = sent ? storedMessageSeqno(sent.rawTx) : null;
    for (const [i, txHash] of txHashes.entries()) {
      const tx = await this.findTreasuryTx(txHash, i === 0 ? seqno : null);
      if (!tx) continue;
      const outcome = await this.messageChain(tx);
      if (outcome === 'pending') return { state: 'pending', txHash };
      return { state: 'mined', txHash, blockNumber: await this.sharedHead(), succeeded: outcome === 'landed', confirmedAt: new Date(tx.now * 1000).toISOString() };
    }
    return { state: 'unmined' };
  }

  /**
   * Follows a treasury transaction's messages through the contracts that relay a transfer (a deposit wallet's
   * signed request, a jetton wallet's transfer and internal transfer) to the transactions that end it (the receiver's,
   * a notification, an excess): `pending` until each has its transaction, `failed` when a relay failed or anything
   * bounced. Messages of the receiver's own transaction are not followed: what it does next is its own.
   */
  private async messageChain(root: Transaction): Promise<'pending' | 'landed' | 'failed'> {
    if (!succeeded(root) || root.outMessagesCount === 0) return 'failed';
    const { transactions, complete } = await this.chainOf(root);
    // A relay that sent nothing on (its actions skipped) did not carry the transfer.
    if (transactions.slice(1).some((tx) => (isRelay(tx) ? !succeeded(tx) || tx.outMessagesCount === 0 : bounced(tx)))) return 'failed';
    return complete ? 'landed' : 'pending';
  }

  /**
   * The transactions of a treasury transaction's message chain found so far, the root first: every message's, each
   * relay's messages followed on (`messageChain`); `complete` once no message is still travelling.
   */
  private async chainOf(root: Transaction): Promise<{ transactions: Transaction[]; complete: boolean }> {
    const transactions = [root];
    const relays = [root];
    let followed = 0;
    for (let tx = relays.shift(); tx; tx = relays.shift()) {
      for (const message of tx.outMessages.values()) {
        if (message.info.type !== 'internal') continue;
        if (++followed > MAX_CHAIN_MESSAGES) throw new Error(`treasury transaction ${root.hash().toString('hex')} sent more messages than a transfer does`);
        const next = await this.resultTx(message.info.src, message.info.dest, message.info.createdLt);
        if (!next) return { transactions, complete: false };
        transactions.push(next);
        if (isRelay(next) && succeeded(next) && next.outMessagesCount > 0) relays.push(next);
      }
    }
    return { transactions, complete: true };
  }

  /**
   * Every transaction of the treasury transaction's message chain (the treasury's, a deposit wallet's, the jetton
   * wallets', the excess or gas coming back): each account paid its transaction's fees and the forwarding fees of the
   * messages it sent, and its balance changed by the value it received less the value it sent.
   */
  async nativeEffects(tx: { txHash: string; rawTx: string }): Promise<NativeEffects> {
    const root = await this.findTreasuryTx(tx.txHash, storedMessageSeqno(tx.rawTx));
    if (!root) throw new Error(`chain ${this.config.chainId}: transaction ${tx.txHash} is not on chain`);
    const effects: NativeEffects = { fees: [], changes: [] };
    for (const t of (await this.chainOf(root)).transactions) {
      const info = t.inMessage?.info;
      if (!info || info.type === 'external-out') continue;
      const address = rawAddress(info.dest);
      const outs = [...t.outMessages.values()].flatMap((m) => (m.info.type === 'internal' ? [m.info] : []));
      const fee = t.totalFees.coins + outs.reduce((sum, m) => sum + m.forwardFee + m.ihrFee, 0n);
      const change = (info.type === 'internal' ? info.value.coins : 0n) - outs.reduce((sum, m) => sum + m.value.coins, 0n);
      if (fee > 0n) effects.fees.push({ address, units: fee });
      if (change !== 0n) effects.changes.push({ address, deltaUnits: change });
    }
    return effects;
  }

  /** The transaction an internal message made at its destination, or null while it is still travelling. */
  private async resultTx(source: Address, destination: Address, createdLt: bigint): Promise<Transaction | null> {
    const key = `${rawAddress(destination)}:${createdLt}`;
    const known = this.chainTxs.get(key);
    if (known) return known;
    const tx = await this.client.tryLocateResultTx(source, destination, createdLt.toString()).catch(() => null);
    if (tx) this.chainTxs.set(key, tx);
    return tx;
  }

  async balanceOf(owner: string, tokenAddress: string): Promise<bigint> {
    const address = Address.parse(owner);
    if (isNativeToken(tokenAddress)) return this.client.getBalance(address);
    const wallet = await this.jettonWallet(tokenAddress, address);
    if ((await this.client.getContractState(wallet)).state !== 'active') return 0n;
    return (await this.client.runMethod(wallet, 'get_wallet_data')).stack.readBigNumber();
  }

  readUsdPriceFeed(): never {
    throw new PriceUnavailable(`chain ${this.config.chainId}: TON has no on-chain USD price feed`);
  }

  readonly explorer = {
    tx: (txHash: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/transaction/${txHash}` : null),
    address: (address: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/${address}` : null),
  };

  /**
   * `ton://transfer/<address>?amount=<nanotons>` for TON; for a jetton, the form wallet apps (Tonkeeper, Tonhub)
   * take: `ton://transfer/<address>?jetton=<master>&amount=<base units>`. The address is non-bounceable: a deposit
   * wallet has no code until its first sweep, and a bounceable transfer to it would come back.
   */
  paymentUri(input: { address: string; tokenAddress: string | null; amountUnits: string }): string {
    const to = walletFacingAddress(Address.parse(input.address), this.config.testnet);
    if (!input.tokenAddress || isNativeToken(input.tokenAddress)) return `ton://transfer/${to}?amount=${input.amountUnits}`;
    return `ton://transfer/${to}?jetton=${Address.parse(input.tokenAddress).toString({ urlSafe: true, bounceable: true, testOnly: this.config.testnet })}&amount=${input.amountUnits}`;
  }

  destroy(): void {
    this.deposits.clear();
  }
}

/** The key of the treasury's newest `limit` transactions among the chain's shared reads. */
function treasuryTransactionsKey(limit: number): string {
  return `treasury-transactions:${limit}`;
}

/** A transaction whose compute and action phases both succeeded, and that bounced nothing. */
function succeeded(tx: Transaction): boolean {
  const d = tx.description;
  return d.type === 'generic' && !d.aborted && d.computePhase.type === 'vm' && d.computePhase.success && (d.actionPhase?.success ?? true) && !bounced(tx);
}

/** A transaction that relays a transfer on: a deposit wallet's signed request, a jetton wallet's transfer or internal transfer. */
function isRelay(tx: Transaction): boolean {
  const op = opOf(tx);
  return op === WALLET_V5R1_OPS.signedInternal || op === JETTON_OPS.transfer || op === JETTON_OPS.internalTransfer;
}

/** The transaction sent its message back (a bounceable message its destination could not take). */
function bounced(tx: Transaction): boolean {
  const d = tx.description;
  return d.type === 'generic' && d.bouncePhase?.type === 'ok';
}
