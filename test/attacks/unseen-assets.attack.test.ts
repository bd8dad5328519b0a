/**
 * Assets nobody configured, sent to deposits and to the Stellar receiving account on the real stack: native SOL and
 * another mint on Solana; TON coins to a jetton deposit and another jetton on TON; TRX, a TRC-10 token and another
 * TRC-20 on Tron; lumens, another credit asset and path payments on Stellar. None is ever unseen: each is recorded as
 * quarantined for the payment whose deposit it reached (and listed on the dashboard's payment page), or, into the
 * receiving account without a memo, held for the operator (`npm run held-payins`). None counts towards the payment,
 * none is refunded at the treasury's cost. A path payment of the payment's own asset is a payin like any other.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getInitializeMint2Instruction, getMintSize, getMintToInstruction } from '@solana-program/token-2022';
import { Asset, Horizon, Keypair, Memo, Operation, TimeoutInfinite, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { JettonMinter } from '@ton-community/assets-sdk/dist/jetton/JettonMinter';
import { storeJettonMintMessage } from '@ton-community/assets-sdk/dist/jetton/types/JettonMintMessage';
import { SendMode, beginCell, internal, toNano } from '@ton/ton';
import { TronWeb, type Types } from 'tronweb';
import { listHeldPayins } from '../../db/queries/held-payins';
import { listPayins } from '../../db/queries/payins';
import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';
import { listQuarantinedTransfers, reconcileLedger, type QuarantinedTransfer } from '../../services/ledger';
import { stackChain, type DevStackInfo, type Stack } from '../../tools/stack/stack';
import { createPayment, getPayment, paymentBody, waitForStatus } from '../support/api';
import { PAYIN_FAMILIES, dashboardQuarantined, jettonBalance, newFamilyApp, tonCustomer, type FamilyApp, type PayinFamily } from '../support/payin-families';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { payJetton, payTon } from '../support/ton';
import { stellarDestination } from '../support/stellar';

const family = (name: PayinFamily['name']): PayinFamily => PAYIN_FAMILIES.find((f) => f.name === name)!;

/** What a test expects quarantined: the asset (case-insensitive: base58 mints, raw TON addresses) and the amount. */
type Expected = Array<{ tokenAddress: string; amountUnits: string }>;

/** A family's attack: sends assets its deposit does not take, and says what must be quarantined for the payment. */
type SendOthers = (stack: Stack, deposit: string) => Promise<Expected>;

/** Signs (the customer pays the fee; instruction signers sign too), sends and waits for the transaction to land. */
async function solanaSend(info: DevStackInfo, customer: KeyPairSigner, instructions: Instruction[]): Promise<void> {
  const rpc = createSolanaRpc(stackChain(info, 'solana').rpcUrl);
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(customer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
  const signature = getSignatureFromTransaction(signed);
  await eventually(`${signature} to land`, 30_000, async () => ((await rpc.getSignatureStatuses([signature]).send()).value[0]?.err === null ? true : undefined));
}

/** Native SOL to the deposit, and a mint of the customer's own (classic SPL Token) minted straight into the deposit's token account. */
const solanaOthers: SendOthers = async ({ info }, deposit) => {
  const rpc = createSolanaRpc(stackChain(info, 'solana').rpcUrl);
  const customer = await createKeyPairSignerFromBytes(Uint8Array.from(info.customer.solana.secretKey));
  await solanaSend(info, customer, [getTransferSolInstruction({ source: customer, destination: address(deposit), amount: 10_000_000n })]);
  const mint = await generateKeyPairSigner();
  const tokenProgram = stackChain(info, 'solana').tokens.USDC.tokenProgram;
  const programAddress = address(tokenProgram);
  const [ata] = await findAssociatedTokenPda({ owner: address(deposit), mint: mint.address, tokenProgram: programAddress });
  const space = BigInt(getMintSize());
  await solanaSend(
    info,
    customer,
    [
      getCreateAccountInstruction({ payer: customer, newAccount: mint, lamports: await rpc.getMinimumBalanceForRentExemption(space).send(), space, programAddress }),
      getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: customer.address }, { programAddress }),
      getCreateAssociatedTokenIdempotentInstruction({ payer: customer, ata, owner: address(deposit), mint: mint.address, tokenProgram: programAddress }),
      getMintToInstruction({ mint: mint.address, token: ata, mintAuthority: customer, amount: 4_200_000n }, { programAddress }),
    ],
  );
  return [
    { tokenAddress: NATIVE_TOKEN_ADDRESS, amountUnits: '10000000' },
    { tokenAddress: mint.address, amountUnits: '4200000' },
  ];
};

