import { readFileSync } from 'node:fs';
import { Contract, JsonRpcProvider, Wallet, parseUnits } from 'ethers';
import { erc20Abi } from '../chains/evm/contracts';
import { parseUnits as parseDecimal } from '../domain/money';
import type { PageState } from '../services/pay-page';
import { solanaTokenTransfer, type SolanaTokenSymbol } from '../test/support/solana';
import { stellarDestination, stellarPayment } from '../test/support/stellar';
import { payJetton, payTon, tonPayer, type TonPayer } from '../test/support/ton';
import { tronTransfer } from '../test/support/tron';
import type { DevStackCustomers } from './devnets/families';
import { devStackInfoFile, devVarDir } from './stack/launch';
import { stackChain, type DevStackChain, type DevStackInfo } from './stack/stack';

/** What a wallet is told to pay: the deposit on a chain, and the token (null: the chain's coin). */
export type WalletPayment = Pick<NonNullable<PageState['payment']>, 'chain_id' | 'address' | 'symbol' | 'token_address'>;

/** Nanotons in a TON. */
const TON_DECIMALS = 9;
/** Wei in an ether. */
const ETHER_DECIMALS = 18;

/** A TON wallet app derives its key once (the mnemonic's key derivation is slow), then keeps it open. */
const tonPayers = new Map<string, Promise<TonPayer>>();
export function openTonWallet(info: DevStackInfo, mnemonic: string[]): Promise<TonPayer> {
  const key = mnemonic.join(' ');
  let payer = tonPayers.get(key);
  if (!payer) {
    payer = tonPayer(stackChain(info, 'ton').rpcUrl, mnemonic);
    tonPayers.set(key, payer);
  }
  return payer;
}

type FamilyPayer = (info: DevStackInfo, wallet: DevStackCustomers[keyof DevStackCustomers], chain: DevStackChain, payment: WalletPayment, amount: string) => Promise<string>;

/**
 * How a wallet of each family pays `amount` (decimal) of the payment's token to its deposit, as a wallet does: it
 * reads its nonce, blockhash or seqno, signs, sends, and waits until the transfer is in a block. Returns what
 * identifies the transfer.
 */
const FAMILY_PAYERS: { [F in DevStackChain['family']]: (info: DevStackInfo, wallet: DevStackCustomers[F], chain: Extract<DevStackChain, { family: F }>, payment: WalletPayment, amount: string) => Promise<string> } = {
  evm: async (_info, wallet, chain, payment, amount) => {
    const provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true });
    try {
      const signer = new Wallet(wallet.privateKey, provider);
      let tx: { hash: string; wait(): Promise<unknown> };
      if (payment.token_address === null) {
        tx = await signer.sendTransaction({ to: payment.address, value: parseUnits(amount, ETHER_DECIMALS) });
      } else {
        const erc20 = new Contract(payment.token_address, erc20Abi, signer);
        const units = parseUnits(amount, Number(await erc20.getFunction('decimals')()));
        tx = (await erc20.getFunction('transfer')(payment.address, units)) as typeof tx;
      }
      await tx.wait();
      return tx.hash;
    } finally {
      provider.destroy();
    }
  },
  solana: (info, wallet, _chain, payment, amount) => solanaTokenTransfer(info, payment.symbol as SolanaTokenSymbol, { from: wallet.secretKey }, payment.address, amount),
  tron: (info, wallet, _chain, payment, amount) => tronTransfer(info, wallet, payment.address, amount),
  stellar: (info, wallet, _chain, payment, amount) => stellarPayment(info, wallet.secret, stellarDestination(payment.address), amount),
  ton: async (info, wallet, chain, payment, amount) => {
    const payer = await openTonWallet(info, wallet.mnemonic);
    // The devnet's one jetton is its USDT.
    if (payment.token_address === null) await payTon(payer, payment.address, parseDecimal(amount, TON_DECIMALS));
    else await payJetton(payer, payment.token_address, payment.address, parseDecimal(amount, chain.tokens.USDT.decimals));
    return `from ${payer.wallet.address.toString()}`;
  },
};

/**
 * Pays `amount` (decimal) of a devnet payment from `wallets`' wallet of the payment's chain family (the stack's
 * funded customer wallets, or others funded from them); returns what identifies the transfer.
 */
export async function payFromWallet(info: DevStackInfo, wallets: DevStackCustomers, payment: WalletPayment, amount: string): Promise<{ chain: DevStackChain; sent: string }> {
  const chain = info.chains.find((c) => c.chainId === payment.chain_id);
  if (!chain) throw new Error(`the devnet has no chain ${payment.chain_id}`);
  const pay = FAMILY_PAYERS[chain.family] as FamilyPayer;
  return { chain, sent: await pay(info, wallets[chain.family], chain, payment, amount) };
}

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
  const amount = amountOverride ?? payment.amount;
  const { chain, sent } = await payFromWallet(info, info.customer, payment, amount);
  console.log(`paid ${amount} ${payment.symbol} to ${payment.address} on ${chain.name}: ${sent}`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
