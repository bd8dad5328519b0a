import { Contract, ContractFactory, JsonRpcProvider, Transaction, Wallet, parseUnits } from 'ethers';
import { compileContracts } from '../../tools/devnets/evm/compile';
import { erc20Abi } from '../../chains/evm/contracts';
import type { DevStackInfo, StackChain } from '../../tools/stack/stack';

const providers = new Map<string, JsonRpcProvider>();

/** The stack's EVM devnet chain with this id. */
export function evmChain(info: DevStackInfo, chainId: number | string): StackChain<'evm'> {
  const chain = info.chains.find((c): c is StackChain<'evm'> => c.family === 'evm' && String(c.chainId) === String(chainId));
  if (!chain) throw new Error(`no EVM devnet chain ${chainId}`);
  return chain;
}

export function providerFor(info: DevStackInfo, chainId: number | string): JsonRpcProvider {
  const chain = evmChain(info, chainId);
  let provider = providers.get(chain.rpcUrl);
  if (!provider) {
    provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true, cacheTimeout: -1 });
    providers.set(chain.rpcUrl, provider);
  }
  return provider;
}

export function tokenAddress(info: DevStackInfo, chainId: number | string, symbol: 'USDC' | 'USDT'): string {
  return evmChain(info, chainId).tokens[symbol].address;
}

export async function tokenBalance(info: DevStackInfo, chainId: number | string, symbol: 'USDC' | 'USDT', owner: string): Promise<bigint> {
  const erc20 = new Contract(tokenAddress(info, chainId, symbol), erc20Abi, providerFor(info, chainId));
  return (await erc20.getFunction('balanceOf')(owner)) as bigint;
}

/**
 * A transfer of `amount` (decimal) of `symbol` to `to`, signed by the devnet customer at its pending nonce but not
 * sent yet (`raw`): `send()` broadcasts it and resolves once it is mined. Sending it again after a reorg dropped it
 * re-includes the same transaction (same hash), as a real network does with a dropped transaction.
 */
export async function signCustomerTransfer(
  info: DevStackInfo,
  chainId: number | string,
  symbol: 'USDC' | 'USDT',
  to: string,
  amount: string,
): Promise<{ hash: string; raw: string; send(): Promise<void> }> {
  const provider = providerFor(info, chainId);
  const customer = new Wallet(info.customer.evm.privateKey, provider);
  const erc20 = new Contract(tokenAddress(info, chainId, symbol), erc20Abi, provider);
  const call = await erc20.getFunction('transfer').populateTransaction(to, parseUnits(amount, 6));
  const raw = await customer.signTransaction(await customer.populateTransaction(call));
  return {
    hash: Transaction.from(raw).hash!,
    raw,
    async send() {
      await (await provider.broadcastTransaction(raw)).wait();
    },
  };
}

/** The devnet customer sends `amount` (decimal) of `symbol` to `to`; resolves once mined. Returns the tx hash. */
export async function customerTransfer(
  info: DevStackInfo,
  chainId: number | string,
  symbol: 'USDC' | 'USDT',
  to: string,
  amount: string,
): Promise<string> {
  const transfer = await signCustomerTransfer(info, chainId, symbol, to, amount);
  await transfer.send();
  return transfer.hash;
}

/**
 * An ERC-20 that no chain config lists, deployed by the devnet customer as "USD Coin" (USDC, 6 decimals) with 1,000
 * minted to the customer: `send` transfers `amount` (decimal) of it and resolves with the hash once mined.
 */
export async function deployFakeStablecoin(info: DevStackInfo, chainId: number | string): Promise<{ address: string; send(to: string, amount: string): Promise<string> }> {
  const customer = new Wallet(info.customer.evm.privateKey, providerFor(info, chainId));
  const { abi, bytecode } = compileContracts().TestStablecoin!;
  const fake = (await new ContractFactory(abi, bytecode, customer).deploy('USD Coin', 'USDC', 6)) as Contract;
  await fake.waitForDeployment();
  const mined = async (tx: Promise<unknown>) => {
    const sent = (await tx) as { hash: string; wait(): Promise<unknown> };
    await sent.wait();
    return sent.hash;
  };
  await mined(fake.getFunction('mint')(customer.address, parseUnits('1000', 6)));
  return { address: await fake.getAddress(), send: (to, amount) => mined(fake.getFunction('transfer')(to, parseUnits(amount, 6))) };
}

export function destroyProviders(): void {
  for (const provider of providers.values()) provider.destroy();
  providers.clear();
}