/** TON coins to the jetton deposit, and a jetton of the customer's own minter sent to it as a wallet app sends jettons. */
const tonOthers: SendOthers = async ({ info }, deposit) => {
  const payer = await tonCustomer(info);
  await payTon(payer, deposit, toNano('0.5'));
  const content = beginCell().storeUint(1, 8).storeStringTail(`https://example.test/jetton-${randomUUID()}.json`).endCell();
  const minter = JettonMinter.createFromConfig({ admin: payer.wallet.address, content });
  const seqno = await payer.wallet.getSeqno();
  await payer.wallet.sendTransfer({
    seqno,
    secretKey: payer.key.secretKey,
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    messages: [
      internal({
        to: minter.address,
        value: toNano('0.2'),
        bounce: false,
        init: minter.init,
        body: beginCell()
          .store(storeJettonMintMessage({ queryId: 0n, amount: 1_000_000_000n, from: minter.address, to: payer.wallet.address, responseAddress: payer.wallet.address, forwardPayload: null, forwardTonAmount: 0n, walletForwardValue: toNano('0.1') }))
          .endCell(),
      }),
    ],
  });
  const master = minter.address.toRawString();
  await eventually('the customer’s own jetton minted', 60_000, async () => ((await jettonBalance(info, master, payer.wallet.address.toRawString())) === 1_000_000_000n ? true : undefined));
  await payJetton(payer, master, deposit, 7_000_000n);
  return [
    { tokenAddress: NATIVE_TOKEN_ADDRESS, amountUnits: toNano('0.5').toString() },
    { tokenAddress: master, amountUnits: '7000000' },
  ];
};

/** TRX, the devnet's TRC-10 token and its unconfigured TRC-20 (TUSD), each to the deposit. */
const tronOthers: SendOthers = async ({ info }, deposit) => {
  const chain = stackChain(info, 'tron');
  const tronWeb = new TronWeb({ fullHost: chain.rpcUrl });
  const { customer } = info;
  const sent = async (tx: Types.Transaction) => {
    const result = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(tx, customer.tron.privateKey));
    assert.equal(result.result, true, JSON.stringify(result));
    await eventually(`${result.txid} in a block`, 30_000, async () => ((await tronWeb.trx.getUnconfirmedTransactionInfo(result.txid)).blockNumber ? true : undefined));
  };
  await sent(await tronWeb.transactionBuilder.sendTrx(deposit, 1_500_000, customer.tron.address));
  await sent(await tronWeb.transactionBuilder.sendToken(deposit, 3_000_000, chain.otherAssets.TRC10.id, customer.tron.address));
  const { transaction } = await tronWeb.transactionBuilder.triggerSmartContract(chain.otherAssets.TUSD.address, 'transfer(address,uint256)', { feeLimit: 100_000_000 }, [
    { type: 'address', value: deposit },
    { type: 'uint256', value: '9000000' },
  ], customer.tron.address);
  await sent(transaction);
  return [
    { tokenAddress: NATIVE_TOKEN_ADDRESS, amountUnits: '1500000' },
    { tokenAddress: chain.otherAssets.TRC10.id, amountUnits: '3000000' },
    // Named by its hex address: it is not configured, and the ledger keeps addresses in lower case.
    { tokenAddress: TronWeb.address.toHex(chain.otherAssets.TUSD.address), amountUnits: '9000000' },
  ];
};

async function stellarSubmit(info: DevStackInfo, signer: Keypair, operations: xdr.Operation[], memo: Memo = Memo.none()): Promise<string> {
  const chain = stackChain(info, 'stellar');
  const server = new Horizon.Server(chain.rpcUrl, { allowHttp: true });
  const builder = new TransactionBuilder(await server.loadAccount(signer.publicKey()), { fee: '100', networkPassphrase: chain.networkPassphrase }).addMemo(memo).setTimeout(TimeoutInfinite);
  for (const op of operations) builder.addOperation(op);
  const tx = builder.build();
  tx.sign(signer);
  return (await server.submitTransaction(tx)).hash;
}

