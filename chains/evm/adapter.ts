import { Contract, JsonRpcProvider, Wallet, getAddress, isError, type TransactionReceipt } from 'ethers';
import { isNativeToken } from '../../domain/payment';
import type { DetectedPayin } from '../../domain/payins';
import type { BridgeEndpoint } from '../bridges/endpoint';
import { TxRefused, TxWouldRevert, type ChainAction, type ChainAdapter, type NativeEffects, type PayinCheck, type PreparedChainTx, type SentChainTx, type SignedChainTx, type TxCheck, type TxCost, type TxFees, type TxReplacement, type WalletRequest } from '../family';
import type { EvmChainConfig } from './config';
import { depositAddress, erc20Abi, erc20Interface, paymentSalt } from './contracts';
import { checkPayin, readNativeTransfers, readTokenTransfers } from './payins';
import './http';
import { readUsdPriceFeed } from './price-feeds';
import { RecentReads } from '../recent-reads';
import { MinedReceipts } from './receipts';
import { broadcastRaw, bumpedFees, checkTx, currentFees, estimateCall, estimateCallCost, isRevert, signCall, signedCall, sweepCall, transferCall, type BlockReads, type EvmCall } from './transactions';

/** EIP-681: `ethereum:<token>@<chain>/transfer?address=…&uint256=…` for tokens, `ethereum:<to>@<chain>?value=…` for the coin. */
export function eip681Uri(p: { tokenAddress: string | null; chainId: number; address: string; units: string }): string {
  return p.tokenAddress
    ? `ethereum:${p.tokenAddress}@${p.chainId}/transfer?address=${p.address}&uint256=${p.units}`
    : `ethereum:${p.address}@${p.chainId}?value=${p.units}`;
}

/** A receipt's fields as JSON-RPC sends them (quantities in hex); `l1Fee` on an OP Stack chain. */
interface RawReceipt {
  status: string;
  from: string;
  gasUsed: string;
  effectiveGasPrice?: string;
  l1Fee?: string;
}

/** An EVM chain: JSON-RPC through ethers, CREATE2 forwarder deposit addresses, ERC-20 `Transfer` logs. */
export class EvmAdapter implements ChainAdapter {
  /** Each transaction carries the signer's next nonce; several wait in the mempool at consecutive nonces. */
  readonly sequencing = 'nonce';
  readonly provider: JsonRpcProvider;
  readonly bridgeEndpoint: BridgeEndpoint;
  readonly replacement: TxReplacement;
  private readonly wallet: Wallet | null;
  /** What every check of a payin or transaction reads: a hundred waits read the head and a block once a moment. */
  private readonly blocks: BlockReads = {
    head: () => this.shared.read(RecentReads.HEAD, () => this.head()),
    block: (blockNumber) => this.shared.read(`block:${blockNumber}`, () => this.provider.getBlock(blockNumber)),
    receipt: (txHash) => this.receipts.get(txHash),
  };
  private readonly receipts = new MinedReceipts<TransactionReceipt>({
    receipt: (txHash) => this.provider.getTransactionReceipt(txHash),
    blockHash: async (blockNumber) => (await this.blocks.block(blockNumber))?.hash ?? null,
  });

