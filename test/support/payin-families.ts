/**
 * The four non-EVM families as the payin attack tests use them (test/attacks/*-payins.attack.test.ts): each family's
 * chain and payment token on the test stack, a fresh wallet, the customer paying a deposit as its wallet is told,
 * and a balance read on chain. Every test app is its own developer's, registered through the dashboard API.
 */
import { randomBytes } from 'node:crypto';
import { generateKeyPairSigner } from '@solana/kit';
import { keyPairFromSeed } from '@ton/crypto';
import { Address, WalletContractV5R1, beginCell } from '@ton/ton';
import { stackChain, type DevStackInfo, type Stack } from '../../tools/stack/stack';
import { bearer, createKey, login, register, registerBody } from '../merchant/helpers';
import { request } from './http';
import { solanaCustomerTransfer, solanaTokenBalance } from './solana';
import { newStellarUsdcAccount, stellarCustomerPayment, stellarDestination, stellarUsdcBalance } from './stellar';
import { payJetton, tonPayer, type TonPayer } from './ton';
import { newTronAddress, tronCustomerTransfer, tronUsdtBalance } from './tron';

export interface PayinFamily {
  name: 'Solana' | 'TON' | 'Tron' | 'Stellar';
  chainId(info: DevStackInfo): number;
  /** The payment token the tests pay in (and the merchant is paid out in). */
  symbol: string;
  decimals: number;
  /** A wallet nobody used, that can hold the payment token (Stellar: an account with the trustline). */
  newWallet(info: DevStackInfo): Promise<string>;
  /** The devnet customer pays `amount` (decimal) of the payment token to the deposit, as its wallet is told to. */
  pay(info: DevStackInfo, deposit: string, amount: string): Promise<void>;
  /** What `owner` holds of the payment token, read on chain. */
  balance(info: DevStackInfo, owner: string): Promise<bigint>;
}

const tonPayers = new Map<string, Promise<TonPayer>>();

/** The devnet customer's TON wallet, opened once per test run. */
export function tonCustomer(info: DevStackInfo): Promise<TonPayer> {
  const { rpcUrl } = stackChain(info, 'ton');
  let payer = tonPayers.get(rpcUrl);
  if (!payer) {
    payer = tonPayer(rpcUrl, info.customer.ton.mnemonic);
    tonPayers.set(rpcUrl, payer);
  }
  return payer;
}

/** What `owner` holds of a jetton (0 before its jetton wallet exists). */
export async function jettonBalance(info: DevStackInfo, master: string, owner: string): Promise<bigint> {
  const { client } = await tonCustomer(info);
  const { stack } = await client.runMethod(Address.parse(master), 'get_wallet_address', [{ type: 'slice', cell: beginCell().storeAddress(Address.parse(owner)).endCell() }]);
  const wallet = stack.readAddress();
  if ((await client.getContractState(wallet)).state !== 'active') return 0n;
  return (await client.runMethod(wallet, 'get_wallet_data')).stack.readBigNumber();
}

const units = (amount: string, decimals: number): bigint => {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
};

export const PAYIN_FAMILIES: PayinFamily[] = [
  {
    name: 'Solana',
    chainId: (info) => stackChain(info, 'solana').chainId,
    symbol: 'USDC',
    decimals: 6,
    newWallet: async () => (await generateKeyPairSigner()).address,
    pay: async (info, deposit, amount) => {
      await solanaCustomerTransfer(info, 'USDC', deposit, amount);
    },
    balance: (info, owner) => solanaTokenBalance(info, 'USDC', owner),
  },
  {
    name: 'TON',
    chainId: (info) => stackChain(info, 'ton').chainId,
    symbol: 'USDT',
    decimals: 6,
    newWallet: () => Promise.resolve(WalletContractV5R1.create({ workchain: 0, publicKey: keyPairFromSeed(randomBytes(32)).publicKey }).address.toRawString()),
    pay: async (info, deposit, amount) => payJetton(await tonCustomer(info), stackChain(info, 'ton').tokens.USDT.address, deposit, units(amount, 6)),
    balance: (info, owner) => jettonBalance(info, stackChain(info, 'ton').tokens.USDT.address, owner),
  },
  {
    name: 'Tron',
    chainId: (info) => stackChain(info, 'tron').chainId,
    symbol: 'USDT',
    decimals: 6,
    newWallet: () => Promise.resolve(newTronAddress()),
    pay: async (info, deposit, amount) => {
      await tronCustomerTransfer(info, deposit, amount);
    },
    balance: tronUsdtBalance,
  },
  {
    name: 'Stellar',
    chainId: (info) => stackChain(info, 'stellar').chainId,
    symbol: 'USDC',
    decimals: 7,
    newWallet: newStellarUsdcAccount,
    pay: async (info, deposit, amount) => {
      await stellarCustomerPayment(info, stellarDestination(deposit), amount);
    },
    balance: stellarUsdcBalance,
  },
];

export interface FamilyApp {
  appId: string;
  ordersKey: string;
  /** The developer's dashboard session. */
  token: string;
  /** The merchant's payout wallet on the family's chain. */
  payout: string;
}

/** A developer of its own logs in to the dashboard and registers an app paid out on the family's chain, with an Orders key. */
export async function newFamilyApp(stack: Stack, family: PayinFamily): Promise<FamilyApp> {
  const { merchantApiUrl, mailSinkUrl } = stack.info;
  const session = await login(merchantApiUrl, mailSinkUrl!);
  const payout = await family.newWallet(stack.info);
  const app = await register(merchantApiUrl, session.token, registerBody({ payout: { chainId: String(family.chainId(stack.info)), tokenSymbol: family.symbol, address: payout } }));
  const { key } = await createKey(merchantApiUrl, session.token, app.appId, { scope: 'Orders' });
  return { appId: app.appId, ordersKey: key, token: session.token, payout };
}

/** The transfers the dashboard's payment page lists as quarantined for the app's developer. */
export async function dashboardQuarantined(stack: Stack, app: FamilyApp, paymentId: string): Promise<Array<{ tokenAddress: string; amountUnits: string; txHash: string; logIndex: number }>> {
  const res = await request<{ quarantined: Array<{ tokenAddress: string; amountUnits: string; txHash: string; logIndex: number }> }>(
    `${stack.info.merchantApiUrl}/apps/${app.appId}/payments/${paymentId}`,
    { headers: bearer(app.token) },
  );
  if (res.status !== 200) throw new Error(`the dashboard's payment page answered ${res.status}: ${res.text}`);
  return res.body.quarantined;
}
