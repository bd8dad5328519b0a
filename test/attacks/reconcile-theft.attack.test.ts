/**
 * A reconciliation that can fail (issue 38): `npm run reconcile` compares what the ledger says every account we
 * control holds with the chain, and fails naming the account and the difference when money leaves a treasury behind
 * Payrail's back (a token or the native coin, on any family), and naming the payment and burn when a bridge transfer
 * stays in transit past its protocol's time. The native coin's fees, gas, rent and top-ups are booked as they happen.
 * On a stack of its own, so the whole ledger (every deposit, every treasury) is this file's alone.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { generateKeyPairSigner } from '@solana/kit';
import { Contract, Wallet, parseUnits } from 'ethers';
import { erc20Abi } from '../../chains/evm/contracts';
import { stackChain, startThrowawayStack, type Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { bridgeTxs } from '../support/bridge-txs';
import { customerTransfer, providerFor, tokenAddress, tokenBalance } from '../support/chain';
import { holdTreasuryFloat } from '../support/float';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { PAYIN_FAMILIES, newFamilyApp, type FamilyApp } from '../support/payin-families';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { solanaCustomerTransfer, solanaTokenBalance, solanaTokenTransfer } from '../support/solana';
import { TEST_STACK_ENV } from '../support/stack';
import { newTronAddress, tronTrxTransfer } from '../support/tron';

const CHAIN = 8453;
const SOURCE = 42161;

/** `npm run reconcile` with `args`: its exit code and what it printed. */
async function reconcile(stack: Stack, args: string[] = []): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'scripts/reconcile.ts', ...args], { env: { ...process.env, ...stack.env } });
    return { code: 0, stdout };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number' || failed.code === 2) throw err;
    return { code: failed.code, stdout: failed.stdout ?? '' };
  }
}

/** Reconcile once nothing of ours is on the move (an account in flight is listed, never failed, so the verdict waits for it). */
const settledReconcile = (stack: Stack, args: string[] = []) =>
  eventually('every account settled', 120_000, async () => {
    const result = await reconcile(stack, args);
    return /— in flight/.test(result.stdout) ? undefined : result;
  });

