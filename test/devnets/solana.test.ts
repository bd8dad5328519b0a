import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  address,
  airdropFactory,
  appendTransactionMessageInstructions,
  assertIsTransactionWithBlockhashLifetime,
  compileTransactionMessage,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressDecoder,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageEncoder,
  isSolanaError,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__JSON_RPC__METHOD_NOT_FOUND,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_UNSUPPORTED_TRANSACTION_VERSION,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Nonce,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
  type TransactionMessageBytesBase64,
} from '@solana/kit';
import { estimateComputeUnitLimitFactory, getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  fetchNonce,
  getCreateAccountInstruction,
  getInitializeNonceAccountInstruction,
  getNonceSize,
  getTransferSolInstruction,
  SYSTEM_PROGRAM_ADDRESS,
} from '@solana-program/system';
import { fetchAllMaybeToken as fetchAllMaybeClassicToken, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  fetchAllMaybeToken as fetchAllMaybeToken2022,
  findAssociatedTokenPda,
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTokenDecoder,
  getTransferCheckedInstruction,
  getTransferCheckedWithTransferHookInstructionAsync,
  TOKEN_2022_PROGRAM_ADDRESS,
} from '@solana-program/token-2022';
import { startSolanaDevnet, type SolanaDevnet, type SolanaDevnetToken } from '../../tools/devnets/solana';
import { decodeBase58, encodeBase58 } from '../../tools/devnets/solana/base58';

const LAMPORTS_PER_SOL = 1_000_000_000n;
const usd = (whole: bigint, micros = 0n): bigint => whole * 1_000_000n + micros;

/** A kit client for one devnet, with the send-and-wait loop a service without websockets would write. */
class Client {
  readonly rpc: Rpc<SolanaRpcApi>;
  constructor(readonly devnet: SolanaDevnet) {
    this.rpc = createSolanaRpc(devnet.rpcUrl);
  }

  static async signer(account: { secretKey: number[] }): Promise<KeyPairSigner> {
    return createKeyPairSignerFromBytes(Uint8Array.from(account.secretKey));
  }

  async ata(owner: Address, token: SolanaDevnetToken): Promise<Address> {
    const [ata] = await findAssociatedTokenPda({ owner, mint: address(token.address), tokenProgram: address(token.tokenProgram) });
    return ata;
  }

