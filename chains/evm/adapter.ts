import { Contract, JsonRpcProvider, Wallet, ZeroAddress, getAddress, isAddress } from 'ethers';
import { isNativeToken } from '../../domain/payment';
import type { DetectedPayin } from '../../domain/payins';
import type { ChainAction, ChainAdapter, PayinCheck, PaymentDestination, PreparedChainTx, SignedChainTx, TxCheck } from '../family';
import type { EvmChainConfig } from '../registry';
import { depositAddress, erc20Abi, paymentSalt } from './contracts';
import { checkPayin, readNativeTransfers, readTokenTransfers } from './payins';
import { readUsdPriceFeed } from './price-feeds';
import { bridgeBurnCall, bridgeMintCall, broadcastRaw, checkTx, estimateCall, signCall, sweepCall, transferCall, type EvmCall } from './transactions';

/** EIP-681: `ethereum:<token>@<chain>/transfer?address=…&uint256=…` for tokens, `ethereum:<to>@<chain>?value=…` for the coin. */
export function eip681Uri(p: { tokenAddress: string | null; chainId: number; address: string; units: string }): string {
  return p.tokenAddress
    ? `ethereum:${p.tokenAddress}@${p.chainId}/transfer?address=${p.address}&uint256=${p.units}`
    : `ethereum:${p.address}@${p.chainId}?value=${p.units}`;
}

/** An EVM chain: JSON-RPC through ethers, CREATE2 forwarder deposit addresses, ERC-20 `Transfer` logs. */
export class EvmAdapter implements ChainAdapter {
  readonly family = 'evm' as const;
  readonly orderedNonces = true;
  readonly provider: JsonRpcProvider;
  private readonly wallet: Wallet | null;

  constructor(
    readonly config: EvmChainConfig,
    treasuryPrivateKey?: string,
  ) {
    // staticNetwork: the chain id is known, so ethers never issues eth_chainId probes.
    this.provider = new JsonRpcProvider(config.rpcUrl, config.chainId, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 });
    this.wallet = treasuryPrivateKey ? new Wallet(treasuryPrivateKey, this.provider) : null;
  }

  normalizeAddress(address: string): string | null {
    if (!isAddress(address)) return null;
    const normalized = getAddress(address);
    return normalized === ZeroAddress ? null : normalized;
  }

  /** The payment's CREATE2 deposit address; no key exists for it, only the factory can move funds. */
  readonly sharedReceiver = null;

  paymentDestination(depositAddress: string): PaymentDestination {
    return { address: depositAddress, memo: null };
  }

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

  /** One `eth_getLogs` for the configured tokens over the range (plus the blocks' native transfers when the coin is served). */
  async scanPayins(input: { fromBlock: number; toBlock: number; heartbeat: () => void }): Promise<DetectedPayin[]> {
    const { chainId } = this.config;
    const range = { provider: this.provider, chainId, fromBlock: input.fromBlock, toBlock: input.toBlock };
    const tokens = Object.values(this.config.tokens).map((t) => t.address);
    const transfers = await readTokenTransfers({ ...range, tokens });
    input.heartbeat();
    if (this.config.nativeCurrency) transfers.push(...(await readNativeTransfers(range)));
    input.heartbeat();
    return transfers;
  }

  checkPayin(payin: DetectedPayin, depth: number): Promise<PayinCheck> {
    return checkPayin({ provider: this.provider, payin, depth });
  }

  private call(action: ChainAction): EvmCall {
    const bridge = (): string => {
      if (!this.config.bridge) throw new Error(`chain ${this.config.chainId} has no bridge configured`);
      return this.config.bridge;
    };
    switch (action.kind) {
      case 'sweep':
        return sweepCall(this.config, action.paymentId, action.tokenAddress, action.to, action.amountUnits);
      case 'transfer':
        return transferCall(action.tokenAddress, action.to, action.amountUnits);
      case 'bridgeBurn':
        return bridgeBurnCall(bridge(), action.paymentId, action.tokenAddress, action.amountUnits, action.destinationChainId, this.treasuryAddress());
      case 'bridgeMint':
        return bridgeMintCall(bridge(), action.paymentId, action.tokenAddress, action.amountUnits, action.sourceChainId, this.treasuryAddress());
    }
  }

  async prepare(action: ChainAction): Promise<PreparedChainTx> {
    const wallet = this.treasury();
    const call = this.call(action);
    const { pendingNonce, ...fees } = await estimateCall(this.provider, wallet.address, call);
    return {
      signer: wallet.address,
      to: call.to,
      chainPendingNonce: pendingNonce,
      sign: (nonce) => signCall(wallet, this.config.chainId, call, { nonce, ...fees }),
    };
  }

  broadcast(tx: SignedChainTx): Promise<void> {
    return broadcastRaw(this.provider, tx.rawTx, tx.txHash);
  }

  checkTx(txHash: string, depth: number): Promise<TxCheck> {
    return checkTx(this.provider, txHash, depth);
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

  destroy(): void {
    this.provider.destroy();
  }
}
