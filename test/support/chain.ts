import { Contract, JsonRpcProvider, Wallet, parseUnits } from 'ethers';
import { erc20Abi } from '../../chains/evm/contracts';
import type { DevStackInfo } from '../../scripts/stack';

const providers = new Map<string, JsonRpcProvider>();

export function providerFor(info: DevStackInfo, chainId: number | string): JsonRpcProvider {
  const chain = info.chains.find((c) => String(c.chainId) === String(chainId));
  if (!chain) throw new Error(`no devnet chain ${chainId}`);
  let provider = providers.get(chain.rpcUrl);
  if (!provider) {
    provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true, cacheTimeout: -1 });
    providers.set(chain.rpcUrl, provider);
  }
  return provider;
}

export function tokenAddress(info: DevStackInfo, chainId: number | string, symbol: 'USDC' | 'USDT'): string {
  const chain = info.chains.find((c) => String(c.chainId) === String(chainId));
  if (!chain) throw new Error(`no devnet chain ${chainId}`);
  return chain.tokens[symbol].address;
}

export async function tokenBalance(info: DevStackInfo, chainId: number | string, symbol: 'USDC' | 'USDT', owner: string): Promise<bigint> {
  const erc20 = new Contract(tokenAddress(info, chainId, symbol), erc20Abi, providerFor(info, chainId));
  return (await erc20.getFunction('balanceOf')(owner)) as bigint;
}

/** The devnet customer sends `amount` (decimal) of `symbol` to `to`; resolves once mined. Returns the tx hash. */
export async function customerTransfer(
  info: DevStackInfo,
  chainId: number | string,
  symbol: 'USDC' | 'USDT',
  to: string,
  amount: string,
): Promise<string> {
  const customer = new Wallet(info.customer.privateKey, providerFor(info, chainId));
  const erc20 = new Contract(tokenAddress(info, chainId, symbol), erc20Abi, customer);
  const tx = (await erc20.getFunction('transfer')(to, parseUnits(amount, 6))) as { hash: string; wait(): Promise<unknown> };
  await tx.wait();
  return tx.hash;
}

export function destroyProviders(): void {
  for (const provider of providers.values()) provider.destroy();
  providers.clear();
}