  async sign(feePayer: KeyPairSigner, instructions: Instruction[], blockhash?: { blockhash: Blockhash; lastValidBlockHeight: bigint }) {
    const lifetime = blockhash ?? (await this.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    return { message, signed, wire: getBase64EncodedWireTransaction(signed) };
  }

  async sendWire(wire: Base64EncodedWireTransaction, skipPreflight = false): Promise<Signature> {
    return this.rpc.sendTransaction(wire, { encoding: 'base64', skipPreflight }).send();
  }

  async waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * Waits until every signature is confirmed; `timeoutMs` bounds each chunk of 256 (bulk setups on a busy machine need
   * more). Statuses are searched in history: a bulk setup's first transactions can be older than the status cache's
   * 300 slots by the time their chunk is asked about.
   */
  async confirmed(signatures: Signature[], timeoutMs = 30_000): Promise<void> {
    for (let i = 0; i < signatures.length; i += 256) {
      const chunk = signatures.slice(i, i + 256);
      await this.waitFor('confirmation', async () => {
        const { value } = await this.rpc.getSignatureStatuses(chunk, { searchTransactionHistory: true }).send();
        value.forEach((status, j) => assert.equal(status?.err ?? null, null, `transaction ${chunk[j]} failed`));
        return value.every((s) => s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized') ? true : undefined;
      }, timeoutMs);
    }
  }

  async send(feePayer: KeyPairSigner, instructions: Instruction[]): Promise<Signature> {
    const signature = await this.sendWire((await this.sign(feePayer, instructions)).wire);
    await this.confirmed([signature]);
    return signature;
  }

  async lamports(of: Address, commitment: 'confirmed' | 'finalized' = 'confirmed'): Promise<bigint> {
    return (await this.rpc.getBalance(of, { commitment }).send()).value;
  }

  async tokenAmount(account: Address): Promise<bigint> {
    return BigInt((await this.rpc.getTokenAccountBalance(account, { commitment: 'confirmed' }).send()).value.amount);
  }

  async transferChecked(from: KeyPairSigner, feePayer: KeyPairSigner, token: SolanaDevnetToken, to: Address, amount: bigint): Promise<Signature> {
    const mint = address(token.address);
    const tokenProgram = address(token.tokenProgram);
    const destination = await this.ata(to, token);
    // As a careful wallet does: the helper reads the mint and adds a transfer hook's accounts (PYUSD's hook has no program).
    const transfer = await getTransferCheckedWithTransferHookInstructionAsync(
      { rpc: this.rpc },
      { source: await this.ata(from.address, token), mint, destination, authority: from, amount, decimals: token.decimals },
      { tokenProgram },
    );
    return this.send(feePayer, [getCreateAssociatedTokenIdempotentInstruction({ payer: feePayer, ata: destination, owner: to, mint, tokenProgram }), transfer]);
  }
}

const freshAddress = (): Address => getAddressDecoder().decode(randomBytes(32));

describe('Solana devnet: litesvm behind the Solana JSON-RPC, used through @solana/kit', function () {
  this.timeout(180_000);
  // 100 ms slots and 20-slot finality give a 2 s window in which confirmed and finalized differ.
  const FINALITY_DEPTH = 20;
  let client: Client;
  let customer: KeyPairSigner;
  let treasury: KeyPairSigner;

  before(async () => {
    client = new Client(await startSolanaDevnet({ port: 0, slotTimeMs: 100, finalityDepth: FINALITY_DEPTH }));
    customer = await Client.signer(client.devnet.customer);
    treasury = await Client.signer(client.devnet.treasury);
  });
  after(async () => {
    await client?.devnet.stop();
  });

  it('starts with funded treasury and customer and the two mints', async () => {
    const { mints } = client.devnet;
    assert.equal(mints.USDC.tokenProgram, TOKEN_PROGRAM_ADDRESS);
    assert.equal(mints.PYUSD.tokenProgram, TOKEN_2022_PROGRAM_ADDRESS);
    assert.equal(await client.lamports(treasury.address) > 9_999n * LAMPORTS_PER_SOL, true);
    assert.equal(await client.lamports(customer.address), 100n * LAMPORTS_PER_SOL);
    for (const token of [mints.USDC, mints.PYUSD]) {
      assert.equal(await client.tokenAmount(await client.ata(treasury.address, token)), usd(1_000_000n));
      assert.equal(await client.tokenAmount(await client.ata(customer.address, token)), usd(10_000n));
    }
    const pyusd = await client.rpc.getAccountInfo(address(mints.PYUSD.address), { encoding: 'jsonParsed', commitment: 'confirmed' }).send();
    const info = (pyusd.value?.data as { parsed: { info: { decimals: number; extensions: { extension: string }[] } } }).parsed.info;
    assert.equal(info.decimals, 6);
    assert.deepEqual(info.extensions.map((e) => e.extension), [
      'mintCloseAuthority', 'transferFeeConfig', 'confidentialTransferMint', 'confidentialTransferFee',
      'permanentDelegate', 'transferHook', 'metadataPointer', 'tokenMetadata',
    ]);
    assert.equal(await client.rpc.getHealth().send(), 'ok');
    await assert.rejects(
      client.rpc.getBlockProduction().send(),
      (err) => isSolanaError(err, SOLANA_ERROR__JSON_RPC__METHOD_NOT_FOUND),
    );
  });

  it('airdrops SOL', async () => {
    const to = freshAddress();
    const signature = await client.rpc.requestAirdrop(to, lamports(2n * LAMPORTS_PER_SOL), { commitment: 'confirmed' }).send();
    await client.confirmed([signature]);
    assert.equal(await client.lamports(to), 2n * LAMPORTS_PER_SOL);
  });

  it('transfers SOL, charging the fee getFeeForMessage quotes and getTransaction reports', async () => {
    const to = freshAddress();
    const before = await client.lamports(customer.address);
    const { message, wire } = await client.sign(customer, [
      getSetComputeUnitPriceInstruction({ microLamports: 10_000n }),
      getSetComputeUnitLimitInstruction({ units: 50_000 }),
      getTransferSolInstruction({ source: customer, destination: to, amount: LAMPORTS_PER_SOL / 2n }),
    ]);
    const messageBase64 = getBase64Decoder().decode(getCompiledTransactionMessageEncoder().encode(compileTransactionMessage(message))) as TransactionMessageBytesBase64;
    const quoted = (await client.rpc.getFeeForMessage(messageBase64, { commitment: 'confirmed' }).send()).value;
    // 5,000 per signature plus 10,000 micro-lamports × 50,000 units.
    assert.equal(quoted, 5_000n + 500n);
    const signature = await client.sendWire(wire);
    await client.confirmed([signature]);
    assert.equal(await client.lamports(to), LAMPORTS_PER_SOL / 2n);
    assert.equal(before - (await client.lamports(customer.address)), LAMPORTS_PER_SOL / 2n + quoted);
    const tx = await client.rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    assert.equal(tx?.meta?.fee, quoted);
    assert.equal(tx?.meta?.err, null);
    assert.equal(tx?.transaction.message.accountKeys[0], customer.address);
    // Prioritization fees are compute-unit prices, in micro-lamports.
    const fees = await client.rpc.getRecentPrioritizationFees([customer.address]).send();
    assert.equal(fees.find((f) => f.slot === tx?.slot)?.prioritizationFee, 10_000n);
  });

  it('serves legacy transactions to every client, and v0 only to clients that accept version 0', async () => {
    const to = freshAddress();
    const { value: lifetime } = await client.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const legacy = await signTransactionMessageWithSigners(pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(customer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: customer, destination: to, amount: 1_000_000n })], m),
    ));
    const legacySignature = await client.sendWire(getBase64EncodedWireTransaction(legacy));
    const v0Signature = await client.send(customer, [getTransferSolInstruction({ source: customer, destination: to, amount: 2_000_000n })]);
    await client.confirmed([legacySignature]);
    assert.equal(await client.lamports(to), 3_000_000n);
    const old = await client.rpc.getTransaction(legacySignature, { commitment: 'confirmed', encoding: 'json' }).send();
    assert.equal(old?.transaction.message.accountKeys[0], customer.address);
    assert.equal(old !== null && 'version' in old, false, 'no version field for clients that did not ask');
    await assert.rejects(client.rpc.getTransaction(v0Signature, { commitment: 'confirmed', encoding: 'json' }).send(),
      (err) => isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_UNSUPPORTED_TRANSACTION_VERSION));
    assert.equal((await client.rpc.getTransaction(v0Signature, { commitment: 'confirmed', encoding: 'base64', maxSupportedTransactionVersion: 0 }).send())?.version, 0);
  });

  for (const symbol of ['USDC', 'PYUSD'] as const) {
    it(`creates an associated token account idempotently and moves ${symbol} with transferChecked`, async () => {
      const token = client.devnet.mints[symbol];
      const owner = freshAddress();
      const amount = usd(12n, 345_678n);
      const customerAta = await client.ata(customer.address, token);
      const ownerAta = await client.ata(owner, token);
      const customerBefore = await client.tokenAmount(customerAta);
      const signature = await client.transferChecked(customer, customer, token, owner, amount);
      // Once more: the idempotent create is a no-op on the existing account.
      await client.transferChecked(customer, customer, token, owner, 1n);

      const balance = (await client.rpc.getTokenAccountBalance(ownerAta, { commitment: 'confirmed' }).send()).value;
      assert.deepEqual(balance, { amount: (amount + 1n).toString(), decimals: 6, uiAmount: 12.345679, uiAmountString: '12.345679' });
      const fetchAll = symbol === 'USDC' ? fetchAllMaybeClassicToken : fetchAllMaybeToken2022;
      const [ownerAccount, customerAccount] = await fetchAll(client.rpc, [ownerAta, customerAta], { commitment: 'confirmed' });
      assert.ok(ownerAccount?.exists && customerAccount?.exists);
      assert.equal(ownerAccount.data.owner, owner);
      assert.equal(ownerAccount.data.mint, token.address);
      assert.equal(ownerAccount.data.amount, amount + 1n);
      assert.equal(ownerAccount.programAddress, token.tokenProgram);
      assert.equal(customerAccount.data.amount, customerBefore - amount - 1n);

      const byOwner = await client.rpc.getTokenAccountsByOwner(owner, { mint: address(token.address) }, { encoding: 'jsonParsed', commitment: 'confirmed' }).send();
      assert.deepEqual(byOwner.value.map((a) => [a.pubkey, a.account.data.parsed.info.tokenAmount.amount]), [[ownerAta, (amount + 1n).toString()]]);

      // The payment service's view: the deposit owner's history leads to the transfer and its token balances.
      const history = await client.rpc.getSignaturesForAddress(owner, { commitment: 'confirmed' }).send();
      assert.equal(history.length, 2);
      assert.equal(history[1]?.signature, signature);
      assert.equal(history[1]?.err, null);
      const page = async (config: { limit?: number; before?: Signature; until?: Signature }) =>
        (await client.rpc.getSignaturesForAddress(owner, { commitment: 'confirmed', ...config }).send()).map((h) => h.signature);
      assert.deepEqual(await page({ limit: 1 }), [history[0]?.signature]);
      assert.deepEqual(await page({ before: history[0]!.signature }), [signature]);
      assert.deepEqual(await page({ until: signature }), [history[0]?.signature]);
      const tx = await client.rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
      assert.ok(tx?.meta);
      const keys = tx.transaction.message.accountKeys;
      assert.deepEqual(keys[0], { pubkey: customer.address, signer: true, writable: true, source: 'transaction' });
      assert.deepEqual(keys.find((k) => k.pubkey === token.tokenProgram), { pubkey: token.tokenProgram, signer: false, writable: false, source: 'transaction' });
      assert.equal(keys.find((k) => k.pubkey === ownerAta)?.writable, true);
      const pre = tx.meta.preTokenBalances ?? [];
      const post = tx.meta.postTokenBalances ?? [];
      const received = post.find((b) => b.owner === owner);
      assert.equal(received?.mint, token.address);
      assert.equal(received?.programId, token.tokenProgram);
      assert.equal(received?.uiTokenAmount.amount, amount.toString());
      assert.equal(pre.some((b) => b.owner === owner), false, 'the recipient account did not exist before');
      const sent = pre.find((b) => b.owner === customer.address);
      assert.equal(sent?.mint, token.address);
      const sentAfter = post.find((b) => b.accountIndex === sent?.accountIndex);
      assert.equal(BigInt(sent?.uiTokenAmount.amount ?? 0) - BigInt(sentAfter?.uiTokenAmount.amount ?? 0), amount);
      // The account creation ran as inner instructions of the associated-token program, logged as on a cluster.
      const inner = tx.meta.innerInstructions?.find((i) => i.index === 0)?.instructions ?? [];
      assert.deepEqual(inner.map((ix) => ('parsed' in ix ? (ix.parsed as { type: string }).type : 'unparsed')),
        ['getAccountDataSize', 'createAccount', 'initializeImmutableOwner', 'initializeAccount3']);
      assert.equal(tx.meta.logMessages?.[0], 'Program ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL invoke [1]');
      const transfer = tx.transaction.message.instructions.find((ix) => 'parsed' in ix && (ix.parsed as { type: string }).type === 'transferChecked');
      assert.ok(transfer && 'parsed' in transfer);
      // kit reads every integer it has no type for (like decimals inside parsed instruction info) as a bigint.
      assert.deepEqual((transfer.parsed as { info: unknown }).info, {
        source: customerAta, destination: ownerAta, authority: customer.address, mint: token.address,
        tokenAmount: { amount: amount.toString(), decimals: 6n, uiAmount: 12.345678, uiAmountString: '12.345678' },
      });
    });
  }

  it('sweeps a deposit with the treasury as fee payer and closes it, returning the rent to the treasury', async () => {
    for (const token of [client.devnet.mints.USDC, client.devnet.mints.PYUSD]) {
      const deposit = await generateKeyPairSigner();
      const depositAta = await client.ata(deposit.address, token);
      const treasuryAta = await client.ata(treasury.address, token);
      // The customer's wallet creates the deposit's token account (paying its rent) and pays.
      await client.transferChecked(customer, customer, token, deposit.address, usd(25n));
      const rent = await client.lamports(depositAta);
      const treasurySol = await client.lamports(treasury.address);
      const treasuryTokens = await client.tokenAmount(treasuryAta);

      const mint = address(token.address);
      const programAddress = address(token.tokenProgram);
      const sweep = [
        getTransferCheckedInstruction({ source: depositAta, mint, destination: treasuryAta, authority: deposit, amount: usd(25n), decimals: 6 }, { programAddress }),
        getCloseAccountInstruction({ account: depositAta, destination: treasury.address, owner: deposit }, { programAddress }),
      ];
      // kit's estimator simulates the message (unsigned, blockhash replaced) to size the compute budget.
      const units = await estimateComputeUnitLimitFactory({ rpc: client.rpc })((await client.sign(treasury, sweep)).message);
      const signature = await client.send(treasury, [getSetComputeUnitLimitInstruction({ units }), ...sweep]);
      assert.equal((await client.rpc.getAccountInfo(depositAta, { commitment: 'confirmed', encoding: 'base64' }).send()).value, null);
      assert.equal(await client.tokenAmount(treasuryAta), treasuryTokens + usd(25n));
      // Two signatures (treasury, deposit): 10,000 lamports of fee; the deposit key itself never held SOL.
      assert.equal(await client.lamports(treasury.address), treasurySol + rent - 10_000n);
      assert.equal(await client.lamports(deposit.address), 0n);
      const tx = await client.rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
      assert.equal(tx?.meta?.fee, 10_000n);
      assert.equal(tx?.meta?.computeUnitsConsumed, BigInt(units));
      assert.equal(tx?.transaction.message.accountKeys[0], treasury.address);
      assert.equal(tx?.meta?.postTokenBalances?.some((b) => b.owner === deposit.address), false, 'the closed account has no post balance');
    }
  });

  it('moves a transaction from confirmed to finalized only once it is deep enough', async () => {
    const to = freshAddress();
    const { wire } = await client.sign(customer, [getTransferSolInstruction({ source: customer, destination: to, amount: 1_000_000n })]);
    const signature = await client.sendWire(wire);
    const [early] = (await client.rpc.getSignatureStatuses([signature]).send()).value;
    assert.equal(early?.confirmationStatus, 'confirmed');
    assert.equal(early?.err, null);
    assert.equal(typeof early?.confirmations, 'bigint');
    assert.equal(await client.lamports(to, 'confirmed'), 1_000_000n);
    assert.equal(await client.lamports(to, 'finalized'), 0n, 'finalized state does not include the transaction yet');
    assert.equal(await client.rpc.getTransaction(signature, { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 }).send(), null);
    assert.equal((await client.rpc.getSignaturesForAddress(to, { commitment: 'finalized' }).send()).length, 0);

    const final = await client.waitFor('finalization', async () => {
      const [status] = (await client.rpc.getSignatureStatuses([signature]).send()).value;
      return status?.confirmationStatus === 'finalized' ? status : undefined;
    });
    assert.equal(final.confirmations, null);
    assert.ok(await client.rpc.getSlot({ commitment: 'finalized' }).send() >= final.slot);
    assert.ok(await client.rpc.getSlot({ commitment: 'confirmed' }).send() >= final.slot + BigInt(FINALITY_DEPTH));
    assert.equal(await client.lamports(to, 'finalized'), 1_000_000n);
    assert.equal((await client.rpc.getTransaction(signature, { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 }).send())?.slot, final.slot);
    assert.deepEqual((await client.rpc.getSignaturesForAddress(to, { commitment: 'finalized' }).send()).map((s) => s.confirmationStatus), ['finalized']);
  });

  it('serves the blocks of ended slots (getBlocks, getBlock with full transactions, their accounts, or signatures); the slot being produced has none yet', async () => {
    const to = freshAddress();
    const signature = await client.send(customer, [getTransferSolInstruction({ source: customer, destination: to, amount: 3_000_000n })]);
    const { slot } = (await client.rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send())!;
    // The slot being produced is past the confirmed one and has no block yet. A slot may end between two reads: then
    // the reads are taken again (a devnet serving the slot being produced never passes).
    await client.waitFor('a slot being produced, with no block yet', async () => {
      const confirmed = await client.rpc.getSlot({ commitment: 'confirmed' }).send();
      const produced = await client.rpc.getSlot({ commitment: 'processed' }).send();
      assert.ok(confirmed < produced, 'the confirmed slot is the last one that ended');
      try {
        await client.rpc.getBlock(produced, { commitment: 'confirmed', transactionDetails: 'none', rewards: false }).send();
      } catch (err) {
        if (/Block not available for slot/.test(String(err))) return true;
        throw err;
      }
      const still = await client.rpc.getSlot({ commitment: 'processed' }).send();
      assert.notEqual(still, produced, `slot ${produced} is still being produced, yet its block is served`);
      return undefined;
    });

    const ended = await client.waitFor('the transaction’s slot to end', async () => {
      const newest = await client.rpc.getSlot({ commitment: 'confirmed' }).send();
      return newest >= slot ? newest : undefined;
    });
    const slots = await client.rpc.getBlocks(slot - 2n, ended + 100n, { commitment: 'confirmed' }).send();
    assert.deepEqual(slots, Array.from({ length: Number(ended - slot) + 3 }, (_, i) => slot - 2n + BigInt(i)), 'every slot since genesis up to the confirmed one is a block');

    const accounts = await client.rpc.getBlock(slot, { commitment: 'confirmed', transactionDetails: 'accounts', maxSupportedTransactionVersion: 0, rewards: false }).send();
    const tx = accounts?.transactions.find((t) => t.transaction.signatures[0] === signature);
    assert.ok(tx, 'the block carries the transaction');
    const index = tx.transaction.accountKeys.findIndex((k) => k.pubkey === to);
    assert.deepEqual(tx.transaction.accountKeys[0], { pubkey: customer.address, signer: true, source: 'transaction', writable: true });
    assert.ok(tx.meta);
    assert.equal(tx.meta.postBalances[index]! - tx.meta.preBalances[index]!, 3_000_000n);
    assert.equal(accounts?.blockHeight, slot - 1_000n);
    assert.equal(accounts?.parentSlot, slot - 1n);
    assert.equal(accounts?.blockTime, await client.rpc.getBlockTime(slot).send());
    assert.equal('rewards' in accounts, false);

    const full = await client.rpc.getBlock(slot, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    assert.deepEqual(full?.rewards, []);
    assert.equal(full?.transactions.find((t) => t.transaction.signatures[0] === signature)?.transaction.message.accountKeys[0], customer.address);
    const signatures = await client.rpc.getBlock(slot, { commitment: 'confirmed', transactionDetails: 'signatures', rewards: false }).send();
    assert.ok(signatures?.signatures.includes(signature));
    assert.equal((await client.rpc.getBlock(slot - 1n, { commitment: 'confirmed', transactionDetails: 'accounts', maxSupportedTransactionVersion: 0 }).send())?.previousBlockhash !== undefined, true);
    await assert.rejects(client.rpc.getBlock(999n, { commitment: 'confirmed', transactionDetails: 'none' }).send(), /skipped/);
  });

  it("serves kit's websocket flows: airdropFactory, sendAndConfirmTransaction and account notifications", async () => {
    const rpcSubscriptions = createSolanaRpcSubscriptions(client.devnet.wsUrl);
    const wallet = await generateKeyPairSigner();
    await airdropFactory({ rpc: client.rpc, rpcSubscriptions })({ recipientAddress: wallet.address, lamports: lamports(LAMPORTS_PER_SOL), commitment: 'confirmed' });
    assert.equal(await client.lamports(wallet.address), LAMPORTS_PER_SOL);

    // A deposit watched the way a detector without polling would: notifications on its token account.
    const token = client.devnet.mints.USDC;
    const mint = address(token.address);
    const deposit = freshAddress();
    const depositAta = await client.ata(deposit, token);
    const abort = new AbortController();
    const notifications = await rpcSubscriptions.accountNotifications(depositAta, { commitment: 'confirmed', encoding: 'base64' }).subscribe({ abortSignal: abort.signal });
    // kit drops notifications that arrive before iteration starts, so start waiting first.
    const funded = notifications[Symbol.asyncIterator]().next();
    const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc: client.rpc, rpcSubscriptions });
    const { signed } = await client.sign(customer, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: customer, ata: depositAta, owner: deposit, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
      getTransferCheckedInstruction({ source: await client.ata(customer.address, token), mint, destination: depositAta, authority: customer, amount: usd(7n), decimals: 6 }, { programAddress: TOKEN_PROGRAM_ADDRESS }),
    ]);
    assertIsTransactionWithBlockhashLifetime(signed);
    await sendAndConfirm(signed, { commitment: 'confirmed' });
    const first = await funded;
    abort.abort();
    assert.equal(first.done, false);
    const data = (first.value as { value: { data: [string, string] } }).value.data;
    assert.equal(getTokenDecoder().decode(Buffer.from(data[0], 'base64')).amount, usd(7n));

    // Waiting for finality the same way.
    const { signed: toFinal } = await client.sign(wallet, [getTransferSolInstruction({ source: wallet, destination: deposit, amount: 1_000_000n })]);
    assertIsTransactionWithBlockhashLifetime(toFinal);
    await sendAndConfirm(toFinal, { commitment: 'finalized' });
    assert.equal(await client.lamports(deposit, 'finalized'), 1_000_000n);
  });

  it('refuses a failing transfer at preflight with the error kit decodes', async () => {
    const token = client.devnet.mints.USDC;
    const { wire } = await client.sign(customer, [
      getTransferCheckedInstruction({
        source: await client.ata(customer.address, token), mint: address(token.address), destination: await client.ata(treasury.address, token),
        authority: customer, amount: usd(1_000_000_000n), decimals: 6,
      }, { programAddress: address(token.tokenProgram) }),
    ]);
    await assert.rejects(client.sendWire(wire), (err) => {
      assert.ok(isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE));
      // SPL Token's InsufficientFunds is custom program error 1.
      assert.ok(isSolanaError(err.cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM));
      assert.equal(err.cause.context.code, 1);
      assert.equal(err.cause.context.index, 0);
      return true;
    });
  });

  it('scans 10,000 deposit token accounts with getMultipleAccounts in batches of 100', async function () {
    this.timeout(600_000);
    const token = client.devnet.mints.USDC;
    const mint = address(token.address);
    const owners = Array.from({ length: 10_000 }, freshAddress);
    const atas = await Promise.all(owners.map((owner) => client.ata(owner, token)));
    // The deposits' token accounts, created the way the payment flow creates them (twelve to a transaction).
    const PER_TX = 12;
    const IN_FLIGHT = 8;
    const creates = owners.map((owner, i) => getCreateAssociatedTokenIdempotentInstruction({ payer: treasury, ata: atas[i]!, owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }));
    const setupStart = performance.now();
    const signatures: Signature[] = [];
    for (let i = 0; i < creates.length; i += PER_TX * IN_FLIGHT) {
      const wave = [];
      for (let j = i; j < Math.min(i + PER_TX * IN_FLIGHT, creates.length); j += PER_TX) {
        wave.push(client.sign(treasury, creates.slice(j, j + PER_TX)).then(({ wire }) => client.sendWire(wire)));
      }
      signatures.push(...(await Promise.all(wave)));
    }
    await client.confirmed(signatures, 300_000);
    const funded = new Map([[atas[17]!, usd(10n)], [atas[5_000]!, usd(250n, 500_000n)], [atas[9_999]!, 1n]]);
    for (const [ata, amount] of funded) {
      await client.send(treasury, [getTransferCheckedInstruction({ source: await client.ata(treasury.address, token), mint, destination: ata, authority: treasury, amount, decimals: 6 })].map((ix) => ({ ...ix, programAddress: TOKEN_PROGRAM_ADDRESS })));
    }
    console.log(`      setup: ${signatures.length} transactions created ${owners.length} token accounts in ${Math.round(performance.now() - setupStart)} ms`);

    type Batch = (batch: Address[]) => Promise<(bigint | null)[]>;
    // Decoded with the token program's client, as a wallet would.
    const decoded: Batch = async (batch) =>
      (await fetchAllMaybeClassicToken(client.rpc, batch, { commitment: 'confirmed' })).map((a) => (a.exists ? a.data.amount : null));
    // Only the 8 amount bytes of each account (dataSlice), as a detection loop needs.
    const sliced: Batch = async (batch) =>
      (await client.rpc.getMultipleAccounts(batch, { commitment: 'confirmed', encoding: 'base64', dataSlice: { offset: 64, length: 8 } }).send()).value
        .map((a) => (a === null ? null : Buffer.from(a.data[0], 'base64').readBigUInt64LE(0)));
    const scan = async (read: Batch): Promise<{ ms: number; seen: number; paid: Map<Address, bigint> }> => {
      const start = performance.now();
      const paid = new Map<Address, bigint>();
      let seen = 0;
      for (let i = 0; i < atas.length; i += 100) {
        const batch = atas.slice(i, i + 100);
        (await read(batch)).forEach((amount, j) => {
          if (amount === null) return;
          seen += 1;
          if (amount > 0n) paid.set(batch[j]!, amount);
        });
      }
      return { ms: performance.now() - start, seen, paid };
    };
    await scan(sliced); // warm-up: the first pass pays for JIT and connection setup
    for (const [name, read] of [['decoded with the token client', decoded], ['amounts only (dataSlice)', sliced]] as const) {
      const { ms, seen, paid } = await scan(read);
      console.log(`      scan, ${name}: ${atas.length} accounts in ${atas.length / 100} getMultipleAccounts calls: ${Math.round(ms)} ms`);
      assert.equal(seen, 10_000);
      assert.deepEqual(paid, funded);
    }
  });
});

