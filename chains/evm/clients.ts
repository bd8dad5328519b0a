import { Contract, Interface, JsonRpcProvider, Wallet, id } from 'ethers';
import { isNativeToken } from '../../domain/payment';
import { depositAddress, erc20Abi, paymentSalt } from './contracts';
import { ChainRegistry } from '../registry';

export const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');
export const erc20Interface = new Interface(erc20Abi);

/** One JSON-RPC provider per configured chain, created once and shared by every activity. */
export class EvmChains {
  private readonly providers = new Map<number, JsonRpcProvider>();

  constructor(readonly registry: ChainRegistry) {}

  provider(chainId: number): JsonRpcProvider {
    let provider = this.providers.get(chainId);
    if (!provider) {
      const chain = this.registry.chain(chainId);
      // staticNetwork: the chain id is known, so ethers never issues eth_chainId probes.
      provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 });
      this.providers.set(chainId, provider);
    }
    return provider;
  }

  treasury(chainId: number, privateKey: string): Wallet {
    return new Wallet(privateKey, this.provider(chainId));
  }

  /** What `owner` holds of `tokenAddress` (or the native coin) on `chainId` now, in base units. */
  async balanceOf(chainId: number, tokenAddress: string, owner: string): Promise<bigint> {
    const provider = this.provider(chainId);
    if (isNativeToken(tokenAddress)) return provider.getBalance(owner);
    return (await new Contract(tokenAddress, erc20Abi, provider).getFunction('balanceOf')(owner)) as bigint;
  }

  /** The payment's CREATE2 deposit address on `chainId`; no key exists for it, only the factory can move funds. */
  depositAddressFor(chainId: number, paymentId: string): string {
    const chain = this.registry.chain(chainId);
    return depositAddress(chain.depositFactory, paymentSalt(paymentId), chain.forwarderInitCodeHash);
  }

  destroy(): void {
    for (const provider of this.providers.values()) provider.destroy();
    this.providers.clear();
  }
}

/** The configured chains (`PAYRAIL_CHAINS_FILE`) with their clients. */
export const loadEvmChains = (chainsFile: string): EvmChains => new EvmChains(ChainRegistry.fromFile(chainsFile));