/**
 * Lumens with the deposit's memo, by payment and by path payment; and another credit asset (its issuer is new, the
 * receiving account trusts it, as an operator's account may trust several assets) paid with the memo.
 */
const stellarOthers: SendOthers = async (stack, deposit) => {
  const { info } = stack;
  const { account, memo } = stellarDestination(deposit);
  const customer = Keypair.fromSecret(info.customer.stellar.secret);
  await stellarSubmit(info, customer, [Operation.payment({ destination: account, asset: Asset.native(), amount: '2.5' })], Memo.id(memo));
  await stellarSubmit(info, customer, [Operation.pathPaymentStrictReceive({ sendAsset: Asset.native(), sendMax: '2', destination: account, destAsset: Asset.native(), destAmount: '1.25', path: [] })], Memo.id(memo));
  const issuer = Keypair.random();
  await stellarSubmit(info, customer, [Operation.createAccount({ destination: issuer.publicKey(), startingBalance: '5' })]);
  const eurc = new Asset('EURC', issuer.publicKey());
  await stellarSubmit(info, Keypair.fromSecret(stack.env.STELLAR_RECEIVING_SECRET!), [Operation.changeTrust({ asset: eurc })]);
  await stellarSubmit(info, issuer, [Operation.payment({ destination: account, asset: eurc, amount: '8' })], Memo.id(memo));
  return [
    { tokenAddress: NATIVE_TOKEN_ADDRESS, amountUnits: '25000000' },
    { tokenAddress: NATIVE_TOKEN_ADDRESS, amountUnits: '12500000' },
    { tokenAddress: `EURC:${issuer.publicKey()}`, amountUnits: '80000000' },
  ];
};

const ATTACKS: Array<[PayinFamily['name'], string, SendOthers]> = [
  ['Solana', 'native SOL and another mint', solanaOthers],
  ['TON', 'TON coins to a jetton deposit and another jetton', tonOthers],
  ['Tron', 'TRX, a TRC-10 token and an unconfigured TRC-20', tronOthers],
  ['Stellar', 'lumens (by payment and path payment) and another credit asset', stellarOthers],
];

const sameAsset = (a: { tokenAddress: string; amountUnits: string }, b: { tokenAddress: string; amountUnits: string }) =>
  a.tokenAddress.toLowerCase() === b.tokenAddress.toLowerCase() && a.amountUnits === b.amountUnits;