  /**
   * `shared`: the node's answers that change only with a block, shared between this process's callers for a moment
   * (the chain's own, from `ChainAdapters`, so the head read here is the one its waits share).
   */
  constructor(
    readonly config: EvmChainConfig,
    treasuryPrivateKey?: string,
    private readonly shared = new RecentReads(),
  ) {
    // staticNetwork: the chain id is known, so ethers never issues eth_chainId probes.
    this.provider = new JsonRpcProvider(config.rpcUrl, config.chainId, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 });
    this.wallet = treasuryPrivateKey ? new Wallet(treasuryPrivateKey, this.provider) : null;
    // CCTP and OFT reach the chain through its bridge contracts of the chains file, its provider and its treasury.
    this.bridgeEndpoint = {
      cctp: config.cctp,
      oft: config.oft,
      tokenAddress: (symbol) => config.tokens[symbol]?.address,
      provider: this.provider,
      treasuryAddress: () => this.treasuryAddress(),
      // The bridges' approvals, burns, sends and mints.
      prepareCall: (call) => this.prepareCall(call),
    };
    this.replacement = {
      afterBlocks: config.replaceAfterBlocks,
      minedNonce: (signer) => this.shared.read(`mined:${signer}`, () => this.provider.getTransactionCount(signer, 'latest')),
      pendingNonce: (signer) => this.shared.read(`pending:${signer}`, () => this.provider.getTransactionCount(signer, 'pending')),
      resign: (rawTx, options) => this.resign(rawTx, options),
    };
  }

  /** The payment's CREATE2 deposit address; no key exists for it, only the factory can move funds. */
  depositAddress(paymentId: string): string {
    return depositAddress(this.config.depositFactory, paymentSalt(paymentId), this.config.forwarderInitCodeHash);
  }

  treasuryAddress(): string {
    return this.treasury().address;
  }

  private treasury(): Wallet {
    if (!this.wallet) throw new Error(`no treasury key is configured for chain ${this.config.chainId}`);
    return this.wallet;
  }

  head(): Promise<number> {
    return this.provider.getBlockNumber();
  }

  async blockHash(n: number): Promise<string | null> {
    return (await this.provider.getBlock(n))?.hash ?? null;
  }

  async blockTime(n: number): Promise<number | null> {
    return (await this.provider.getBlock(n))?.timestamp ?? null;
  }

  /**
   * One `eth_getLogs` for every token's `Transfer` over the range (the caller keeps those into its deposits and
   * tells configured tokens from others), plus the blocks' native transfers when the coin is served.
   */
  async scanPayins(input: { fromBlock: number; toBlock: number; heartbeat: () => void }): Promise<DetectedPayin[]> {
    const range = { provider: this.provider, chainId: this.config.chainId, fromBlock: input.fromBlock, toBlock: input.toBlock };
    const transfers = await readTokenTransfers(range);
    input.heartbeat();
    if (this.config.nativeCurrency) transfers.push(...(await readNativeTransfers(range)));
    input.heartbeat();
    return transfers;
  }

  checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck> {
    return checkPayin({ provider: this.provider, blocks: this.blocks, payin, depth });
  }

  private call(action: ChainAction): EvmCall {
    switch (action.kind) {
      case 'sweep':
        return sweepCall(this.config, action.paymentId, action.tokenAddress, action.to, action.amountUnits);
      case 'transfer':
        return transferCall(action.tokenAddress, action.to, action.amountUnits);
    }
  }

  prepare(action: ChainAction): Promise<PreparedChainTx> {
    return this.prepareCall(this.call(action));
  }

  /** Any contract call from the treasury; TxWouldRevert when the estimate reverts. */
  private async prepareCall(call: EvmCall): Promise<PreparedChainTx> {
    const wallet = this.treasury();
    const shared = { fees: this.fees(), pendingNonce: this.replacement.pendingNonce(wallet.address) };
    const estimate = await estimateCall(this.provider, wallet.address, call, shared).catch((err: unknown) => {
      throw isRevert(err) ? new TxWouldRevert(`the call to ${call.to} would revert`, { cause: err }) : err;
    });
    const { pendingNonce, ...fees } = estimate;
    return {
      signer: wallet.address,
      to: call.to,
      chainPendingNonce: pendingNonce,
      sign: async (nonce) => ({ ...(await signCall(wallet, this.config.chainId, call, { nonce, ...fees })), fees }),
    };
  }

  /** The call's gas estimate at the fees it would be signed with; a call that would revert throws TxWouldRevert. */
  async estimateCost(action: ChainAction): Promise<TxCost> {
    const call = this.call(action);
    const feeUnits = await estimateCallCost(this.provider, this.treasury().address, call, this.fees()).catch((err: unknown) => {
      throw isRevert(err) ? new TxWouldRevert(`the call to ${call.to} would revert`, { cause: err }) : err;
    });
    return { feeUnits, feeDecimals: this.config.nativeCurrency?.decimals ?? 18 };
  }

  async broadcast(tx: SignedChainTx): Promise<'sent' | 'known' | 'nonce-used'> {
    return broadcastRaw(this.provider, tx.rawTx, tx.txHash).catch((err: unknown) => {
      // The signer cannot pay the gas: sending the bytes again changes nothing until someone funds it.
      throw isError(err, 'INSUFFICIENT_FUNDS') ? new TxRefused(`chain ${this.config.chainId} refused ${tx.txHash}: ${(err as Error).message}`, { cause: err }) : err;
    });
  }

  checkTx(txHashes: string[], depth: number, sent?: SentChainTx): Promise<TxCheck> {
    return checkTx(this.blocks, txHashes, depth, sent?.action ?? undefined);
  }

  /**
   * The fees to sign with now, shared for a moment: a hundred payouts signed together read them once. A pending nonce
   * read that moment ago can only be lower than now, and both of its uses take that: the nonce row keeps the higher
   * of its own and the chain's, and a broadcast re-sends what it thinks missing (the node knows it already).
   */
  private fees(): Promise<TxFees> {
    return this.shared.read('fees', () => currentFees(this.provider));
  }

  /** Signs the stored call again: at `nonce` with the fees the network asks now, or at its own nonce outbidding it. */
  private async resign(rawTx: string, options: { nonce: number | null }) {
    const previous = signedCall(rawTx);
    const now = await this.fees();
    // A new nonce needs only what the network asks now; the same nonce must outbid the stuck transaction.
    const nonce = options.nonce ?? previous.nonce;
    const fees = options.nonce === null ? bumpedFees(previous.fees, now) : now;
    const signed = await signCall(this.treasury(), this.config.chainId, previous.call, { nonce, gasLimit: previous.gasLimit, ...fees });
    return { ...signed, nonce, fees };
  }

  /**
   * From the receipt: the sender paid `gasUsed × effectiveGasPrice` (and an OP Stack chain's `l1Fee`, when the receipt
   * has one); a successful transaction moved its value to `to`, and a native sweep the amount out of the deposit (the
   * factory's forwarder sends exactly it, or the call reverts: an internal call no receipt lists).
   */
  async nativeEffects(tx: { txHash: string; action: ChainAction | null }): Promise<NativeEffects> {
    // The receipt as the node sends it: ethers' parsed receipt drops the `l1Fee` an OP Stack chain adds.
    const [receipt, sent] = await Promise.all([
      this.provider.send('eth_getTransactionReceipt', [tx.txHash]) as Promise<RawReceipt | null>,
      this.provider.getTransaction(tx.txHash),
    ]);
    if (!receipt || !sent) throw new Error(`chain ${this.config.chainId}: transaction ${tx.txHash} is not mined`);
    const fee = BigInt(receipt.gasUsed) * (receipt.effectiveGasPrice ? BigInt(receipt.effectiveGasPrice) : sent.gasPrice) + (receipt.l1Fee ? BigInt(receipt.l1Fee) : 0n);
    const succeeded = BigInt(receipt.status) === 1n;
    const changes: NativeEffects['changes'] = [];
    if (succeeded && sent.value > 0n && sent.to) changes.push({ address: sent.from, deltaUnits: -sent.value }, { address: sent.to, deltaUnits: sent.value });
    const action = tx.action;
    if (succeeded && action?.kind === 'sweep' && isNativeToken(action.tokenAddress)) {
      const amount = BigInt(action.amountUnits);
      changes.push({ address: this.depositAddress(action.paymentId), deltaUnits: -amount }, { address: action.to, deltaUnits: amount });
    }
    return { fees: [{ address: getAddress(receipt.from), units: fee }], changes };
  }

  async balanceOf(owner: string, tokenAddress: string): Promise<bigint> {
    if (isNativeToken(tokenAddress)) return this.provider.getBalance(owner);
    return (await new Contract(tokenAddress, erc20Abi, this.provider).getFunction('balanceOf')(owner)) as bigint;
  }

  readUsdPriceFeed(feed: string, options: { maxAgeSeconds: number; nowSeconds: number }) {
    return readUsdPriceFeed(this.provider, feed, options);
  }

  readonly explorer = {
    tx: (txHash: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/tx/${txHash}` : null),
    address: (address: string) => (this.config.explorerUrl ? `${this.config.explorerUrl}/address/${address}` : null),
  };

  paymentUri(input: { address: string; tokenAddress: string | null; amountUnits: string }): string {
    const token = input.tokenAddress && !isNativeToken(input.tokenAddress) ? input.tokenAddress : null;
    return eip681Uri({ tokenAddress: token, chainId: this.config.chainId, address: input.address, units: input.amountUnits });
  }

  /** EIP-1193: the chain to switch to (or add), and the token's `transfer` (or the plain value transfer) to the deposit. */
  walletRequest(input: { address: string; tokenAddress: string | null; amountUnits: string }): Promise<WalletRequest> {
    const token = input.tokenAddress && !isNativeToken(input.tokenAddress) ? input.tokenAddress : null;
    const native = this.config.nativeCurrency;
    const value = `0x${BigInt(input.amountUnits).toString(16)}`;
    return Promise.resolve({
      standard: 'eip1193',
      chainIdHex: `0x${this.config.chainId.toString(16)}`,
      chainName: this.config.name,
      rpcUrls: this.config.walletRpcUrl ? [this.config.walletRpcUrl] : [],
      nativeCurrency: { name: native?.symbol ?? 'ETH', symbol: native?.symbol ?? 'ETH', decimals: native?.decimals ?? 18 },
      blockExplorerUrls: this.config.explorerUrl ? [this.config.explorerUrl] : [],
      tokenAddress: token,
      recipient: input.address,
      amountUnits: input.amountUnits,
      transaction: token
        ? { to: token, value: '0x0', data: erc20Interface.encodeFunctionData('transfer', [input.address, BigInt(input.amountUnits)]) }
        : { to: input.address, value, data: '0x' },
    });
  }

  destroy(): void {
    this.provider.destroy();
  }
}
