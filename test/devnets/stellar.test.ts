import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Account, Asset, Horizon, Keypair, Memo, MuxedAccount, Networks, NotFoundError, Operation, TransactionBuilder, xdr, type Transaction,
} from '@stellar/stellar-sdk';
import { formatAmount, parseAmount } from '../../tools/devnets/stellar/amount';
import { startStellarDevnet, type StellarDevnet } from '../../tools/devnets/stellar';
import { eventually } from '../support/poll';

type PaymentRecord = Horizon.ServerApi.PaymentOperationRecord;
interface TransactionProblem {
  type: string;
  status: number;
  extras: { result_codes: { transaction: string; operations?: string[] }; result_xdr: string; envelope_xdr: string };
}

const FEE = 100n;
const LEDGER_TIME_MS = 100;

describe('Stellar devnet: Horizon over an in-memory ledger, through @stellar/stellar-sdk', function () {
  this.timeout(60_000);
  let dir: string;
  let stateFile: string;
  let devnet: StellarDevnet;
  let server: Horizon.Server;
  let usdc: Asset;
  let customer: Keypair;
  let treasury: Keypair;
  let receiving: string;

  const start = async (): Promise<void> => {
    devnet = await startStellarDevnet({ port: 0, stateFile, ledgerTimeMs: LEDGER_TIME_MS, logFile: join(dir, 'stellar.log') });
    server = new Horizon.Server(devnet.horizonUrl, { allowHttp: true });
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stellar-devnet-'));
    stateFile = join(dir, 'state.json');
    await start();
    usdc = new Asset('USDC', devnet.assets.USDC.issuer);
    customer = Keypair.fromSecret(devnet.customer.secret);
    treasury = Keypair.fromSecret(devnet.treasury.secret);
    receiving = devnet.receiving.publicKey;
  });

  after(async () => {
    await devnet?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Native and USDC balances in stroops (USDC undefined without a trustline), and the sequence number. */
  const holdings = async (account: string) => {
    const loaded = await server.loadAccount(account);
    const usdcLine = loaded.balances.find((b) => b.asset_type === 'credit_alphanum4' && b.asset_code === 'USDC' && b.asset_issuer === usdc.getIssuer());
    const native = loaded.balances.find((b) => b.asset_type === 'native');
    assert.ok(native, `${account} has a native balance`);
    return { xlm: parseAmount(native.balance), usdc: usdcLine ? parseAmount(usdcLine.balance) : undefined, sequence: BigInt(loaded.sequence) };
  };

  const build = async (
    source: Keypair,
    ops: xdr.Operation[],
    opts: {
      memo?: Memo; fee?: string; networkPassphrase?: string; signer?: Keypair; timebounds?: { minTime: number; maxTime: number };
      /** The account sequence to build on (the transaction gets this + 1); the current one by default. */
      sequence?: bigint;
    } = {},
  ): Promise<Transaction> => {
    const sequence = opts.sequence ?? BigInt((await server.loadAccount(source.publicKey())).sequence);
    // The builder uses the account's sequence + 1.
    const builder = new TransactionBuilder(new Account(source.publicKey(), sequence.toString()), {
      fee: opts.fee ?? FEE.toString(),
      networkPassphrase: opts.networkPassphrase ?? devnet.networkPassphrase,
      ...(opts.timebounds ? { timebounds: opts.timebounds } : {}),
    });
    ops.forEach((op) => builder.addOperation(op));
    if (opts.memo) builder.addMemo(opts.memo);
    if (!opts.timebounds) builder.setTimeout(60);
    const tx = builder.build();
    tx.sign(opts.signer ?? source);
    return tx;
  };

  const pay = (to: string, asset: Asset, amount: string) => Operation.payment({ destination: to, asset, amount });

  /** Submits a transaction Horizon must answer with 400 transaction_failed and these result codes. */
  const refused = async (tx: Transaction, codes: { transaction: string; operations?: string[] }): Promise<xdr.TransactionResult> => {
    const error: unknown = await server.submitTransaction(tx).then(() => undefined, (e: unknown) => e);
    const response = (error as { response?: { status: number; data: TransactionProblem } } | undefined)?.response;
    assert.ok(response, `submission was refused with an HTTP answer, got ${String(error)}`);
    assert.equal(response.status, 400);
    assert.equal(response.data.type, 'https://stellar.org/horizon-errors/transaction_failed');
    assert.deepEqual(response.data.extras.result_codes, codes);
    assert.equal(response.data.extras.envelope_xdr, tx.toEnvelope().toXDR('base64'));
    const result = xdr.TransactionResult.fromXDR(response.data.extras.result_xdr, 'base64');
    const camel = codes.transaction.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    assert.equal(result.result().switch().name, camel);
    return result;
  };

  const notInHistory = async (tx: Transaction): Promise<void> => {
    await assert.rejects(server.transactions().transaction(tx.hash().toString('hex')).call(), NotFoundError);
  };

  /** The newest payment on the account, as an exchange keeps its cursor. */
  const tipCursor = async (account: string): Promise<string> => {
    const page = await server.payments().forAccount(account).order('desc').limit(1).call();
    return page.records[0]?.paging_token ?? '0';
  };

  const newAccount = async (startingBalance: string): Promise<Keypair> => {
    const keypair = Keypair.random();
    await server.submitTransaction(await build(treasury, [Operation.createAccount({ destination: keypair.publicKey(), startingBalance })]));
    return keypair;
  };

  it('serves the network, the fixed devnet accounts and their balances', async () => {
    const root = await server.root();
    assert.equal(root.network_passphrase, devnet.networkPassphrase);
    assert.equal(devnet.networkPassphrase, 'Payrail Stellar Devnet ; 2026');
    assert.ok(root.history_latest_ledger >= 2 && root.core_latest_ledger === root.history_latest_ledger);

    // Fixed keys: the same addresses on every start and every machine.
    assert.equal(receiving, 'GCV45XI4KAEQHYC3XOSAF6CDEHQUGLUNTTXDOPJP6OP6RFJIBSVGORFU');
    assert.equal(devnet.assets.USDC.issuer, 'GDOYJ2IPRWIWXEE7LD4KEDAENACB6SXFUMQMVWBBVMUI5DRHCWWAF4PR');
    assert.equal(devnet.assets.USDC.decimals, 7);
    assert.equal(Keypair.fromSecret(devnet.receiving.secret).publicKey(), receiving);

    const account = await server.loadAccount(receiving);
    assert.equal(account.account_id, receiving);
    assert.equal(account.subentry_count, 1);
    assert.deepEqual(account.signers, [{ weight: 1, key: receiving, type: 'ed25519_public_key' }]);
    assert.deepEqual(account.thresholds, { low_threshold: 0, med_threshold: 0, high_threshold: 0 });
    assert.equal(BigInt(account.sequence) >> 32n, 2n, 'created in ledger 2, so its sequence starts at 2 << 32');

    // Each bootstrap account paid one 100-stroop fee for its changeTrust.
    assert.deepEqual(await holdings(receiving), { xlm: parseAmount('1000') - FEE, usdc: 0n, sequence: (2n << 32n) + 1n });
    assert.deepEqual(await holdings(customer.publicKey()), { xlm: parseAmount('10000') - FEE, usdc: parseAmount('10000'), sequence: (2n << 32n) + 1n });
    assert.deepEqual(await holdings(treasury.publicKey()), { xlm: parseAmount('100000') - FEE, usdc: parseAmount('1000000'), sequence: (2n << 32n) + 1n });
    const line = account.balances.find((b) => b.asset_type === 'credit_alphanum4');
    assert.ok(line?.asset_type === 'credit_alphanum4');
    assert.equal(line.limit, '922337203685.4775807');
    await assert.rejects(server.loadAccount(Keypair.random().publicKey()), NotFoundError);
  });

  it('applies a USDC payment with a text memo, found by cursor paging on the receiving account with its memo', async () => {
    const cursor = await tipCursor(receiving);
    const before = { customer: await holdings(customer.publicKey()), receiving: await holdings(receiving) };

    const tx = await build(customer, [pay(receiving, usdc, '12.3456789')], { memo: Memo.text('order-7f3a') });
    const submitted = await server.submitTransaction(tx);
    assert.equal(submitted.successful, true);
    assert.equal(submitted.hash, tx.hash().toString('hex'));
    const result = xdr.TransactionResult.fromXDR(submitted.result_xdr, 'base64');
    assert.equal(result.result().switch().name, 'txSuccess');
    assert.equal(result.feeCharged().toBigInt(), FEE);
    assert.equal(result.result().results()[0]?.tr().paymentResult().switch().name, 'paymentSuccess');
    const meta = xdr.TransactionMeta.fromXDR(submitted.result_meta_xdr, 'base64');
    assert.deepEqual(meta.v2().operations()[0]?.changes().map((c) => c.switch().name), ['ledgerEntryState', 'ledgerEntryUpdated', 'ledgerEntryState', 'ledgerEntryUpdated']);

    const amount = parseAmount('12.3456789');
    assert.deepEqual(await holdings(customer.publicKey()), { xlm: before.customer.xlm - FEE, usdc: (before.customer.usdc ?? 0n) - amount, sequence: before.customer.sequence + 1n });
    assert.deepEqual(await holdings(receiving), { ...before.receiving, usdc: (before.receiving.usdc ?? 0n) + amount });

    const page = await server.payments().forAccount(receiving).cursor(cursor).join('transactions').call();
    assert.equal(page.records.length, 1);
    const payment = page.records[0] as PaymentRecord;
    assert.equal(payment.type, 'payment');
    assert.equal(payment.from, customer.publicKey());
    assert.equal(payment.to, receiving);
    assert.equal(payment.asset_type, 'credit_alphanum4');
    assert.equal(payment.asset_code, 'USDC');
    assert.equal(payment.asset_issuer, usdc.getIssuer());
    assert.equal(payment.amount, '12.3456789');
    assert.equal(payment.transaction_hash, submitted.hash);
    assert.equal(payment.transaction_successful, true);
    assert.equal(payment.created_at, (await server.transactions().transaction(submitted.hash).call()).created_at);
    const joined = await payment.transaction();
    assert.equal(joined.memo_type, 'text');
    assert.equal(joined.memo, 'order-7f3a');
    assert.equal(joined.memo_bytes, Buffer.from('order-7f3a').toString('base64'));
    assert.equal(joined.ledger_attr, submitted.ledger);

    // Nothing after it yet: the next page from its paging token is empty and keeps the cursor.
    const next = await page.next();
    assert.equal(next.records.length, 0);
  });

  it('pages many memo payments reliably by cursor, in order and each with its memo (join=transactions)', async () => {
    const cursor = await tipCursor(receiving);
    const count = 25;
    const sent: { hash: string; memo: string; amount: string }[] = [];
    for (let i = 0; i < count; i++) {
      const memo = `pay-${String(i).padStart(3, '0')}`;
      const amount = formatAmount(parseAmount('1') + BigInt(i));
      const tx = await build(customer, [pay(receiving, usdc, amount)], { memo: Memo.text(memo) });
      sent.push({ hash: (await server.submitTransaction(tx)).hash, memo, amount });
      // Traffic that is not a payin of the receiving account must not show up in its payments.
      if (i === 10) await server.submitTransaction(await build(customer, [pay(treasury.publicKey(), usdc, '1')], { memo: Memo.text('not-a-payin') }));
    }

    const seen: { token: bigint; hash: string; memo: string | undefined; amount: string }[] = [];
    let page = await server.payments().forAccount(receiving).cursor(cursor).limit(10).join('transactions').call();
    let pages = 0;
    while (page.records.length > 0) {
      pages += 1;
      for (const record of page.records) {
        const payment = record as PaymentRecord;
        seen.push({ token: BigInt(payment.paging_token), hash: payment.transaction_hash, memo: (await payment.transaction()).memo, amount: payment.amount });
      }
      page = await page.next();
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen.map(({ hash, memo, amount }) => ({ hash, memo, amount })), sent);
    for (let i = 1; i < seen.length; i++) assert.ok((seen[i]?.token ?? 0n) > (seen[i - 1]?.token ?? 0n), 'paging tokens increase');

    // Backwards from the newest gives the same payments in reverse.
    const newest = await server.payments().forAccount(receiving).order('desc').limit(count).call();
    assert.deepEqual(newest.records.map((r) => r.transaction_hash), sent.map((s) => s.hash).reverse());
    // Resuming from any paging token gives exactly what came after it.
    const resumed = await server.payments().forAccount(receiving).cursor(String(seen[16]?.token)).limit(200).call();
    assert.deepEqual(resumed.records.map((r) => r.transaction_hash), sent.slice(17).map((s) => s.hash));
  });

  it('applies an XLM payment with an id memo and charges base fee × operations, not the offered maximum', async () => {
    const before = { customer: await holdings(customer.publicKey()), receiving: await holdings(receiving) };
    const tx = await build(customer, [pay(receiving, Asset.native(), '25.5'), pay(receiving, Asset.native(), '0.0000001')], { memo: Memo.id('12345'), fee: '1000' });
    const submitted = await server.submitTransaction(tx);
    const record = await server.transactions().transaction(submitted.hash).call();
    assert.equal(record.fee_charged, '200');
    assert.equal(record.max_fee, '2000');
    assert.equal(record.memo_type, 'id');
    assert.equal(record.memo, '12345');
    assert.equal(record.operation_count, 2);
    const amount = parseAmount('25.5') + 1n;
    assert.deepEqual(await holdings(customer.publicKey()), { ...before.customer, xlm: before.customer.xlm - amount - 2n * FEE, sequence: before.customer.sequence + 1n });
    assert.deepEqual(await holdings(receiving), { ...before.receiving, xlm: before.receiving.xlm + amount });
    const ops = await server.payments().forTransaction(submitted.hash).call();
    assert.deepEqual(ops.records.map((r) => [r.type, (r as PaymentRecord).asset_type, (r as PaymentRecord).amount]), [
      ['payment', 'native', '25.5000000'], ['payment', 'native', '0.0000001'],
    ]);
  });

  it('credits a payment to a muxed (M) address to its base account and reports the mux id', async () => {
    const before = await holdings(receiving);
    const muxed = new MuxedAccount(new Account(receiving, '0'), '9000000000000000042').accountId();
    const submitted = await server.submitTransaction(await build(customer, [pay(muxed, usdc, '2')]));
    assert.equal((await holdings(receiving)).usdc, (before.usdc ?? 0n) + parseAmount('2'));
    const [payment] = (await server.payments().forTransaction(submitted.hash).call()).records as PaymentRecord[];
    assert.deepEqual([payment?.to, payment?.to_muxed, payment?.to_muxed_id], [receiving, muxed, '9000000000000000042']);
  });

  it('applies path payments of one asset without a path, listed among the payments; a conversion finds no offers (op_too_few_offers)', async () => {
    const before = await holdings(receiving);
    const strictSend = Operation.pathPaymentStrictSend({ sendAsset: usdc, sendAmount: '3', destination: receiving, destAsset: usdc, destMin: '3', path: [] });
    const strictReceive = Operation.pathPaymentStrictReceive({ sendAsset: Asset.native(), sendMax: '2', destination: receiving, destAsset: Asset.native(), destAmount: '1.5', path: [] });
    const submitted = await server.submitTransaction(await build(customer, [strictSend, strictReceive], { memo: Memo.id('77') }));
    const after = await holdings(receiving);
    assert.deepEqual([after.usdc, after.xlm], [(before.usdc ?? 0n) + parseAmount('3'), before.xlm + parseAmount('1.5')]);
    const result = xdr.TransactionResult.fromXDR(submitted.result_xdr, 'base64').result().results();
    const sent = result[0]!.tr().pathPaymentStrictSendResult();
    assert.equal(sent.switch().name, 'pathPaymentStrictSendSuccess');
    assert.equal(sent.success().last().amount().toBigInt(), parseAmount('3'));
    assert.equal(result[1]!.tr().pathPaymentStrictReceiveResult().switch().name, 'pathPaymentStrictReceiveSuccess');
    const payments = (await server.payments().forTransaction(submitted.hash).call()).records as unknown as Array<Record<string, unknown>>;
    assert.deepEqual(payments.map((p) => [p.type, p.to, p.amount, p.asset_type, p.source_asset_type, p.source_amount]), [
      ['path_payment_strict_send', receiving, '3.0000000', 'credit_alphanum4', 'credit_alphanum4', '3.0000000'],
      ['path_payment_strict_receive', receiving, '1.5000000', 'native', 'native', '1.5000000'],
    ]);
    assert.ok((await server.payments().forAccount(receiving).order('desc').limit(2).call()).records.every((r) => r.transaction_hash === submitted.hash));

    const convert = Operation.pathPaymentStrictSend({ sendAsset: Asset.native(), sendAmount: '10', destination: receiving, destAsset: usdc, destMin: '1', path: [] });
    const refusedConversion = await refused(await build(customer, [convert]), { transaction: 'tx_failed', operations: ['op_too_few_offers'] });
    assert.equal(refusedConversion.result().results()[0]!.tr().pathPaymentStrictSendResult().switch().name, 'pathPaymentStrictSendTooFewOffers');
    const tooLittle = Operation.pathPaymentStrictSend({ sendAsset: usdc, sendAmount: '1', destination: receiving, destAsset: usdc, destMin: '2', path: [] });
    await refused(await build(customer, [tooLittle]), { transaction: 'tx_failed', operations: ['op_under_dest_min'] });
    const tooMuch = Operation.pathPaymentStrictReceive({ sendAsset: usdc, sendMax: '1', destination: receiving, destAsset: usdc, destAmount: '2', path: [] });
    await refused(await build(customer, [tooMuch]), { transaction: 'tx_failed', operations: ['op_over_source_max'] });
  });

  it('refuses bad sequence, bad signature, another network, too low a fee, expired time bounds and unsupported operations, changing nothing', async () => {
    const before = await holdings(customer.publicKey());
    const payment = [pay(receiving, usdc, '1')];
    const cases: [Transaction, { transaction: string; operations?: string[] }][] = [
      [await build(customer, payment, { sequence: before.sequence + 5n }), { transaction: 'tx_bad_seq' }],
      // A replay of the last sequence number.
      [await build(customer, payment, { sequence: before.sequence - 1n }), { transaction: 'tx_bad_seq' }],
      [await build(customer, payment, { signer: Keypair.random() }), { transaction: 'tx_bad_auth' }],
      [await build(customer, payment, { networkPassphrase: Networks.TESTNET }), { transaction: 'tx_bad_auth' }],
      [await build(customer, payment, { fee: '99' }), { transaction: 'tx_insufficient_fee' }],
      [await build(customer, payment, { timebounds: { minTime: 0, maxTime: Math.floor(Date.now() / 1000) - 60 } }), { transaction: 'tx_too_late' }],
      [await build(customer, [...payment, Operation.setOptions({ homeDomain: 'example.com' })]), { transaction: 'tx_failed', operations: ['op_success', 'op_not_supported'] }],
    ];
    for (const [tx, codes] of cases) {
      await refused(tx, codes);
      await notInHistory(tx);
    }
    assert.deepEqual(await holdings(customer.publicKey()), before);
  });

  it('refuses a payment to an account without a trustline (op_no_trust): fee and sequence consumed as on Stellar, nothing else', async () => {
    const stranger = await newAccount('10');
    const before = await holdings(customer.publicKey());
    const receivingBefore = await holdings(receiving);
    // The first operation would succeed alone; the transaction is all or nothing.
    const tx = await build(customer, [pay(receiving, Asset.native(), '1'), pay(stranger.publicKey(), usdc, '5')], { memo: Memo.text('no-trust') });
    const result = await refused(tx, { transaction: 'tx_failed', operations: ['op_success', 'op_no_trust'] });
    assert.deepEqual(result.result().results().map((r) => r.tr().paymentResult().switch().name), ['paymentSuccess', 'paymentNoTrust']);
    assert.deepEqual(await holdings(customer.publicKey()), { ...before, xlm: before.xlm - 2n * FEE, sequence: before.sequence + 1n });
    assert.deepEqual(await holdings(receiving), receivingBefore);
    const strangerNow = await holdings(stranger.publicKey());
    assert.deepEqual([strangerNow.xlm, strangerNow.usdc], [parseAmount('10'), undefined]);

    // Included in its ledger as failed: listed only when failed transactions are asked for.
    const record = await server.transactions().transaction(tx.hash().toString('hex')).call();
    assert.equal(record.successful, false);
    assert.equal((await server.payments().forAccount(stranger.publicKey()).call()).records.length, 1, 'only the createAccount');
    const withFailed = await server.payments().forAccount(stranger.publicKey()).includeFailed(true).call();
    assert.deepEqual(withFailed.records.map((r) => [r.type, r.transaction_successful]), [['create_account', true], ['payment', false]]);
    const meta = xdr.TransactionMeta.fromXDR(record.result_meta_xdr, 'base64');
    assert.equal(meta.v2().operations().length, 0, 'a failed transaction changes nothing through its operations');
  });

  it('refuses what would break the minimum balance ((2 + subentries) × 0.5 XLM)', async () => {
    const poor = await newAccount('5');
    const before = await holdings(poor.publicKey());
    // 5 XLM less the fee leaves 3.99999 XLM above the 1 XLM reserve.
    await refused(await build(poor, [pay(receiving, Asset.native(), '4.5')]), { transaction: 'tx_failed', operations: ['op_underfunded'] });
    await refused(await build(poor, [Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '0.9999999' })]), { transaction: 'tx_failed', operations: ['op_low_reserve'] });
    assert.deepEqual(await holdings(poor.publicKey()), { ...before, xlm: before.xlm - 2n * FEE, sequence: before.sequence + 2n });

    // Exactly spendable: everything above the reserve after the fee.
    await server.submitTransaction(await build(poor, [pay(receiving, Asset.native(), formatAmount(before.xlm - 3n * FEE - parseAmount('1')))]));
    assert.equal((await holdings(poor.publicKey())).xlm, parseAmount('1'));
    // Now it cannot even pay a fee, and a trustline (one more subentry) is out of reach.
    await refused(await build(poor, [Operation.changeTrust({ asset: usdc })]), { transaction: 'tx_insufficient_balance' });
    const trustless = await newAccount('1.5');
    await refused(await build(trustless, [Operation.changeTrust({ asset: usdc })]), { transaction: 'tx_failed', operations: ['op_low_reserve'] });
  });

  it('creates an account, opens a USDC trustline with a limit, and honours the limit and the issuer', async () => {
    const merchant = await newAccount('10');
    const created = await server.loadAccount(merchant.publicKey());
    assert.equal(created.subentry_count, 0);
    assert.deepEqual(created.balances, [{ balance: '10.0000000', buying_liabilities: '0.0000000', selling_liabilities: '0.0000000', asset_type: 'native' }]);

    const trust = await server.submitTransaction(await build(merchant, [Operation.changeTrust({ asset: usdc, limit: '1000' })]));
    const trusted = await server.loadAccount(merchant.publicKey());
    assert.equal(trusted.subentry_count, 1);
    const line = trusted.balances.find((b) => b.asset_type === 'credit_alphanum4');
    assert.ok(line?.asset_type === 'credit_alphanum4');
    assert.deepEqual([line.asset_code, line.asset_issuer, line.balance, line.limit, line.last_modified_ledger], ['USDC', usdc.getIssuer(), '0.0000000', '1000.0000000', trust.ledger]);

    await server.submitTransaction(await build(treasury, [pay(merchant.publicKey(), usdc, '999')]));
    await refused(await build(treasury, [pay(merchant.publicKey(), usdc, '1.0000001')]), { transaction: 'tx_failed', operations: ['op_line_full'] });
    assert.equal((await holdings(merchant.publicKey())).usdc, parseAmount('999'));

    // The issuer holds no USDC line: it creates what it pays and burns what it receives.
    const issuer = Keypair.fromSecret(devnet.issuer.secret);
    await server.submitTransaction(await build(issuer, [pay(merchant.publicKey(), usdc, '1')]));
    await server.submitTransaction(await build(merchant, [pay(issuer.publicKey(), usdc, '1000')]));
    assert.equal((await holdings(merchant.publicKey())).usdc, 0n);
    assert.equal((await holdings(issuer.publicKey())).usdc, undefined);
    // Without a trustline the sender has nothing to send.
    const outsider = await newAccount('10');
    await refused(await build(outsider, [pay(receiving, usdc, '1')]), { transaction: 'tx_failed', operations: ['op_src_no_trust'] });
    // A zero limit removes an empty trustline and frees its reserve.
    await server.submitTransaction(await build(merchant, [Operation.changeTrust({ asset: usdc, limit: '0' })]));
    assert.equal((await server.loadAccount(merchant.publicKey())).subentry_count, 0);
  });

  it('accepts, as stellar-core does, an operation whose source account an earlier operation of the transaction creates', async () => {
    const merchant = Keypair.random();
    // The treasury creates the account, then the new account opens its trustline, in one transaction signed by both.
    const tx = await build(treasury, [
      Operation.createAccount({ destination: merchant.publicKey(), startingBalance: '5' }),
      Operation.changeTrust({ asset: usdc, source: merchant.publicKey() }),
    ]);
    tx.sign(merchant);
    const applied = await server.submitTransaction(tx);
    assert.equal(applied.successful, true);
    const created = await server.loadAccount(merchant.publicKey());
    assert.equal(created.subentry_count, 1, 'the trustline the second operation opened');
    await server.submitTransaction(await build(treasury, [pay(merchant.publicKey(), usdc, '2')]));
    assert.equal((await holdings(merchant.publicKey())).usdc, parseAmount('2'));

    // Without the new account's signature the operation is not authorised; in the wrong order its source does not exist yet.
    const unsigned = Keypair.random();
    await refused(await build(treasury, [Operation.createAccount({ destination: unsigned.publicKey(), startingBalance: '5' }), Operation.changeTrust({ asset: usdc, source: unsigned.publicKey() })]), {
      transaction: 'tx_failed',
      operations: ['op_success', 'op_bad_auth'],
    });
    const early = Keypair.random();
    const reversed = await build(treasury, [Operation.changeTrust({ asset: usdc, source: early.publicKey() }), Operation.createAccount({ destination: early.publicKey(), startingBalance: '5' })]);
    reversed.sign(early);
    const outcome = await server.submitTransaction(reversed).then(() => undefined, (e: unknown) => (e as { response?: { data?: TransactionProblem } }).response?.data);
    assert.deepEqual(outcome?.extras.result_codes, { transaction: 'tx_failed', operations: ['op_no_source_account', 'op_success'] });
    await assert.rejects(server.loadAccount(early.publicKey()), NotFoundError, 'a failed transaction changes nothing');
  });

  it('streams a new payment to the receiving account over SSE, with its memo', async () => {
    const cursor = await tipCursor(receiving);
    let close = (): void => undefined;
    const received = new Promise<PaymentRecord>((resolve, reject) => {
      close = server.payments().forAccount(receiving).cursor(cursor).join('transactions').stream({
        onmessage: (record) => resolve(record as unknown as PaymentRecord),
        onerror: (err) => reject(err instanceof Error ? err : new Error(`stream error: ${JSON.stringify(err)}`)),
      });
    });
    try {
      const submitted = await server.submitTransaction(await build(customer, [pay(receiving, usdc, '7.25')], { memo: Memo.text('streamed') }));
      const payment = await received;
      assert.equal(payment.transaction_hash, submitted.hash);
      assert.equal(payment.amount, '7.2500000');
      assert.equal(payment.from, customer.publicKey());
      assert.equal((await payment.transaction()).memo, 'streamed');
    } finally {
      close();
    }
  });

  it('reports fee stats: base fee 100 stroops, what recent ledgers charged per operation', async () => {
    const tx = await server.submitTransaction(await build(customer, [pay(receiving, Asset.native(), '1')], { fee: '5000' }));
    const stats = await server.feeStats();
    assert.equal(await server.fetchBaseFee(), 100);
    assert.equal(stats.last_ledger_base_fee, '100');
    assert.ok(Number(stats.last_ledger) >= tx.ledger);
    for (const key of ['min', 'mode', 'p10', 'p50', 'p99', 'max'] as const) assert.equal(stats.fee_charged[key], '100', `fee_charged.${key}`);
    const usage = Number(stats.ledger_capacity_usage);
    assert.ok(usage >= 0 && usage <= 1);
    const latest = await server.ledgers().order('desc').limit(1).call();
    assert.ok((latest.records[0]?.sequence ?? 0) >= Number(stats.last_ledger));
    const ledger = await server.ledgers().ledger(tx.ledger).call() as unknown as Horizon.ServerApi.LedgerRecord;
    assert.equal(ledger.sequence, tx.ledger);
    assert.ok(ledger.successful_transaction_count >= 1);
    assert.equal(ledger.base_fee_in_stroops, 100);
    assert.equal(ledger.base_reserve_in_stroops, 5_000_000);
    const header = xdr.LedgerHeader.fromXDR(ledger.header_xdr, 'base64');
    assert.equal(header.ledgerSeq(), tx.ledger);
    assert.equal(header.previousLedgerHash().toString('hex'), ledger.prev_hash);
  });

  it('keeps balances and history across a restart with the state file', async () => {
    const accounts = [receiving, customer.publicKey(), treasury.publicKey()];
    const before = await Promise.all(accounts.map(holdings));
    const history = await server.payments().forAccount(receiving).limit(200).call();
    const latestLedger = (await server.root()).history_latest_ledger;
    const sample = history.records.find((r) => r.type === Horizon.HorizonApi.OperationResponseType.payment) as PaymentRecord;
    const sampleMemo = (await sample.transaction()).memo;
    assert.equal(sampleMemo, 'order-7f3a');

    await devnet.stop();
    await start();

    assert.deepEqual(await Promise.all(accounts.map(holdings)), before);
    const again = await server.payments().forAccount(receiving).limit(200).call();
    assert.deepEqual(again.records.map((r) => [r.paging_token, r.transaction_hash]), history.records.map((r) => [r.paging_token, r.transaction_hash]));
    assert.equal((await server.transactions().transaction(sample.transaction_hash).call()).memo, sampleMemo);
    // Not reset to genesis, and the next ledger closes a ledger time after the start.
    assert.ok((await server.root()).history_latest_ledger >= latestLedger, 'ledger numbers continue');
    await eventually('a ledger after the restart', 30_000, async () => ((await server.root()).history_latest_ledger > latestLedger ? true : undefined));

    // Sequence numbers continue too: the customer pays on as before.
    const cursor = await tipCursor(receiving);
    const submitted = await server.submitTransaction(await build(customer, [pay(receiving, usdc, '3')], { memo: Memo.text('after-restart') }));
    assert.ok(submitted.ledger > latestLedger);
    const fresh = await server.payments().forAccount(receiving).cursor(cursor).join('transactions').call();
    assert.deepEqual(await Promise.all(fresh.records.map(async (r) => (await (r as PaymentRecord).transaction()).memo)), ['after-restart']);
  });
});
