/**
 * The Solana adapter's transactions on the Solana devnet (litesvm behind the JSON-RPC): a priority fee from what
 * recent slots paid on the same accounts (`getRecentPrioritizationFees`) and a compute-unit limit from a simulation;
 * the blockhash's last valid block height kept with the transaction, which the outbox reads to know when it can no
 * longer land; a sweep closing its deposit's token account built again without the close when a payin lands before
 * its simulation, or refused when one lands after it and prepared again without the close once it expired; a payout
 * mined only once the merchant's token balance shows it; and a refund never paying its recipient's rent.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  decompileTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, getSetComputeUnitLimitInstructionDataDecoder, getSetComputeUnitPriceInstruction, getSetComputeUnitPriceInstructionDataDecoder } from '@solana-program/compute-budget';
import { findAssociatedTokenPda, getTransferCheckedInstruction } from '@solana-program/token-2022';
import { SolanaAdapter } from '../../chains/solana/adapter';
import type { SolanaChainConfig } from '../../chains/solana/config';
import { chainRegistrySchema } from '../../chains/registry';
import { TxRefused, type ChainAction } from '../../chains/family';
import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';
import { startSolanaDevnet, type SolanaDevnet } from '../../tools/devnets/solana';
import { eventually } from '../support/poll';
import { RpcFront } from '../support/rpc-front';

/** The priority the competing transaction pays per compute unit (micro-lamports). */
const COMPETING_PRICE = 7_500n;

