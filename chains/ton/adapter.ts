import { Address, SendMode, beginCell, internal, toNano, type MessageRelaxed, type Transaction } from '@ton/core';
import { TonClient } from '@ton/ton';
import { NATIVE_TOKEN_ADDRESS, isNativeToken } from '../../domain/payment';
import { NATIVE_LOG_INDEX, type DetectedPayin } from '../../domain/payins';
import { PriceUnavailable, type ChainAction, type ChainAdapter, type PayinCheck, type PreparedChainTx, type SignedChainTx, type TxCheck, type WatchedDeposits } from '../family';
import type { TonChainConfig } from './config';
import {
  JETTON_OPS,
  depositWallet,
  jettonTransferBody,
  normalizedHash,
  rawAddress,
  signedInternalRequest,
  treasuryExternal,
  treasuryWallet,
  walletFacingAddress,
  type TonWallet,
} from './wallets';

export interface TonKeys {
  /** Seed of the deposit keys (SLIP-0010): the API and the worker both derive deposit addresses from it. */
  depositSeed?: Uint8Array;
  /** The treasury wallet's 64-byte ed25519 secret key (worker only). */
  treasurySecretKey?: Uint8Array;
}

/** TON the treasury sends along to a deposit wallet to pay for its sweep (the unused part stays there or travels on). */
const SWEEP_GAS = toNano('0.05');
/** TON attached to a jetton transfer for the jetton wallets' fees; the excess returns to the treasury. */
const JETTON_TRANSFER_VALUE = toNano('0.05');
/** Forwarded to the recipient with a jetton transfer, so its wallet app shows the transfer notification. */
const JETTON_FORWARD_TON = 1n;
/**
 * How long a signed message stays valid. The outbox signs once and re-broadcasts the same bytes until they land, and
 * wallet seqnos make a replay impossible, so the bound only has to outlast any outage of the worker.
 */
const MESSAGE_VALIDITY_SECONDS = 30 * 24 * 3600;
/** Transactions read per `getTransactions` page. */
const TX_PAGE = 50;
/** Scan baselines kept (one per scan end), so a repeated scan of a range compares against the same baseline. */
const BASELINES_KEPT = 16;

interface AccountStatesResponse {
  accounts: Array<{ address: string; last_transaction_lt: string | null }>;
}

/** A TON chain through toncenter: v2 (`TonClient`) for everything, v3 `accountStates` for batched deposit reads. */
export class TonAdapter implements ChainAdapter {
  /** Treasury messages carry the wallet seqno: one with seqno n is valid only once n-1 has landed. */
  readonly orderedNonces = true;
  readonly client: TonClient;
  private readonly treasury: TonWallet | null;
  private readonly v3Url: string;
  /** Jetton wallet of (master, owner): a pure function of the two, read once per pair. */
  private readonly jettonWallets = new Map<string, Address>();
  /** Deposit addresses by payment (derivation costs a key derivation). */
  private readonly deposits = new Map<string, TonWallet>();
  /** Per scan end block + 1: each watched account's last transaction lt as that scan left it. */
  private readonly baselines = new Map<number, Map<string, string>>();
  /** Where a payin's transaction is, from the scan that saw it. */
  private readonly payinTxs = new Map<string, { account: Address; lt: string; utime: number }>();

  constructor(
    readonly config: TonChainConfig,
    private readonly keys: TonKeys = {},
  ) {
    this.client = new TonClient({ endpoint: config.rpcUrl, apiKey: config.apiKey });
    this.treasury = keys.treasurySecretKey ? treasuryWallet(keys.treasurySecretKey) : null;
    this.v3Url = config.v3Url ?? config.rpcUrl.replace(/\/api\/v2\/jsonRPC\/?$/, '/api/v3');
  }

  private depositWalletOf(paymentId: string): TonWallet {
    let wallet = this.deposits.get(paymentId);
    if (!wallet) {
      if (!this.keys.depositSeed) throw new Error(`no TON deposit seed is configured for chain ${this.config.chainId}`);
      wallet = depositWallet(this.keys.depositSeed, paymentId);
      this.deposits.set(paymentId, wallet);
    }
    return wallet;
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
    const result = await this.rpc<{ root_hash?: string }>('lookupBlock', { workchain: -1, shard: '-9223372036854775808', seqno: n }).catch(() => null);
    return result?.root_hash ?? null;
  }

