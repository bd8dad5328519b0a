/**
 * Payins hidden behind spam, on Solana, TON, Tron and Stellar, on the real stack: right after the customer pays, an
 * attacker sends fifty zero-amount (or dust) transactions touching the deposit. A watcher that read only a deposit's
 * newest transactions would never see the payin (the payment would expire, the funds sit unrecorded); the scan reads
 * every transaction of every block since its cursor, so the payment completes on the customer's payin.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { findAssociatedTokenPda, getTransferCheckedInstruction } from '@solana-program/token-2022';
import { Asset, Horizon, Keypair, Memo, Operation, TimeoutInfinite, TransactionBuilder } from '@stellar/stellar-sdk';
import { Address, SendMode, internal } from '@ton/ton';
import { TronWeb } from 'tronweb';
import { listPayins } from '../../db/queries/payins';
import { stackChain, type DevStackInfo, type Stack } from '../../tools/stack/stack';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { PAYIN_FAMILIES, newFamilyApp, tonCustomer, type FamilyApp, type PayinFamily } from '../support/payin-families';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { stellarDestination } from '../support/stellar';

const SPAM = 50;

/** Fifty zero-amount `transferChecked`s of USDC into the deposit's token account (each with its own priority fee, so each is its own transaction). */
async function solanaSpam(info: DevStackInfo, deposit: string): Promise<void> {
  const chain = stackChain(info, 'solana');
  const token = chain.tokens.USDC;
  const rpc = createSolanaRpc(chain.rpcUrl);
  const customer = await createKeyPairSignerFromBytes(Uint8Array.from(info.customer.solana.secretKey));
  const mint = address(token.address);
  const tokenProgram = address(token.tokenProgram);
  const [source] = await findAssociatedTokenPda({ owner: customer.address, mint, tokenProgram });
  const [destination] = await findAssociatedTokenPda({ owner: address(deposit), mint, tokenProgram });
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const signatures = await Promise.all(
    Array.from({ length: SPAM }, async (_, i) => {
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(customer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) => appendTransactionMessageInstructions([
          getSetComputeUnitPriceInstruction({ microLamports: i + 1 }),
          getTransferCheckedInstruction({ source, mint, destination, authority: customer, amount: 0n, decimals: token.decimals }, { programAddress: tokenProgram }),
        ], m),
      );
      const signed = await signTransactionMessageWithSigners(message);
      await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
      return getSignatureFromTransaction(signed);
    }),
  );
  await eventually('the spam to land', 60_000, async () => {
    const { value } = await rpc.getSignatureStatuses(signatures).send();
    return value.every((s) => s?.err === null) ? true : undefined;
  });
  const history = await rpc.getSignaturesForAddress(destination, { commitment: 'confirmed', limit: SPAM }).send();
  assert.ok(history.every((h) => signatures.includes(h.signature)), 'the token account’s fifty newest transactions are all spam');
}

/** Fifty value-free messages to the deposit wallet in one wallet transfer, each a transaction of the deposit. */
async function tonSpam(info: DevStackInfo, deposit: string): Promise<void> {
  const payer = await tonCustomer(info);
  const seqno = await payer.wallet.getSeqno();
  await payer.wallet.sendTransfer({
    seqno,
    secretKey: payer.key.secretKey,
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: Array.from({ length: SPAM }, () => internal({ to: Address.parse(deposit), value: 0n, bounce: false })),
  });
  await eventually('the spam to land', 60_000, async () => {
    const txs = await payer.client.getTransactions(Address.parse(deposit), { limit: SPAM });
    return txs.length === SPAM ? true : undefined;
  });
}

/** Fifty zero-amount USDT `transfer`s to the deposit (each with its own fee limit, so each is its own transaction). */
async function tronSpam(info: DevStackInfo, deposit: string): Promise<void> {
  const chain = stackChain(info, 'tron');
  const tronWeb = new TronWeb({ fullHost: chain.rpcUrl });
  const txIDs: string[] = [];
  for (let i = 0; i < SPAM; i++) {
    const { transaction } = await tronWeb.transactionBuilder.triggerSmartContract(
      chain.tokens.USDT.address,
      'transfer(address,uint256)',
      { feeLimit: 100_000_000 + i },
      [
        { type: 'address', value: deposit },
        { type: 'uint256', value: '0' },
      ],
      info.customer.tron.address,
    );
    const sent = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(transaction, info.customer.tron.privateKey));
    assert.equal(sent.result, true, JSON.stringify(sent));
    txIDs.push(transaction.txID);
  }
  await eventually('the spam to land', 60_000, async () => {
    const infos = await Promise.all(txIDs.map((id) => tronWeb.trx.getUnconfirmedTransactionInfo(id)));
    return infos.every((i) => i.receipt?.result === 'SUCCESS') ? true : undefined;
  });
}

/** Fifty one-stroop lumen payments to the receiving account with the deposit's memo (Stellar payments move something). */
async function stellarSpam(info: DevStackInfo, deposit: string): Promise<void> {
  const chain = stackChain(info, 'stellar');
  const server = new Horizon.Server(chain.rpcUrl, { allowHttp: true });
  const customer = Keypair.fromSecret(info.customer.stellar.secret);
  const { account, memo } = stellarDestination(deposit);
  const builder = new TransactionBuilder(await server.loadAccount(customer.publicKey()), { fee: '100', networkPassphrase: chain.networkPassphrase }).addMemo(Memo.id(memo)).setTimeout(TimeoutInfinite);
  for (let i = 0; i < SPAM; i++) builder.addOperation(Operation.payment({ destination: account, asset: Asset.native(), amount: '0.0000001' }));
  const tx = builder.build();
  tx.sign(customer);
  await server.submitTransaction(tx);
}

const SPAMMERS: Record<PayinFamily['name'], (info: DevStackInfo, deposit: string) => Promise<void>> = {
  Solana: solanaSpam,
  TON: tonSpam,
  Tron: tronSpam,
  Stellar: stellarSpam,
};

for (const family of PAYIN_FAMILIES) {
  describe(`payins hidden behind spam on ${family.name}`, function () {
    this.timeout(300_000);
    let stack: Stack;
    let services: StackServices;
    let app: FamilyApp;

    before(async function () {
      this.timeout(300_000);
      stack = await getStack();
      services = await connectServices(stack);
      app = await newFamilyApp(stack, family);
    });
    after(async () => services?.close());

    it(`${family.name}: fifty spam transactions touching the deposit right after the customer pays do not hide the payin; the payment completes`, async () => {
      const { info } = stack;
      const created = await createPayment(info.paymentApiUrl, app.ordersKey, paymentBody({ orderId: `spam-${randomUUID()}`, chainId: String(family.chainId(info)), tokenSymbol: family.symbol, amount: '3' }));
      await family.pay(info, created.source.receiverAddress, '3');
      await SPAMMERS[family.name](info, created.source.receiverAddress);
      const { payment } = await waitForStatus(info.paymentApiUrl, created.id, 'payment_completed', 180_000);
      assert.equal(payment.source.amountReceived, '3');
      const payins = await listPayins({ knex: services.knex, paymentId: created.id });
      assert.deepEqual(payins.map((p) => [p.amount_units, p.disposition]), [[(3n * 10n ** BigInt(family.decimals)).toString(), 'payment']], 'one payin, the customer’s; no spam counted');
      assert.equal(payment.source.txHash, payins[0]!.tx_hash);
    });
  });
}