describe('Solana devnet: blockhash lifetimes', function () {
  this.timeout(120_000);
  let client: Client;
  let customer: KeyPairSigner;

  before(async () => {
    // 10 ms slots: a blockhash expires (150 blocks) in about 1.5 s.
    client = new Client(await startSolanaDevnet({ port: 0, slotTimeMs: 10 }));
    customer = await Client.signer(client.devnet.customer);
  });
  after(async () => {
    await client?.devnet.stop();
  });

  const transfer = (lamportAmount: bigint, destination = freshAddress()) => [getTransferSolInstruction({ source: customer, destination, amount: lamportAmount })];
  const heightOf = async () => client.rpc.getBlockHeight({ commitment: 'confirmed' }).send();

  it('accepts a blockhash that is no longer the latest but still valid, and refuses it once expired', async () => {
    const lifetime = (await client.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
    await client.waitFor('ten more blocks', async () => ((await heightOf()) > lifetime.lastValidBlockHeight - 140n ? true : undefined));
    assert.notEqual((await client.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value.blockhash, lifetime.blockhash);
    await client.confirmed([await client.sendWire((await client.sign(customer, transfer(1_000_000n), lifetime)).wire)]);

    const late = await client.sign(customer, transfer(2_000_000n), lifetime);
    await client.waitFor('expiry', async () => ((await heightOf()) > lifetime.lastValidBlockHeight ? true : undefined));
    assert.equal((await client.rpc.isBlockhashValid(lifetime.blockhash, { commitment: 'confirmed' }).send()).value, false);
    await assert.rejects(client.sendWire(late.wire), (err) => {
      assert.ok(isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE));
      assert.ok(isSolanaError(err.cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND));
      return true;
    });
    // Without preflight the RPC hands back the signature, and the transaction never lands.
    const dropped = await client.sendWire(late.wire, true);
    const slot = await client.rpc.getSlot({ commitment: 'confirmed' }).send();
    await client.waitFor('a few more slots', async () => ((await client.rpc.getSlot({ commitment: 'confirmed' }).send()) > slot + 5n ? true : undefined));
    assert.deepEqual((await client.rpc.getSignatureStatuses([dropped], { searchTransactionHistory: true }).send()).value, [null]);
  });

  it('accepts a durable-nonce transaction long after any blockhash of its time expired, and only once', async () => {
    const nonceAccount = await generateKeyPairSigner();
    const space = getNonceSize();
    const rent = await client.rpc.getMinimumBalanceForRentExemption(BigInt(space)).send();
    await client.send(customer, [
      getCreateAccountInstruction({ payer: customer, newAccount: nonceAccount, lamports: rent, space, programAddress: SYSTEM_PROGRAM_ADDRESS }),
      getInitializeNonceAccountInstruction({ nonceAccount: nonceAccount.address, nonceAuthority: customer.address }),
    ]);
    const nonceOf = async () => (await fetchNonce(client.rpc, nonceAccount.address, { commitment: 'confirmed' })).data.blockhash;
    const nonce = await nonceOf();
    const signWithNonce = async (instructions: Instruction[]) => getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(customer, m),
      (m) => setTransactionMessageLifetimeUsingDurableNonce({ nonce: nonce as string as Nonce, nonceAccountAddress: nonceAccount.address, nonceAuthorityAddress: customer.address }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    )));
    const to = freshAddress();
    const first = await signWithNonce(transfer(3_000_000n, to));
    const second = await signWithNonce(transfer(4_000_000n, to));
    const start = await heightOf();
    await client.waitFor('160 more blocks', async () => ((await heightOf()) > start + 160n ? true : undefined));

    await client.confirmed([await client.sendWire(first)]);
    assert.equal(await client.lamports(to), 3_000_000n);
    assert.notEqual(await nonceOf(), nonce, 'the transaction advanced the nonce');
    // The other transaction signed against the same nonce can no longer land.
    await assert.rejects(client.sendWire(second), (err) => isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE) &&
      isSolanaError(err.cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND));
  });
});