  /** When masterchain block `n` was generated (`getBlockHeader`'s `gen_utime`). */
  async blockTime(n: number): Promise<number | null> {
    const header = await this.rpc<{ gen_utime?: number }>('getBlockHeader', { workchain: -1, shard: '-9223372036854775808', seqno: n }).catch(() => null);
    return header?.gen_utime ?? null;
  }

  /**
   * One v3 `accountStates` read per `accountBatchSize` watched accounts (each deposit wallet, and its jetton wallet
   * for jetton payments) finds the accounts whose last transaction changed since the previous scan; only those are
   * read transaction by transaction. The RPC cost therefore grows with batches of deposits and with payins, never
   * with a call per open payment. toncenter only serves masterchain-committed blocks, so what it shows is final.
   */
  async scanPayins(input: { fromBlock: number; toBlock: number; watched: WatchedDeposits; heartbeat: () => void }): Promise<DetectedPayin[]> {
    const targets = new Map<string, { account: Address; deposit: string; jettonMaster: string | null }>();
    for (const deposit of await input.watched.all()) {
      const owner = Address.parse(deposit.address);
      targets.set(rawAddress(owner), { account: owner, deposit: deposit.address, jettonMaster: null });
      if (!isNativeToken(deposit.tokenAddress)) {
        const wallet = await this.jettonWallet(deposit.tokenAddress, owner);
        targets.set(rawAddress(wallet), { account: wallet, deposit: deposit.address, jettonMaster: deposit.tokenAddress });
      }
    }
    const baseline = this.baselines.get(input.fromBlock) ?? new Map<string, string>();
    const next = new Map(baseline);
    const changed: Array<{ target: { account: Address; deposit: string; jettonMaster: string | null }; since: string | undefined }> = [];
    const addresses = [...targets.keys()];
    for (let i = 0; i < addresses.length; i += this.config.accountBatchSize) {
      input.heartbeat();
      for (const state of await this.accountStates(addresses.slice(i, i + this.config.accountBatchSize))) {
        const address = Address.parseRaw(state.address.toLowerCase());
        const key = rawAddress(address);
        const target = targets.get(key);
        if (!target || state.last_transaction_lt === null) continue;
        if (baseline.get(key) !== state.last_transaction_lt) changed.push({ target, since: baseline.get(key) });
        next.set(key, state.last_transaction_lt);
      }
    }
    const payins: DetectedPayin[] = [];
    for (const { target, since } of changed) {
      input.heartbeat();
      for (const tx of await this.transactionsSince(target.account, since)) {
        const payin = target.jettonMaster ? this.jettonPayin(tx, target.deposit, target.jettonMaster, input.toBlock) : this.nativePayin(tx, target.deposit, input.toBlock);
        if (!payin) continue;
        this.payinTxs.set(payin.txHash, { account: target.account, lt: tx.lt.toString(), utime: tx.now });
        payins.push(payin);
      }
    }
    this.baselines.set(input.toBlock + 1, next);
    for (const key of [...this.baselines.keys()].sort((a, b) => a - b).slice(0, -BASELINES_KEPT)) this.baselines.delete(key);
    return payins;
  }

  /** An incoming TON transfer that the deposit kept: not bounced, not the treasury's own sweep gas, not jetton bookkeeping. */
  private nativePayin(tx: Transaction, deposit: string, blockNumber: number): DetectedPayin | null {
    const info = tx.inMessage?.info;
    if (info?.type !== 'internal' || info.bounced || info.value.coins === 0n) return null;
    if (tx.description.type !== 'generic' || tx.description.bouncePhase) return null;
    const from = rawAddress(info.src);
    if (this.treasury && from === rawAddress(this.treasury.contract.address)) return null;
    const op = opOf(tx);
    if (op === JETTON_OPS.transferNotification || op === JETTON_OPS.excesses) return null;
    return { chainId: this.config.chainId, txHash: tx.hash().toString('hex'), logIndex: NATIVE_LOG_INDEX, blockNumber, tokenAddress: NATIVE_TOKEN_ADDRESS, from, to: deposit, amountUnits: info.value.coins.toString() };
  }

  /** A TEP-74 `internal_transfer` the deposit's jetton wallet accepted (a forged one aborts in the wallet's code). */
  private jettonPayin(tx: Transaction, deposit: string, jettonMaster: string, blockNumber: number): DetectedPayin | null {
    const message = tx.inMessage;
    if (message?.info.type !== 'internal' || message.info.bounced) return null;
    const d = tx.description;
    if (d.type !== 'generic' || d.aborted || d.computePhase.type !== 'vm' || !d.computePhase.success) return null;
    const body = message.body.beginParse();
    if (body.remainingBits < 32 || body.loadUint(32) !== JETTON_OPS.internalTransfer) return null;
    body.loadUintBig(64);
    const amount = body.loadCoins();
    const from = body.loadMaybeAddress() ?? message.info.src;
    if (amount === 0n) return null;
    return { chainId: this.config.chainId, txHash: tx.hash().toString('hex'), logIndex: 0, blockNumber, tokenAddress: jettonMaster, from: rawAddress(from), to: deposit, amountUnits: amount.toString() };
  }

