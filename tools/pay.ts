import { readFileSync } from 'node:fs';
import { Contract, JsonRpcProvider, Wallet, parseUnits } from 'ethers';
import { erc20Abi } from '../chains/evm/contracts';
import type { PageState } from '../services/pay-page';
import { devStackInfoFile, devVarDir } from './stack/launch';
import type { DevStackInfo } from './stack/stack';

/**
 * `npm run pay -- <payment id | order id> [amount]`: pays a devnet payment, or a legacy order whose currency is
 * chosen, from the stack's funded customer wallet. Reads what to send from the hosted page's state.
 */
async function main(): Promise<void> {
  const [id, amountOverride] = process.argv.slice(2);
  if (!id) throw new Error('usage: npm run pay -- <payment id | order id> [amount]');
  const infoFile = process.env.PAYRAIL_DEV_STACK ?? devStackInfoFile(devVarDir());
  const info = JSON.parse(readFileSync(infoFile, 'utf8')) as DevStackInfo;
  let res = await fetch(`${info.legacyApiUrl}/pay/${id}/state`);
  if (res.status === 404) res = await fetch(`${info.legacyApiUrl}/pay/order/${id}/state`);
  if (!res.ok) throw new Error(`${id}: HTTP ${res.status} ${await res.text()}`);
  const { payment } = (await res.json()) as PageState;
  if (!payment) throw new Error(`order ${id} has no payment yet: choose a currency on its payment page first`);
  const chain = info.chains.find((c) => c.chainId === payment.chain_id);
  if (!chain) throw new Error(`the devnet has no chain ${payment.chain_id}`);
  if (chain.family !== 'evm') throw new Error(`npm run pay pays on the EVM devnets; pay ${chain.name} with its family's wallet (customer.${chain.family} in ${infoFile})`);
  const provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true });
  const customer = new Wallet(info.customer.evm.privateKey, provider);
  let tx: { hash: string; wait(): Promise<unknown> };
  if (payment.token_address === null) {
    const value = amountOverride ? parseUnits(amountOverride, 18) : BigInt(payment.units);
    tx = await customer.sendTransaction({ to: payment.address, value });
  } else {
    const erc20 = new Contract(payment.token_address, erc20Abi, customer);
    const units = amountOverride ? parseUnits(amountOverride, Number(await erc20.getFunction('decimals')())) : BigInt(payment.units);
    tx = (await erc20.getFunction('transfer')(payment.address, units)) as typeof tx;
  }
  await tx.wait();
  console.log(`paid ${amountOverride ?? payment.amount} ${payment.symbol} to ${payment.address} on ${chain.name}: ${tx.hash}`);
  provider.destroy();
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
