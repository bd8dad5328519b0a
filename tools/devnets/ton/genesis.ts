// The TON devnet's fixed accounts and its genesis: funded wallets and a TEP-74 USDT jetton.
import { Address, Cell, Dictionary, SendMode, beginCell, external, internal, toNano, type MessageRelaxed } from '@ton/core';
import { mnemonicToPrivateKey, sha256_sync, type KeyPair } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { createShardAccount } from '@ton/sandbox';
// Deep imports: the package root also loads its S3/IPFS upload tooling, which the devnet never uses.
import { JettonMinter } from '@ton-community/assets-sdk/dist/jetton/JettonMinter';
import { storeJettonMintMessage } from '@ton-community/assets-sdk/dist/jetton/types/JettonMintMessage';
import type { DevnetChain } from './chain';

// Fixed test keys (like hardhat's mnemonic) so addresses survive restarts; never fund them on a real network.
const TREASURY_MNEMONIC = 'rubber type armed aunt rural jewel biology antenna enroll gadget build napkin robust enable final invite vapor supreme focus vault upon lizard trash left';
const CUSTOMER_MNEMONIC = 'exotic omit obvious amateur again poet liar sting million abuse squirrel explain slush economy aim alone pudding offer pink scan predict tuition swarm material';

export const USDT_DECIMALS = 6;
const USDT_UNIT = 10n ** BigInt(USDT_DECIMALS);
export const GENESIS_BALANCES = {
  treasury: { ton: toNano('1000000'), usdt: 1_000_000n * USDT_UNIT },
  customer: { ton: toNano('10000'), usdt: 10_000n * USDT_UNIT },
} as const;
/** TON the minter forwards to each new jetton wallet with a mint (the excess returns to the treasury). */
const MINT_WALLET_VALUE = toNano('0.1');
const MINT_MESSAGE_VALUE = toNano('0.2');

export interface DevnetWallet {
  address: Address;
  mnemonic: string[];
  keyPair: KeyPair;
  /** Both devnet wallets are wallet v5r1 (W5), workchain 0, default wallet id. */
  contract: WalletContractV5R1;
}

export interface DevnetAccounts {
  treasury: DevnetWallet;
  customer: DevnetWallet;
  usdt: JettonMinter;
}

async function wallet(phrase: string): Promise<DevnetWallet> {
  const mnemonic = phrase.split(' ');
  const keyPair = await mnemonicToPrivateKey(mnemonic);
  const contract = WalletContractV5R1.create({ workchain: 0, publicKey: keyPair.publicKey });
  return { address: contract.address, mnemonic, keyPair, contract };
}

/** TEP-64 on-chain metadata: a dictionary of sha256(key) to snake-encoded strings. */
function onchainContent(fields: Record<string, string>): Cell {
  const dict = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  for (const [key, value] of Object.entries(fields)) {
    dict.set(sha256_sync(key), beginCell().storeUint(0, 8).storeStringTail(value).endCell());
  }
  return beginCell().storeUint(0, 8).storeDict(dict).endCell();
}

/** The accounts are a pure function of the fixed keys and the packaged jetton code, so every start agrees on them. */
export async function devnetAccounts(): Promise<DevnetAccounts> {
  const [treasury, customer] = await Promise.all([wallet(TREASURY_MNEMONIC), wallet(CUSTOMER_MNEMONIC)]);
  const content = onchainContent({ name: 'Tether USD (devnet)', symbol: 'USDT', decimals: String(USDT_DECIMALS) });
  const usdt = JettonMinter.createFromConfig({ admin: treasury.address, content });
  return { treasury, customer, usdt };
}

/** Funds both wallets, then the treasury deploys the USDT minter and mints to both, through real transactions. */
export async function applyGenesis(chain: DevnetChain, accounts: DevnetAccounts): Promise<void> {
  const { treasury, customer, usdt } = accounts;
  const now = chain.lastBlock.utime;
  for (const [holder, balance] of [[treasury, GENESIS_BALANCES.treasury.ton], [customer, GENESIS_BALANCES.customer.ton]] as const) {
    const account = createShardAccount({ address: holder.address, code: holder.contract.init.code, data: holder.contract.init.data, balance });
    if (account.account) account.account.storageStats.lastPaid = now;
    await chain.setAccount(holder.address, account);
  }
  const mint = (to: Address, amount: bigint, withInit: boolean): MessageRelaxed => internal({
    to: usdt.address,
    value: MINT_MESSAGE_VALUE,
    bounce: true,
    init: withInit ? usdt.init : undefined,
    body: beginCell().store(storeJettonMintMessage({
      queryId: 0n,
      amount,
      from: usdt.address,
      to,
      responseAddress: treasury.address,
      forwardPayload: null,
      forwardTonAmount: 0n,
      walletForwardValue: MINT_WALLET_VALUE,
    })).endCell(),
  });
  const body = treasury.contract.createTransfer({
    seqno: 0,
    secretKey: treasury.keyPair.secretKey,
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: [mint(treasury.address, GENESIS_BALANCES.treasury.usdt, true), mint(customer.address, GENESIS_BALANCES.customer.usdt, false)],
  });
  chain.enqueue(external({ to: treasury.address, body }));
  await chain.drain();

  const { stack } = await chain.runGetMethod(usdt.address, 'get_jetton_data', []);
  const supply = stack[0]?.type === 'int' ? stack[0].value : undefined;
  const expected = GENESIS_BALANCES.treasury.usdt + GENESIS_BALANCES.customer.usdt;
  if (supply !== expected) throw new Error(`USDT genesis minted ${String(supply)}, expected ${expected}`);
}