describe('Solana devnet: state across restarts', function () {
  this.timeout(120_000);
  let dir: string;
  let devnet: SolanaDevnet | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'solana-devnet-'));
  });
  after(async () => {
    await devnet?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps balances, token accounts and transaction history in its state file', async () => {
    const stateFile = join(dir, 'solana.json');
    devnet = await startSolanaDevnet({ port: 0, slotTimeMs: 50, stateFile });
    let client = new Client(devnet);
    const customer = await Client.signer(devnet.customer);
    const token = devnet.mints.PYUSD;
    const deposit = freshAddress();
    const depositAta = await client.ata(deposit, token);
    const signature = await client.transferChecked(customer, customer, token, deposit, usd(42n));
    const slotBefore = await client.rpc.getSlot({ commitment: 'confirmed' }).send();
    const customerSol = await client.lamports(customer.address);
    const mints = devnet.mints;
    // Signed before the restart, sent after it: the blockhash window survives too.
    const { wire: signedBefore } = await client.sign(customer, [getTransferSolInstruction({ source: customer, destination: deposit, amount: 5_000_000n })]);
    await devnet.stop();

    devnet = await startSolanaDevnet({ port: 0, slotTimeMs: 50, stateFile });
    client = new Client(devnet);
    assert.deepEqual(devnet.mints, mints);
    assert.ok(await client.rpc.getSlot({ commitment: 'confirmed' }).send() > slotBefore);
    assert.equal(await client.tokenAmount(depositAta), usd(42n));
    assert.equal(await client.lamports(customer.address), customerSol);
    assert.deepEqual((await client.rpc.getTokenAccountsByOwner(deposit, { programId: TOKEN_2022_PROGRAM_ADDRESS }, { encoding: 'base64', commitment: 'confirmed' }).send()).value.map((a) => a.pubkey), [depositAta]);
    const history = await client.rpc.getSignaturesForAddress(deposit, { commitment: 'confirmed' }).send();
    assert.deepEqual(history.map((h) => h.signature), [signature]);
    const tx = await client.rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    assert.equal(tx?.meta?.postTokenBalances?.find((b) => b.owner === deposit)?.uiTokenAmount.amount, usd(42n).toString());
    // The restored chain still executes: the same sender pays again.
    await client.transferChecked(customer, customer, token, deposit, usd(1n));
    assert.equal(await client.tokenAmount(depositAta), usd(43n));
    await client.confirmed([await client.sendWire(signedBefore)]);
    assert.equal(await client.lamports(deposit), 5_000_000n);
  });
});

describe('Solana devnet: its base58 codec', () => {
  it("agrees with kit's on random bytes, leading zeros and the empty string", () => {
    for (let i = 0; i < 2_000; i++) {
      const bytes = randomBytes(i % 70);
      bytes.fill(0, 0, i % 5); // leading zero bytes are leading '1's
      const text = encodeBase58(bytes);
      assert.equal(text, getBase58Decoder().decode(bytes));
      assert.deepEqual(decodeBase58(text), new Uint8Array(getBase58Encoder().encode(text)));
    }
    assert.throws(() => decodeBase58('0OIl'), /invalid base58 character/);
  });
});