for (const [name, what, sendOthers] of ATTACKS) {
  describe(`unseen assets on ${name}`, function () {
    this.timeout(300_000);
    let stack: Stack;
    let services: StackServices;
    let app: FamilyApp;

    before(async function () {
      this.timeout(300_000);
      stack = await getStack();
      services = await connectServices(stack);
      app = await newFamilyApp(stack, family(name));
    });
    after(async () => services?.close());

    it(`${name}: ${what} reaching a deposit are quarantined for its payment and listed on the dashboard; none counts, none is refunded`, async () => {
      const { info } = stack;
      const created = await createPayment(info.paymentApiUrl, app.ordersKey, paymentBody({ orderId: `unseen-${randomUUID()}`, chainId: String(family(name).chainId(info)), tokenSymbol: family(name).symbol, amount: '5' }));
      const expected = await sendOthers(stack, created.source.receiverAddress);
      const quarantined = await eventually(
        () => `every asset quarantined for the payment: ${JSON.stringify(expected)}`,
        120_000,
        async () => {
          const rows = await listQuarantinedTransfers({ knex: services.knex }, created.id);
          return expected.every((e) => rows.some((r) => sameAsset(r, e))) ? rows : undefined;
        },
      );
      const shown = await dashboardQuarantined(stack, app, created.id);
      for (const e of expected) assert.ok(shown.some((q) => sameAsset(q, e)), `the dashboard lists ${e.amountUnits} of ${e.tokenAddress}`);
      assert.deepEqual(
        shown.map((q) => [q.txHash, q.amountUnits]).sort(),
        quarantined.map((q: QuarantinedTransfer) => [q.txHash, q.amountUnits]).sort(),
      );
      assert.equal((await getPayment(info.paymentApiUrl, created.id)).status, 'payment_unpaid', 'nothing counted towards the payment');
      assert.deepEqual(await listPayins({ knex: services.knex, paymentId: created.id }), [], 'no payin, so no refund at the treasury’s cost');
      assert.equal(Number((await services.knex('chain_txs').where({ payment_id: created.id }).count<Array<{ count: string }>>('* as count'))[0]!.count), 0);
      // Reconcile reads each quarantined asset back from the chain, whatever case the ledger keeps it in, and finds
      // the deposit holding what the ledger says. (The payment is open, so its deposit is in flight: no failure either
      // way; the figures must match all the same. Stellar's deposits are the receiving account every app shares.)
      if (services.chains.adapter(family(name).chainId(info)).sharedReceiver === undefined) {
        // The app's one payment: its deposits are the app's.
        const { accounts } = await reconcileLedger(services, { appId: app.appId });
        const atDeposit = accounts.filter((a) => a.kind === 'deposit');
        for (const e of expected) {
          const account = atDeposit.find((a) => a.tokenAddress.toLowerCase() === e.tokenAddress.toLowerCase());
          assert.ok(account, `reconcile compares ${e.tokenAddress} at the deposit`);
          assert.equal(account.difference, 0n, `${e.tokenAddress} at the deposit: ledger ${account.units}, chain ${account.onChain}`);
        }
      }
    });
  });
}

describe('Stellar payments the receiving account takes without a payment’s memo, and path payments', function () {
  this.timeout(300_000);
  let stack: Stack;
  let services: StackServices;
  let app: FamilyApp;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    app = await newFamilyApp(stack, family('Stellar'));
  });
  after(async () => services?.close());

  it('lumens without a memo are held for the operator and listed by `npm run held-payins`', async () => {
    const { info } = stack;
    const chain = stackChain(info, 'stellar');
    const hash = await stellarSubmit(info, Keypair.fromSecret(info.customer.stellar.secret), [Operation.payment({ destination: chain.receivingAccount, asset: Asset.native(), amount: '3.5' })]);
    const held = await eventually('the lumens held', 60_000, async () => (await listHeldPayins({ knex: services.knex, chainId: chain.chainId })).find((r) => r.tx_hash === hash));
    assert.deepEqual([held.token_address, held.amount_units, held.receiver_address, held.sender_address], [NATIVE_TOKEN_ADDRESS, '35000000', chain.receivingAccount, info.customer.stellar.address]);
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'scripts/held-payins.ts', String(chain.chainId)], { env: { ...process.env, ...stack.env } });
    assert.ok(stdout.split('\n').some((line) => line.includes(hash) && line.includes('"amount_units":"35000000"')), stdout);
  });

  it('a path payment of the payment’s own asset with its memo is a payin: the payment completes on it', async () => {
    const { info } = stack;
    const created = await createPayment(info.paymentApiUrl, app.ordersKey, paymentBody({ orderId: `path-${randomUUID()}`, chainId: String(stackChain(info, 'stellar').chainId), tokenSymbol: 'USDC', amount: '4' }));
    const { account, memo } = stellarDestination(created.source.receiverAddress);
    const [code, issuer] = stackChain(info, 'stellar').tokens.USDC.address.split(':');
    const usdc = new Asset(code!, issuer);
    const hash = await stellarSubmit(info, Keypair.fromSecret(info.customer.stellar.secret), [Operation.pathPaymentStrictSend({ sendAsset: usdc, sendAmount: '4', destination: account, destAsset: usdc, destMin: '4', path: [] })], Memo.id(memo));
    const { payment } = await waitForStatus(info.paymentApiUrl, created.id, 'payment_completed', 180_000);
    assert.deepEqual([payment.source.txHash, payment.source.amountReceived, payment.source.senderAddress], [hash, '4', info.customer.stellar.address]);
    assert.equal(await family('Stellar').balance(info, app.payout), 39_800_000n, 'the merchant holds 4 USDC less the fee');
  });
});