describe('Solana adapter transactions on the Solana devnet', function () {
  this.timeout(180_000);
  let devnet: SolanaDevnet;
  let adapter: SolanaAdapter;
  const depositSeed = randomBytes(32);

  /** An adapter with the test's keys, reading and sending through `rpcUrl`. */
  function adapterThrough(rpcUrl: string): SolanaAdapter {
    const registry = chainRegistrySchema.parse({
      chains: [{ family: 'solana', chainId: 501, name: 'Solana (devnet)', rpcUrl, confirmations: 1, finalityDepth: 4, tokens: { USDC: { ...devnet.mints.USDC } }, feeCoinUsd: '150' }],
    });
    return new SolanaAdapter(registry.chains[0] as SolanaChainConfig, { treasurySecretKey: Uint8Array.from(devnet.treasury.secretKey), depositSeed });
  }

  before(async function () {
    this.timeout(180_000);
    devnet = await startSolanaDevnet({ port: 0 });
    adapter = adapterThrough(devnet.rpcUrl);
  });
  after(async () => devnet?.stop());

  const usdc = () => devnet.mints.USDC.address;
  const ataOf = async (owner: string) => (await findAssociatedTokenPda({ owner: address(owner), mint: address(usdc()), tokenProgram: address(devnet.mints.USDC.tokenProgram) }))[0];

  /**
   * The customer's wallet pays the treasury with a priority fee, writing the treasury's token account, in a slot of
   * its own (the genesis slot's transactions wrote that account for nothing).
   */
  async function competingTransfer(): Promise<void> {
    const rpc = createSolanaRpc(devnet.rpcUrl);
    const genesis = await rpc.getSlot({ commitment: 'processed' }).send();
    await eventually('a slot past genesis', 10_000, async () => ((await rpc.getSlot({ commitment: 'processed' }).send()) > genesis + 1n ? true : undefined));
    const customer = await createKeyPairSignerFromBytes(Uint8Array.from(devnet.customer.secretKey));
    const programAddress = address(devnet.mints.USDC.tokenProgram);
    const [source, destination] = await Promise.all([ataOf(customer.address), ataOf(adapter.treasuryAddress())]);
    const instructions = [
      getSetComputeUnitPriceInstruction({ microLamports: COMPETING_PRICE }),
      getTransferCheckedInstruction({ source, mint: address(usdc()), destination, authority: customer, amount: 1n, decimals: 6 }, { programAddress }),
    ];
    const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(customer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
    const signature = getSignatureFromTransaction(signed);
    await eventually('the competing transfer confirmed', 30_000, async () => ((await rpc.getSignatureStatuses([signature]).send()).value[0]?.confirmationStatus ? true : undefined));
  }

  /** The compute-budget instructions of a signed wire transaction: its unit price and limit. */
  function computeBudget(rawTx: string): { price: bigint | undefined; limit: number | undefined } {
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(rawTx));
    const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(tx.messageBytes));
    const budget = message.instructions.filter((ix) => ix.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS);
    const price = budget.find((ix) => ix.data?.[0] === 3);
    const limit = budget.find((ix) => ix.data?.[0] === 2);
    return {
      price: price && BigInt(getSetComputeUnitPriceInstructionDataDecoder().decode(price.data!).microLamports),
      limit: limit && getSetComputeUnitLimitInstructionDataDecoder().decode(limit.data!).units,
    };
  }

  it('pays the priority recent slots paid on its accounts, with a simulated compute-unit limit, and lands for the merchant', async () => {
    await competingTransfer();
    const merchant = (await generateKeyPairSigner()).address;
    const action: ChainAction = { kind: 'transfer', tokenAddress: usdc(), to: merchant, amountUnits: '1250000' };
    const prepared = await adapter.prepare(action);
    const signed = await prepared.sign(0);
    const { price, limit } = computeBudget(signed.rawTx);
    assert.equal(price, COMPETING_PRICE, 'the priority fee recent slots paid on the treasury’s token account');
    assert.ok(limit !== undefined && limit > 0 && limit < 200_000, `a compute-unit limit from the simulation (${limit})`);
    const height = await createSolanaRpc(devnet.rpcUrl).getBlockHeight({ commitment: 'confirmed' }).send();
    assert.ok(signed.validUntil && BigInt(signed.validUntil) > height, 'the blockhash’s last valid block height is kept');
    assert.equal(await adapter.expiry.canLand({ rawTx: signed.rawTx, txHash: signed.txHash, signer: prepared.signer, nonce: 0, validUntil: signed.validUntil ?? null }), true);

    await adapter.broadcast(signed);
    const check = await eventually('the payout mined', 30_000, async () => {
      const found = await adapter.checkTx([signed.txHash], 1, { action, rawTx: signed.rawTx, nonce: 0 });
      return found.state === 'mined' ? found : undefined;
    });
    assert.equal(check.state === 'mined' && check.succeeded, true);
    assert.equal(await adapter.balanceOf(merchant, usdc()), 1_250_000n, 'mined means the merchant holds it');
    const elsewhere = await adapter.checkTx([signed.txHash], 1, { action: { ...action, to: (await generateKeyPairSigner()).address }, rawTx: signed.rawTx, nonce: 0 });
    assert.equal(elsewhere.state === 'mined' && elsewhere.succeeded, false, 'not landed for a receiver it did not credit');
  });

  /** Whether a signed wire transaction closes a token account (the token program's CloseAccount, instruction 9). */
  function closesAccount(rawTx: string): boolean {
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(rawTx));
    const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(tx.messageBytes));
    return message.instructions.some((ix) => ix.programAddress === devnet.mints.USDC.tokenProgram && ix.data?.[0] === 9);
  }

  /** The treasury pays `units` of USDC into `deposit`, as a customer's payin would land there. */
  async function payInto(deposit: string, units: bigint): Promise<void> {
    const before = await adapter.balanceOf(deposit, usdc());
    await adapter.broadcast(await (await adapter.prepare({ kind: 'transfer', tokenAddress: usdc(), to: deposit, amountUnits: units.toString() })).sign(0));
    await eventually('the payin to the deposit', 30_000, async () => ((await adapter.balanceOf(deposit, usdc())) === before + units ? true : undefined));
  }

  it('a sweep that closes its deposit’s token account is refused once a payin lands after it is signed, and can still land until its blockhash expires; prepared again then, it leaves the account and the payin', async () => {
    const paymentId = randomUUID();
    const deposit = adapter.depositAddress(paymentId);
    await payInto(deposit, 2_000_000n);
    const sweep: ChainAction = { kind: 'sweep', paymentId, tokenAddress: usdc(), to: adapter.treasuryAddress(), amountUnits: '2000000' };
    const prepared = await adapter.prepare(sweep);
    const closing = await prepared.sign(0);
    assert.ok(closesAccount(closing.rawTx), 'the sweep empties the token account, so it closes it');

    // The customer pays again between the sweep's preparation and its broadcast: the account cannot be closed.
    await payInto(deposit, 1_000_000n);
    await assert.rejects(adapter.broadcast(closing), TxRefused);
    const stored = { rawTx: closing.rawTx, txHash: closing.txHash, signer: prepared.signer, nonce: 0, validUntil: closing.validUntil ?? null };
    assert.equal(await adapter.expiry.canLand(stored), true, 'refused now, it could still land: it is not signed again yet');

    await eventually('the refused sweep can no longer land', 150_000, async () => ((await adapter.expiry.canLand(stored)) ? undefined : true), 1_000);
    const again = await (await adapter.prepare(sweep)).sign(0);
    assert.equal(closesAccount(again.rawTx), false, 'prepared against the chain as it is now: the account keeps the payin');
    await adapter.broadcast(again);
    const mined = await eventually('the sweep signed again mined', 30_000, async () => {
      const found = await adapter.checkTx([again.txHash, closing.txHash], 1, { action: sweep, rawTx: again.rawTx, nonce: 0 });
      return found.state === 'mined' ? found : undefined;
    });
    assert.deepEqual([mined.state === 'mined' && mined.txHash, mined.state === 'mined' && mined.succeeded], [again.txHash, true]);
    assert.equal(await adapter.balanceOf(deposit, usdc()), 1_000_000n, 'the second payin stays at the deposit, for its own refund');
  });

  it('a sweep built to close its deposit’s token account as a payin lands under it is built again on the new balance: it leaves the account and the payin', async () => {
    const paymentId = randomUUID();
    const deposit = adapter.depositAddress(paymentId);
    await payInto(deposit, 2_000_000n);
    const sweep: ChainAction = { kind: 'sweep', paymentId, tokenAddress: usdc(), to: adapter.treasuryAddress(), amountUnits: '2000000' };
    // The customer pays again after the sweep read the deposit's balance, as the node is asked to simulate it.
    let simulations = 0;
    const front = new RpcFront(devnet.rpcUrl, async ({ body }) => {
      if (body.includes('"simulateTransaction"') && ++simulations === 1) await payInto(deposit, 1_000_000n);
      return undefined;
    });
    try {
      const signed = await (await adapterThrough(await front.start()).prepare(sweep)).sign(0);
      assert.equal(simulations, 2, 'the closing build failed its simulation, the one built again passed');
      assert.equal(closesAccount(signed.rawTx), false, 'built on the balance as it is now: the account keeps the payin');
      await adapter.broadcast(signed);
      const mined = await eventually('the sweep mined', 30_000, async () => {
        const found = await adapter.checkTx([signed.txHash], 1, { action: sweep, rawTx: signed.rawTx, nonce: 0 });
        return found.state === 'mined' ? found : undefined;
      });
      assert.equal(mined.state === 'mined' && mined.succeeded, true);
      assert.equal(await adapter.balanceOf(deposit, usdc()), 1_000_000n, 'the second payin stays at the deposit, for its own refund');
    } finally {
      front.stop();
    }
  });

  it('never pays a refund recipient’s rent: a refund to a wallet without a token account is refused, one with an account costs its fee', async () => {
    const paymentId = randomUUID();
    const deposit = adapter.depositAddress(paymentId);
    await payInto(deposit, 3_000_000n);

    const stranger = (await generateKeyPairSigner()).address;
    const refusal = await adapter.estimateCost({ kind: 'sweep', paymentId, tokenAddress: usdc(), to: stranger, amountUnits: '1000000' });
    assert.match(refusal.refusal ?? '', /no token account/);
    const customer = devnet.customer.address;
    const cost = await adapter.estimateCost({ kind: 'sweep', paymentId, tokenAddress: usdc(), to: customer, amountUnits: '1000000' });
    assert.equal(cost.refusal, undefined);
    // Two signatures (the treasury pays, the deposit signs), no rent: at most what the priority fee adds on top.
    assert.ok(cost.feeUnits >= 10_000n && cost.feeUnits < 20_000n, `the refund costs ${cost.feeUnits} lamports`);
  });
  it('reads a transaction\'s native effects from its balances: the fee and the rent of the merchant\'s token account the treasury paid', async () => {
    const treasury = adapter.treasuryAddress();
    const lamports = () => adapter.balanceOf(treasury, NATIVE_TOKEN_ADDRESS);
    const before = await lamports();
    const merchant = (await generateKeyPairSigner()).address;
    const action: ChainAction = { kind: 'transfer', tokenAddress: usdc(), to: merchant, amountUnits: '500000' };
    const signed = await (await adapter.prepare(action)).sign(0);
    await adapter.broadcast(signed);
    await eventually('the payout mined', 30_000, async () => ((await adapter.checkTx([signed.txHash], 1, { action, rawTx: signed.rawTx, nonce: 0 })).state === 'mined' ? true : undefined));
    const effects = await adapter.nativeEffects({ txHash: signed.txHash });
    const [fee] = effects.fees;
    assert.ok(fee && fee.address === treasury && fee.units >= 5_000n, `the treasury paid the fee (${fee?.units})`);
    const rent = effects.changes.find((c) => c.address === treasury)?.deltaUnits ?? 0n;
    assert.ok(rent < 0n, 'and the rent of the merchant’s new token account');
    assert.equal(rent - fee.units, (await lamports()) - before, 'as the treasury’s lamports moved');
  });
});