  async checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck> {
    const head = await this.head();
    if (head < payin.blockNumber + depth - 1) return { state: 'pending' };
    const tx = await this.findPayinTx(payin);
    if (!tx) return { state: 'missing' };
    return { state: 'confirmed', payin: { ...payin, confirmedAt: new Date(tx.now * 1000).toISOString() } };
  }

  private async findPayinTx(payin: DetectedPayin): Promise<Transaction | null> {
    const known = this.payinTxs.get(payin.txHash);
    if (known) return this.client.getTransaction(known.account, known.lt, Buffer.from(payin.txHash, 'hex').toString('base64'));
    const owner = Address.parse(payin.to);
    const account = isNativeToken(payin.tokenAddress) ? owner : await this.jettonWallet(payin.tokenAddress, owner);
    return (await this.client.getTransactions(account, { limit: 100, archival: true })).find((tx) => tx.hash().toString('hex') === payin.txHash) ?? null;
  }

  /** The account's transactions newer than lt `since` (all when undefined), newest first. */
  private async transactionsSince(account: Address, since: string | undefined): Promise<Transaction[]> {
    const out: Transaction[] = [];
    let cursor: { lt: string; hash: string } | undefined;
    for (;;) {
      const page = await this.client.getTransactions(account, { limit: TX_PAGE, archival: true, to_lt: since, ...(cursor ? { ...cursor, inclusive: false } : {}) });
      out.push(...page.filter((tx) => since === undefined || tx.lt > BigInt(since)));
      const last = page.at(-1);
      if (page.length < TX_PAGE || !last) return out;
      cursor = { lt: last.lt.toString(), hash: last.hash().toString('base64') };
    }
  }

  private async accountStates(addresses: string[]): Promise<AccountStatesResponse['accounts']> {
    const query = new URLSearchParams({ include_boc: 'false' });
    for (const a of addresses) query.append('address', a);
    const res = await fetch(`${this.v3Url}/accountStates?${query.toString()}`, { headers: this.config.apiKey ? { 'X-API-Key': this.config.apiKey } : {} });
    if (!res.ok) throw new Error(`toncenter v3 accountStates answered ${res.status}`);
    return ((await res.json()) as AccountStatesResponse).accounts;
  }

