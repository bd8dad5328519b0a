/**
 * "TON reports a payout complete before the money arrives": a transfer was booked as done when the treasury's own
 * transaction was in, a block or more before the merchant held it (and a bounced jetton transfer would have counted
 * as a success). On the real stack, per family: the API is polled as fast as a merchant's integration would, and at
 * the moment it first reports `payment_payout_completed` (or `payment_completed`), the merchant's wallet is read
 * from the merchant's side with that family's own client library: it already holds the payout.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { generateKeyPairSigner } from '@solana/kit';
import { keyPairFromSeed } from '@ton/crypto';
import { Address, TonClient, WalletContractV5R1, beginCell } from '@ton/ton';
import { Wallet } from 'ethers';
import { parseUnits } from '../../domain/money';
import type { PaymentStatus } from '../../domain/payment';
import { stackChain, type DevStackInfo, type Stack } from '../../tools/stack/stack';
import { newMerchant } from '../support/merchant';
import { createPayment, getPayment, paymentBody } from '../support/api';
import { customerTransfer, tokenBalance } from '../support/chain';
import { connectServices, type StackServices } from '../support/services';
import { solanaCustomerTransfer, solanaTokenBalance } from '../support/solana';
import { getStack } from '../support/stack';
import { newStellarUsdcAccount, stellarCustomerPayment, stellarDestination, stellarUsdcBalance } from '../support/stellar';
import { payJetton, tonPayer } from '../support/ton';
import { newTronAddress, tronCustomerTransfer, tronUsdtBalance } from '../support/tron';

/** FEE_BPS=50 in the test stack. */
const afterFee = (units: bigint) => units - (units * 50n) / 10_000n;
const DONE: PaymentStatus[] = ['payment_payout_completed', 'payment_completed'];

interface Family {
  name: string;
  chainId: (info: DevStackInfo) => number;
  symbol: string;
  decimals: number;
  newWallet: (info: DevStackInfo) => Promise<string>;
  pay: (info: DevStackInfo, deposit: string, amount: string) => Promise<unknown>;
  /** Read with the family's own client library, as the merchant's wallet app reads it. */
  holds: (info: DevStackInfo, wallet: string) => Promise<bigint>;
}

/** The merchant's USDT on TON: its jetton wallet's `get_wallet_data`, 0 while that wallet has no code. */
async function tonUsdtBalance(info: DevStackInfo, owner: string): Promise<bigint> {
  const ton = stackChain(info, 'ton');
  const client = new TonClient({ endpoint: ton.rpcUrl });
  const { stack } = await client.runMethod(Address.parse(ton.tokens.USDT.address), 'get_wallet_address', [{ type: 'slice', cell: beginCell().storeAddress(Address.parse(owner)).endCell() }]);
  const wallet = stack.readAddress();
  if ((await client.getContractState(wallet)).state !== 'active') return 0n;
  return (await client.runMethod(wallet, 'get_wallet_data')).stack.readBigNumber();
}

const FAMILIES: Family[] = [
  {
    name: 'USDT on TON (a jetton transfer: the treasury’s jetton wallet, then the merchant’s)',
    chainId: (info) => stackChain(info, 'ton').chainId,
    symbol: 'USDT',
    decimals: 6,
    newWallet: () => Promise.resolve(WalletContractV5R1.create({ workchain: 0, publicKey: keyPairFromSeed(randomBytes(32)).publicKey }).address.toRawString()),
    pay: async (info, deposit, amount) => payJetton(await tonPayer(stackChain(info, 'ton').rpcUrl, info.customer.ton.mnemonic), stackChain(info, 'ton').tokens.USDT.address, deposit, parseUnits(amount, 6)),
    holds: tonUsdtBalance,
  },
  {
    name: 'USDC on Solana',
    chainId: (info) => stackChain(info, 'solana').chainId,
    symbol: 'USDC',
    decimals: 6,
    newWallet: async () => (await generateKeyPairSigner()).address,
    pay: (info, deposit, amount) => solanaCustomerTransfer(info, 'USDC', deposit, amount),
    holds: (info, wallet) => solanaTokenBalance(info, 'USDC', wallet),
  },
  {
    name: 'USDT on Tron',
    chainId: (info) => stackChain(info, 'tron').chainId,
    symbol: 'USDT',
    decimals: 6,
    newWallet: () => Promise.resolve(newTronAddress()),
    pay: tronCustomerTransfer,
    holds: tronUsdtBalance,
  },
  {
    name: 'USDC on Stellar',
    chainId: (info) => stackChain(info, 'stellar').chainId,
    symbol: 'USDC',
    decimals: 7,
    newWallet: newStellarUsdcAccount,
    pay: (info, deposit, amount) => stellarCustomerPayment(info, stellarDestination(deposit), amount),
    holds: stellarUsdcBalance,
  },
  {
    name: 'USDC on Base (EVM)',
    chainId: () => 8453,
    symbol: 'USDC',
    decimals: 6,
    newWallet: () => Promise.resolve(Wallet.createRandom().address),
    pay: (info, deposit, amount) => customerTransfer(info, 8453, 'USDC', deposit, amount),
    holds: (info, wallet) => tokenBalance(info, 8453, 'USDC', wallet),
  },
];

describe('a payout is completed only when the merchant’s wallet holds it', function () {
  this.timeout(300_000);
  let stack: Stack;
  let services: StackServices;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
  });
  after(async () => services?.close());

  for (const family of FAMILIES) {
    it(`${family.name}: at the first read that reports the payout completed, the merchant’s wallet already holds it`, async () => {
      const chainId = family.chainId(stack.info);
      const wallet = await family.newWallet(stack.info);
      const merchant = await newMerchant(stack, services.knex, { payout: { address: wallet, chainId: chainId, tokenSymbol: family.symbol } });
      const amount = '6';
      const created = await createPayment(stack.info.paymentApiUrl, merchant.ordersKey, paymentBody({ orderId: `landed-${randomUUID()}`, chainId: String(chainId), tokenSymbol: family.symbol, amount }));
      await family.pay(stack.info, created.source.receiverAddress, amount);

      // As fast as an integration polls: the first answer that reports the payout done is the moment to look.
      const deadline = Date.now() + 180_000;
      let status = created.status;
      while (!DONE.includes(status)) {
        assert.ok(Date.now() < deadline, `payment ${created.id} stopped at ${status}`);
        await delay(25);
        status = (await getPayment(stack.info.paymentApiUrl, created.id)).status;
      }
      const held = await family.holds(stack.info, wallet);
      assert.equal(held, afterFee(parseUnits(amount, family.decimals)), `the merchant’s wallet holds the payout when the API first says ${status}`);
    });
  }
});
