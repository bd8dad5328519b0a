import { readFileSync } from 'node:fs';
import { Contract, JsonRpcProvider, Wallet, parseUnits } from 'ethers';
import { erc20Abi } from '../chains/evm/contracts';
import { parseUnits as parseDecimal } from '../domain/money';
import type { PageState } from '../services/pay-page';
import { solanaCustomerTransfer, type SolanaTokenSymbol } from '../test/support/solana';
import { stellarCustomerPayment, stellarDestination } from '../test/support/stellar';
import { payJetton, payTon, tonPayer } from '../test/support/ton';
import { tronCustomerTransfer } from '../test/support/tron';
import { devStackInfoFile, devVarDir } from './stack/launch';
import { stackChain, type DevStackChain, type DevStackInfo } from './stack/stack';

type PagePayment = NonNullable<PageState['payment']>;

/** Nanotons in a TON. */
const TON_DECIMALS = 9;

/**
 * How the stack's customer wallet of each non-EVM family pays `amount` (decimal) of the payment's token to its
 * deposit, as a wallet does (the devnet customer payers of test/support); returns what identifies the transfer.
 */
const FAMILY_PAYERS: Record<Exclude<DevStackChain['family'], 'evm'>, (info: DevStackInfo, payment: PagePayment, amount: string) => Promise<string>> = {
  solana: (info, payment, amount) => solanaCustomerTransfer(info, payment.symbol as SolanaTokenSymbol, payment.address, amount),
  tron: (info, payment, amount) => tronCustomerTransfer(info, payment.address, amount),
  stellar: (info, payment, amount) => stellarCustomerPayment(info, stellarDestination(payment.address), amount),
  ton: async (info, payment, amount) => {
    const ton = stackChain(info, 'ton');
    const payer = await tonPayer(ton.rpcUrl, info.customer.ton.mnemonic);
    // The devnet's one jetton is its USDT.
    if (payment.token_address === null) await payTon(payer, payment.address, parseDecimal(amount, TON_DECIMALS));
    else await payJetton(payer, payment.token_address, payment.address, parseDecimal(amount, ton.tokens.USDT.decimals));
    return `from ${payer.wallet.address.toString()}`;
  },
};

/**
 * `npm run pay -- <payment id | order id> [amount]`: pays a devnet payment, or a legacy order whose currency is
 * chosen, from the stack's funded customer wallet of the payment's chain family (EVM, Solana, Tron, TON, Stellar).
 * Reads what to send from the hosted page's state.
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
  if (chain.family !== 'evm') {
    const amount = amountOverride ?? payment.amount;
    const sent = await FAMILY_PAYERS[chain.family](info, payment, amount);
    console.log(`paid ${amount} ${payment.symbol} to ${payment.address} on ${chain.name}: ${sent}`);
    return;
  }
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
