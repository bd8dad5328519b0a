import { readFileSync } from 'node:fs';
import { Contract, JsonRpcProvider, Wallet, parseUnits } from 'ethers';
import { erc20Abi } from '../chains/contracts';
import type { DevStackInfo } from './stack';

/** `npm run pay -- <paymentId> [amount]`: pays a devnet payment from the stack's funded customer wallet. */
async function main(): Promise<void> {
  const [paymentId, amountOverride] = process.argv.slice(2);
  if (!paymentId) throw new Error('usage: npm run pay -- <paymentId> [amount]');
  const info = JSON.parse(readFileSync(process.env.PAYRAIL_DEV_STACK ?? 'var/dev-stack.json', 'utf8')) as DevStackInfo;
  const res = await fetch(`${info.paymentApiUrl}/payments/${paymentId}`);
  if (!res.ok) throw new Error(`payment ${paymentId}: HTTP ${res.status} ${await res.text()}`);
  const payment = (await res.json()) as { source: { chainId: string; tokenSymbol: string; amount: string; receiverAddress: string } };
  const chain = info.chains.find((c) => String(c.chainId) === payment.source.chainId);
  const token = chain?.tokens[payment.source.tokenSymbol as 'USDC' | 'USDT'];
  if (!chain || !token) throw new Error(`the devnet has no ${payment.source.tokenSymbol} on chain ${payment.source.chainId}`);
  const provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true });
  const customer = new Wallet(info.customer.privateKey, provider);
  const erc20 = new Contract(token.address, erc20Abi, customer);
  const amount = amountOverride ?? payment.source.amount;
  const tx = (await erc20.getFunction('transfer')(payment.source.receiverAddress, parseUnits(amount, token.decimals))) as { hash: string; wait(): Promise<unknown> };
  await tx.wait();
  console.log(`paid ${amount} ${payment.source.tokenSymbol} to ${payment.source.receiverAddress} on ${chain.name}: ${tx.hash}`);
  provider.destroy();
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