describe('reconcile fails on a theft from a treasury and on a stuck bridge', function () {
  this.timeout(300_000);
  let stack: Stack;
  let services: StackServices;
  let shop: TestMerchant;

  before(async function () {
    this.timeout(600_000);
    stack = await startThrowawayStack({ name: 'reconcile', blockTimeMs: 500, env: TEST_STACK_ENV });
    services = await connectServices(stack);
    shop = await newMerchant(stack, services.knex);
  });
  after(async () => {
    await stack?.devnets.evm.bridges.attestationService.start();
    await services?.close();
    await stack?.stop();
  });

  it('a fresh stack balances: its treasuries hold what the devnets gave them, booked as the operator\'s funding', async () => {
    const { code, stdout } = await settledReconcile(stack);
    assert.equal(code, 0, stdout);
    assert.match(stdout, new RegExp(`chain ${CHAIN} treasury ${stack.devnets.evm.treasury.address} USDC: ledger ([\\d.]+), on chain \\1 — ok`));
  });

  it('after payments on the chain and across chains, every deposit and treasury holds what the ledger says', async () => {
    const same = await createPayment(stack.info.paymentApiUrl, shop.ordersKey, paymentBody({ orderId: `theft-${randomUUID()}`, chainId: String(CHAIN), tokenSymbol: 'USDC', amount: '5' }));
    await customerTransfer(stack.info, CHAIN, 'USDC', same.source.receiverAddress, '5');
    const across = await createPayment(stack.info.paymentApiUrl, shop.ordersKey, paymentBody({ orderId: `theft-${randomUUID()}`, chainId: String(SOURCE), tokenSymbol: 'USDC', amount: '7' }));
    await customerTransfer(stack.info, SOURCE, 'USDC', across.source.receiverAddress, '7');
    await waitForStatus(stack.info.paymentApiUrl, same.id, 'payment_completed', 180_000);
    await waitForStatus(stack.info.paymentApiUrl, across.id, 'payment_completed', 180_000);

    const { code, stdout } = await settledReconcile(stack);
    console.log(stdout);
    assert.equal(code, 0, stdout);
    // Both treasuries of the bridge compared: the burn left the source, the mint (less the bridge's fee) reached the destination.
    assert.match(stdout, new RegExp(`chain ${SOURCE} treasury ${stack.devnets.evm.treasury.address} USDC: .* — ok`));
    assert.match(stdout, new RegExp(`chain ${CHAIN} deposit ${same.source.receiverAddress} USDC: ledger 0.0, on chain 0.0 — ok`, 'i'));
    // The conservation identity, per chain and across chains: every unit paid in is paid out, kept as a fee, or in the float.
    for (const name of [`chain ${SOURCE} USDC`, `chain ${CHAIN} USDC`, 'USDC across \\d+ chain\\(s\\)']) {
      assert.match(stdout, new RegExp(`^${name}: payins [\\d.]+ = payouts [\\d.]+ \\+ fees [\\d.]+ \\+ refunds [\\d.]+ \\+ held [\\d.]+ \\+ in flight [\\d.]+ \\+ float moved -?[\\d.]+ — holds$`, 'm'));
    }
    const scoped = await reconcile(stack, ['--app', shop.appId]);
    assert.equal(scoped.code, 0, scoped.stdout);
    assert.doesNotMatch(scoped.stdout, /treasury/, 'an app\'s reconcile compares its deposits only');
  });

  it('a payment on each other family (Solana, TON, Tron, Stellar) leaves its deposit and treasury balanced, native coin included', async function () {
    this.timeout(600_000);
    // The four families at once: each payment's sweep and payout, their fees, top-ups and rent, booked as they land.
    const apps: FamilyApp[] = [];
    for (const family of PAYIN_FAMILIES) apps.push(await newFamilyApp(stack, family));
    await Promise.all(
      PAYIN_FAMILIES.map(async (family, i) => {
        const app = apps[i]!;
        const chainId = family.chainId(stack.info);
        const created = await createPayment(stack.info.paymentApiUrl, app.ordersKey, paymentBody({ orderId: `native-${randomUUID()}`, chainId: String(chainId), tokenSymbol: family.symbol, amount: '3' }));
        await family.pay(stack.info, created.source.receiverAddress, '3');
        await waitForStatus(stack.info.paymentApiUrl, created.id, 'payment_completed', 400_000);
      }),
    );
    const { code, stdout } = await settledReconcile(stack);
    console.log(stdout);
    assert.equal(code, 0, stdout);
    for (const family of PAYIN_FAMILIES) {
      const chainId = family.chainId(stack.info);
      const treasury = services.chains.adapter(chainId).treasuryAddress();
      const native = services.chains.registry.findNativeToken(chainId)?.symbol ?? 'native';
      // The treasury paid the fees (and topped deposits up): its native coin is compared, and equal.
      assert.match(stdout, new RegExp(`chain ${chainId} treasury ${treasury} ${native}: ledger ([\\d.]+), on chain \\1 — ok`), `${family.name}: ${stdout}`);
    }
  });

  it('a bridge transfer whose attestation never comes is a failure past its protocol\'s time, named with its payment and burn', async () => {
    // Base's float is set aside: the payment bridges its own funds.
    const releaseFloat = await holdTreasuryFloat(stack, services, shop, CHAIN, 'USDC');
    const created = await createPayment(stack.info.paymentApiUrl, shop.ordersKey, paymentBody({ orderId: `stuck-${randomUUID()}`, chainId: String(SOURCE), tokenSymbol: 'USDC', amount: '6' }));
    await customerTransfer(stack.info, SOURCE, 'USDC', created.source.receiverAddress, '6');
    // Iris goes away once it has quoted the transfer (the first bridge transaction is signed on the quote), before
    // the burn can be attested.
    await eventually('the bridge quote', 180_000, async () => ((await bridgeTxs(services.knex, created.id)).length > 0 ? true : undefined), 50);
    await stack.devnets.evm.bridges.attestationService.stop();
    try {
      const burn = await eventually('the burn to be mined', 120_000, async () =>
        (await bridgeTxs(services.knex, created.id)).find((t) => t.purpose === 'bridge burn' && t.status === 'confirmed'));
      // The devnet's CCTP transfer normally takes 5 s: past twice that, reconcile names it.
      const stuck = await eventually('reconcile to flag the stuck bridge', 60_000, async () => {
        const result = await reconcile(stack);
        return /STUCK BRIDGE/.test(result.stdout) ? result : undefined;
      });
      assert.equal(stuck.code, 1, stuck.stdout);
      assert.match(stuck.stdout, new RegExp(`chain ${SOURCE} bridge: 5\\.97 USDC of payment ${created.id} burnt in ${burn.tx_hash}, in transit \\d+ s \\(normal: under 10 s\\) — STUCK BRIDGE`));
    } finally {
      await stack.devnets.evm.bridges.attestationService.start();
    }
    await waitForStatus(stack.info.paymentApiUrl, created.id, 'payment_completed', 180_000);
    await releaseFloat();
    const { code, stdout } = await settledReconcile(stack);
    assert.equal(code, 0, stdout);
  });

  it('USDC moved out of the Solana treasury with its key (the thief paying the fee): reconcile names the treasury and the loss, and is ok once it is returned', async () => {
    const { customer } = stack.devnets.solana;
    const solana = stackChain(stack.info, 'solana').chainId;
    const treasury = { address: services.chains.adapter(solana).treasuryAddress(), secretKey: JSON.parse(stack.env.SOLANA_TREASURY_SECRET_KEY!) as number[] };
    const customerBefore = await solanaTokenBalance(stack.info, 'USDC', customer.address);
    // The thief holds the treasury's key and sends from its own wallet (the devnet customer's), which pays the fee: only USDC leaves the treasury.
    await solanaTokenTransfer(stack.info, 'USDC', { from: treasury.secretKey, feePayer: customer.secretKey }, customer.address, '1.25');
    assert.equal((await solanaTokenBalance(stack.info, 'USDC', customer.address)) - customerBefore, parseUnits('1.25', 6));

    const stolen = await settledReconcile(stack);
    assert.equal(stolen.code, 1, stolen.stdout);
    const line = new RegExp(`chain ${solana} treasury ${treasury.address} USDC: ledger ([\\d.]+), on chain ([\\d.]+) — DIFFERENCE -1\\.25\n`);
    const [, ledger, onChain] = line.exec(stolen.stdout) ?? assert.fail(stolen.stdout);
    assert.equal(parseUnits(ledger!, 6) - parseUnits(onChain!, 6), parseUnits('1.25', 6));
    assert.match(stolen.stdout, /reconciled: \d+ accounts — 1 FAILURES/);

    // Returned to the treasury (not booked: it never left the books), the treasury holds what the ledger says again.
    await solanaCustomerTransfer(stack.info, 'USDC', treasury.address, '1.25');
    const returned = await settledReconcile(stack);
    assert.equal(returned.code, 0, returned.stdout);
    assert.match(returned.stdout, new RegExp(`chain ${solana} treasury ${treasury.address} USDC: ledger ([\\d.]+), on chain \\1 — ok`));
  });

  it('USDC moved out of the treasury with its own key: reconcile exits non-zero naming the treasury and the loss, and funding booked afterwards does not hide it', async () => {
    const provider = providerFor(stack.info, CHAIN);
    const treasury = new Wallet(stack.env.TREASURY_PRIVATE_KEY!, provider);
    const usdc = new Contract(tokenAddress(stack.info, CHAIN, 'USDC'), erc20Abi, treasury);
    const thief = Wallet.createRandom().address;
    await ((await usdc.getFunction('transfer')(thief, parseUnits('1.25', 6))) as { wait(): Promise<unknown> }).wait();
    assert.equal(await tokenBalance(stack.info, CHAIN, 'USDC', thief), parseUnits('1.25', 6));

    const stolen = await settledReconcile(stack);
    assert.equal(stolen.code, 1, stolen.stdout);
    const line = new RegExp(`chain ${CHAIN} treasury ${treasury.address} USDC: ledger ([\\d.]+), on chain ([\\d.]+) — DIFFERENCE -1\\.25`);
    const [, ledger, onChain] = line.exec(stolen.stdout) ?? assert.fail(stolen.stdout);
    assert.equal(parseUnits(ledger!, 6) - parseUnits(onChain!, 6), parseUnits('1.25', 6));
    // The thief's transaction paid its gas from the treasury too: the native coin is a loss of its own.
    assert.match(stolen.stdout, new RegExp(`chain ${CHAIN} treasury ${treasury.address} ETH: ledger [\\d.]+, on chain [\\d.]+ — DIFFERENCE -0\\.\\d+`));
    assert.match(stolen.stdout, /reconciled: \d+ accounts — 2 FAILURES/);
    // The identity misses the stolen units on this chain and across chains: payins that are nowhere.
    assert.match(stolen.stdout, new RegExp(`^chain ${CHAIN} USDC: payins .* — DIFFERENCE -1\\.25$`, 'm'));
    assert.match(stolen.stdout, /^USDC across \d+ chain\(s\): payins .* — DIFFERENCE -1\.25$/m);

    // The operator tops the treasury up and books it (`npm run fund`): the ledger and the chain both grow by it, the loss stays.
    const topUp = await customerTransfer(stack.info, CHAIN, 'USDC', treasury.address, '1.25');
    const receipt = await provider.getTransactionReceipt(topUp);
    const index = receipt!.logs.find((l) => l.address.toLowerCase() === tokenAddress(stack.info, CHAIN, 'USDC').toLowerCase())!.index;
    const funded = await promisify(execFile)('npx', ['tsx', 'scripts/fund.ts', '--chain', String(CHAIN), '--token', 'USDC', '--tx', topUp, '--amount', '1.25', '--index', String(index)], {
      env: { ...process.env, ...stack.env },
    });
    assert.match(funded.stdout, /booked: 1.25 USDC from the operator into the treasury/);
    const after = await settledReconcile(stack);
    assert.equal(after.code, 1);
    assert.match(after.stdout, new RegExp(`chain ${CHAIN} treasury ${treasury.address} USDC: .* — DIFFERENCE -1\\.25`));
    assert.match(after.stdout, new RegExp(`^chain ${CHAIN} USDC: payins .* — DIFFERENCE -1\\.25$`, 'm'), 'the funding is the operator’s, not a payin: it hides nothing');
  });

  it('TRX moved out of the Tron treasury and USDC out of the Solana treasury with their keys: reconcile names both treasuries and each loss', async () => {
    const tron = PAYIN_FAMILIES.find((f) => f.name === 'Tron')!.chainId(stack.info);
    const solana = PAYIN_FAMILIES.find((f) => f.name === 'Solana')!.chainId(stack.info);
    const tronTreasury = services.chains.adapter(tron).treasuryAddress();
    const solanaTreasury = services.chains.adapter(solana).treasuryAddress();
    await tronTrxTransfer(stack.info, stack.env.TRON_TREASURY_PRIVATE_KEY!, newTronAddress(), 2_000_000n);
    await solanaTokenTransfer(stack.info, 'USDC', { from: JSON.parse(stack.env.SOLANA_TREASURY_SECRET_KEY!) as number[] }, (await generateKeyPairSigner()).address, '1.5');

    const stolen = await settledReconcile(stack);
    assert.equal(stolen.code, 1, stolen.stdout);
    const trx = services.chains.registry.findNativeToken(tron)?.symbol ?? 'native';
    // The thief's 2 TRX, and the fee its transaction burnt from the treasury (bandwidth, the new account's activation).
    const [, ledger, onChain] = new RegExp(`chain ${tron} treasury ${tronTreasury} ${trx}: ledger ([\\d.]+), on chain ([\\d.]+) — DIFFERENCE -[\\d.]+`).exec(stolen.stdout) ?? assert.fail(stolen.stdout);
    // Printed in sun when the chains file names no native currency for the chain.
    const sun = (amount: string) => (trx === 'native' ? BigInt(amount) : parseUnits(amount, 6));
    assert.ok(sun(ledger!) - sun(onChain!) >= 2_000_000n, stolen.stdout);
    assert.match(stolen.stdout, new RegExp(`chain ${solana} treasury ${solanaTreasury} USDC: ledger [\\d.]+, on chain [\\d.]+ — DIFFERENCE -1\\.5`));
  });
});