  private async rpc<T>(method: string, params: Record<string, unknown>): Promise<T> {
    const res = await fetch(this.config.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.config.apiKey ? { 'X-API-Key': this.config.apiKey } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { ok: boolean; result?: T; error?: string };
    if (!body.ok || body.result === undefined) throw new Error(`toncenter ${method}: ${body.error ?? res.status}`);
    return body.result;
  }

  /** The jetton wallet `owner` has (or would have) for the master, from the master's `get_wallet_address`. */
  private async jettonWallet(master: string, owner: Address): Promise<Address> {
    const key = `${master}/${rawAddress(owner)}`;
    let wallet = this.jettonWallets.get(key);
    if (!wallet) {
      const { stack } = await this.client.runMethod(Address.parse(master), 'get_wallet_address', [{ type: 'slice', cell: beginCell().storeAddress(owner).endCell() }]);
      wallet = stack.readAddress();
      this.jettonWallets.set(key, wallet);
    }
    return wallet;
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
   * (wallet v5r1 internal authentication) to send the funds on: the deposit never needs TON of its own.
   */
  private async messages(action: ChainAction, treasury: TonWallet): Promise<{ to: Address; messages: MessageRelaxed[] }> {
    const validUntil = Math.floor(Date.now() / 1000) + MESSAGE_VALIDITY_SECONDS;
    const to = Address.parse(action.to);
    const amount = BigInt(action.amountUnits);
    const treasuryAddress = treasury.contract.address;
    if (action.kind === 'transfer') {
      if (isNativeToken(action.tokenAddress)) return { to, messages: [internal({ to, value: amount, bounce: false })] };
      const wallet = await this.jettonWallet(action.tokenAddress, treasuryAddress);
      const body = jettonTransferBody({ queryId: BigInt(Date.now()), amount, destination: to, responseTo: treasuryAddress, forwardTonAmount: JETTON_FORWARD_TON });
      return { to, messages: [internal({ to: wallet, value: JETTON_TRANSFER_VALUE, bounce: true, body })] };
    }
    const deposit = this.depositWalletOf(action.paymentId);
    const depositAddress = deposit.contract.address;
    const deployed = (await this.client.getContractState(depositAddress)).state === 'active';
    const seqno = deployed ? await this.seqno(depositAddress) : 0;
    let request: { message: MessageRelaxed; sendMode: SendMode; gas: bigint };
    if (isNativeToken(action.tokenAddress)) {
      // To the treasury: everything, gas included. Elsewhere (refunds): exactly the amount, fees from the gas sent along.
      request = to.equals(treasuryAddress)
        ? { message: internal({ to, value: 0n, bounce: false }), sendMode: SendMode.CARRY_ALL_REMAINING_BALANCE, gas: SWEEP_GAS }
        : { message: internal({ to, value: amount, bounce: false }), sendMode: SendMode.PAY_GAS_SEPARATELY, gas: SWEEP_GAS };
    } else {
      const wallet = await this.jettonWallet(action.tokenAddress, depositAddress);
      const body = jettonTransferBody({ queryId: BigInt(Date.now()), amount, destination: to, responseTo: treasuryAddress, forwardTonAmount: JETTON_FORWARD_TON });
      request = { message: internal({ to: wallet, value: JETTON_TRANSFER_VALUE, bounce: true, body }), sendMode: SendMode.PAY_GAS_SEPARATELY, gas: SWEEP_GAS + JETTON_TRANSFER_VALUE };
    }
    const signed = signedInternalRequest(deposit, { seqno, validUntil, message: request.message, sendMode: request.sendMode });
    return { to, messages: [internal({ to: depositAddress, value: request.gas, bounce: false, init: deployed ? undefined : deposit.contract.init, body: signed })] };
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
        return Promise.resolve({ rawTx: boc, txHash: hash });
      },
    };
  }

  /** A message already on chain cannot be sent again (its seqno is used): the chain having it is success for the outbox. */
  async broadcast(tx: SignedChainTx): Promise<'sent' | 'known'> {
    try {
      await this.rpc('sendBoc', { boc: tx.rawTx });
      return 'sent';
    } catch (err) {
      if ((await this.findTreasuryTx(tx.txHash)) === null) throw err;
      return 'known';
    }
  }

  /** The treasury transaction whose external message has this normalized hash, among its recent transactions. */
  private async findTreasuryTx(txHash: string): Promise<Transaction | null> {
    const treasury = this.treasuryOrThrow().contract.address;
    const recent = await this.client.getTransactions(treasury, { limit: 100, archival: true });
    return recent.find((tx) => tx.inMessage?.info.type === 'external-in' && normalizedHash(tx.inMessage) === txHash) ?? null;
  }

  /**
   * Mined once the treasury transaction is committed (TON blocks are final then). It succeeded when the treasury's
   * transaction did and, for a sweep, the deposit wallet's transaction that carried the signed request out did too.
   * Any depth is reached then. TON messages are never replaced (a seqno is signed once): the first hash the chain has counts.
   */
  async checkTx(txHashes: string[]): Promise<TxCheck> {
    for (const txHash of txHashes) {
      const tx = await this.findTreasuryTx(txHash);
      if (!tx) continue;
      const head = await this.head();
      let succeeded = ok(tx) && tx.outMessagesCount > 0;
      for (const message of tx.outMessages.values()) {
        if (message.info.type !== 'internal' || !message.init) continue;
        const next = await this.client.tryLocateResultTx(message.info.src, message.info.dest, message.info.createdLt.toString()).catch(() => null);
        if (!next) return { state: 'pending', txHash };
        succeeded &&= ok(next) && next.outMessagesCount > 0;
      }
      return { state: 'mined', txHash, blockNumber: head, succeeded, confirmedAt: new Date(tx.now * 1000).toISOString() };
    }
    return { state: 'unmined' };
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

/** A transaction whose compute and action phases both succeeded. */
function ok(tx: Transaction): boolean {
  const d = tx.description;
  return d.type === 'generic' && !d.aborted && d.computePhase.type === 'vm' && d.computePhase.success;
}

function opOf(tx: Transaction): number | null {
  const body = tx.inMessage?.body.beginParse();
  return body && body.remainingBits >= 32 ? body.loadUint(32) : null;
}
