// End-to-end check of the devnet: `npx tsx tools/devnets/smoke.ts`. Exits non-zero on the first failed check.
import { join } from 'node:path';
import { Contract, JsonRpcProvider, parseEther, parseUnits, Wallet, ZeroAddress, type TransactionResponse } from 'ethers';
import { depositAddress, depositFactoryAbi, erc20Abi, paymentSalt } from '../../chains/evm/contracts';
import { devnetRpc, startDevnet, type Devnet } from './evm/devnet';

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`FAILED: ${what}`);
  console.log(`ok: ${what}`);
}

async function smoke(devnet: Devnet): Promise<void> {
  const [a, b] = devnet.chains;
  if (!a || !b) throw new Error('expected two chains');
  const provider = (rpcUrl: string) => new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  const pa = provider(a.rpcUrl);
  const pb = provider(b.rpcUrl);
  const treasury = new Wallet(devnet.treasury.privateKey, pa);
  const customer = new Wallet(devnet.customer.privateKey, pa);
  const usdc = (runner: Wallet | JsonRpcProvider) => new Contract(a.tokens.USDC.address, erc20Abi, runner);
  const balance = async (token: Contract, who: string) => (await token.getFunction('balanceOf')(who)) as bigint;
  const mined = async (tx: Promise<TransactionResponse>) => (await tx).wait();
  const usd = (n: string) => parseUnits(n, 6);

  for (const chain of devnet.chains) {
    const p = provider(chain.rpcUrl);
    for (const token of [chain.tokens.USDC, chain.tokens.USDT]) {
      const t = new Contract(token.address, erc20Abi, p);
      check((await balance(t, devnet.customer.address)) === usd('10000'), `customer holds 10,000 of ${token.address} on ${chain.name}`);
      check((await balance(t, devnet.treasury.address)) === usd('1000000'), `treasury holds 1,000,000 of ${token.address} on ${chain.name}`);
    }
    p.destroy();
  }

  // Token sweeps: first deploys the forwarder, second reuses it.
  const factory = new Contract(a.depositFactory, depositFactoryAbi, treasury);
  const salt = paymentSalt('smoke-1');
  const deposit = depositAddress(a.depositFactory, salt, a.forwarderInitCodeHash);
  check(deposit === (await factory.getFunction('addressOf')(salt)), 'depositAddress() matches addressOf()');
  for (const amount of ['5', '1']) {
    const before = await balance(usdc(pa), devnet.treasury.address);
    await mined(usdc(customer).getFunction('transfer').send(deposit, usd(amount)));
    await mined(factory.getFunction('sweep').send(salt, a.tokens.USDC.address, devnet.treasury.address, usd(amount)));
    check((await balance(usdc(pa), deposit)) === 0n, `deposit address empty after sweeping ${amount} USDC`);
    check((await balance(usdc(pa), devnet.treasury.address)) - before === usd(amount), `treasury received ${amount} USDC`);
    check((await pa.getCode(deposit)) !== '0x', 'forwarder deployed');
  }

  // Native sweep from a fresh, still code-less deposit address.
  const nativeSalt = paymentSalt('smoke-native');
  const nativeDeposit = depositAddress(a.depositFactory, nativeSalt, a.forwarderInitCodeHash);
  await mined(customer.sendTransaction({ to: nativeDeposit, value: parseEther('0.01') }));
  const merchantBefore = await pa.getBalance(devnet.merchantPayout.address);
  await mined(factory.getFunction('sweep').send(nativeSalt, ZeroAddress, devnet.merchantPayout.address, parseEther('0.01')));
  check((await pa.getBalance(nativeDeposit)) === 0n, 'native deposit swept');
  check((await pa.getBalance(devnet.merchantPayout.address)) - merchantBefore === parseEther('0.01'), 'merchant received 0.01 ETH');

  // Interval mining advances blocks with no traffic.
  const startBlock = await pb.getBlockNumber();
  await new Promise((r) => setTimeout(r, 1500));
  check((await pb.getBlockNumber()) >= startBlock + 2, 'interval mining advances blocks');

  const snapshot = await devnetRpc(a.rpcUrl, 'evm_snapshot', []);
  await mined(usdc(customer).getFunction('transfer').send(devnet.merchantPayout.address, usd('1')));
  check((await devnetRpc(a.rpcUrl, 'evm_revert', [snapshot])) === true, 'evm_revert accepted');
  check((await balance(usdc(pa), devnet.merchantPayout.address)) === 0n, 'evm_revert undid the transfer');
  pa.destroy();
  pb.destroy();
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const devnet = await startDevnet({
    chains: [
      { chainId: 42161, name: 'Arbitrum (devnet)', port: 0 },
      { chainId: 8453, name: 'Base (devnet)', port: 0 },
    ],
    blockTimeMs: 500,
    logDir: join(__dirname, '../../var/log/devnet-smoke'),
  });
  console.log(`devnet started in ${Date.now() - t0} ms`);
  try {
    await smoke(devnet);
  } finally {
    await devnet.stop();
    await devnet.stop(); // must be a no-op
  }
  for (const { rpcUrl } of devnet.chains) {
    const answered = await devnetRpc(rpcUrl, 'eth_chainId', []).then(() => true, () => false);
    check(!answered, `no hardhat node left at ${rpcUrl}`);
  }
}

main().then(
  () => console.log('smoke passed'),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
