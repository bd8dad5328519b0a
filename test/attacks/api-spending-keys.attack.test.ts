/**
 * Opening (issue 38, "Around it"): the API process held the spending seeds of every Solana, TON and Tron deposit.
 * Here an API runs as its own OS process with only what it needs (the stack's environment without a signing key),
 * nothing in its environment can sign for a deposit, and it still creates Solana, TON and Tron payments whose
 * deposits the worker (which holds the seeds) sweeps: Solana and TON addresses come from the pool the worker keeps
 * filled, Tron's from the deposit account's xpub.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { generateKeyPairSigner } from '@solana/kit';
import { Service } from '../../tools/prod/service';
import { freePort } from '../../tools/stack/ports';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { signingVariablesIn } from '../../services/chains';
import { assertErrorEnvelope } from '../api/helpers';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { createPayment, paymentBody, waitForStatus } from '../support/api';
import { request } from '../support/http';
import { connectServices, type StackServices } from '../support/services';
import { solanaCustomerTransfer, solanaTokenBalance } from '../support/solana';
import { getStack } from '../support/stack';
import { newTronAddress } from '../support/tron';
import { eventually } from '../support/poll';

const HOST = '127.0.0.1';

describe('attack: the API process holds no spending key', function () {
  this.timeout(300_000);
  let stack: Stack;
  let services: StackServices;
  let api: Service;
  let apiUrl: string;
  let logDir: string;
  const merchants = new Map<'solana' | 'ton' | 'tron', TestMerchant & { payoutAddress: string }>();

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    logDir = path.join(path.dirname(stack.config.chainsFile), 'logs');
    const port = await freePort();
    api = new Service({
      name: 'api-without-keys',
      entry: 'api/server.ts',
      env: { ...stack.apiEnv, HTTP_HOST: HOST, HTTP_PORT: String(port), PUBLIC_BASE_URL: `http://${HOST}:${port}` },
      healthUrl: `http://${HOST}:${port}`,
      logFile: path.join(logDir, `api-without-keys-${port}.log`),
    });
    await api.start();
    apiUrl = `http://${HOST}:${port}/v1/payment-api`;
    const merchant = async (family: 'solana' | 'ton' | 'tron', payoutAddress: string, payoutTokenSymbol: string) => ({
      ...(await newMerchant(stack, services.knex, { payout: { address: payoutAddress, chainId: stackChain(stack.info, family).chainId, tokenSymbol: payoutTokenSymbol } })),
      payoutAddress,
    });
    merchants.set('solana', await merchant('solana', (await generateKeyPairSigner()).address, 'USDC'));
    const tonWallet = WalletContractV5R1.create({ workchain: 0, publicKey: keyPairFromSeed(randomBytes(32)).publicKey }).address;
    merchants.set('ton', await merchant('ton', tonWallet.toRawString(), 'USDT'));
    merchants.set('tron', await merchant('tron', newTronAddress(), 'USDT'));
  });
  after(async () => {
    await api?.stop();
    await services?.close();
  });

  it("the API's environment holds no deposit seed, no treasury key, nor any of their values", async () => {
    const environ = (await readFile(`/proc/${await api.pid()}/environ`, 'utf8')).split('\0').filter(Boolean);
    const names = environ.map((entry) => entry.slice(0, entry.indexOf('=')));
    assert.deepEqual(signingVariablesIn(Object.fromEntries(names.map((n) => [n, 'set']))), [], 'no signing variable by name');
    const secrets = Object.entries(stack.env).filter(([name]) => signingVariablesIn({ [name]: 'set' }).length > 0);
    assert.deepEqual(secrets.map(([name]) => name).sort(), [
      'SOLANA_DEPOSIT_SEED', 'SOLANA_TREASURY_SECRET_KEY', 'STELLAR_RECEIVING_SECRET', 'STELLAR_TREASURY_SECRET',
      'TON_DEPOSIT_SEED', 'TON_TREASURY_SECRET_KEY', 'TREASURY_PRIVATE_KEY', 'TRON_DEPOSIT_SEED', 'TRON_TREASURY_PRIVATE_KEY',
    ], 'the worker holds every family\'s keys');
    for (const [name, value] of secrets) assert.ok(!environ.some((entry) => entry.includes(value)), `${name}'s value is nowhere in the API's environment`);
    assert.match(environ.find((e) => e.startsWith('TRON_DEPOSIT_XPUB='))!, /^TRON_DEPOSIT_XPUB=xpub/, 'Tron addresses come from a public key');
  });

  it('an API given a signing key refuses to start, naming it', async () => {
    const port = await freePort();
    const leaky = new Service({
      name: 'api-with-keys',
      entry: 'api/server.ts',
      env: { ...stack.env, HTTP_HOST: HOST, HTTP_PORT: String(port) },
      healthUrl: `http://${HOST}:${port}`,
      logFile: path.join(logDir, `api-with-keys-${port}.log`),
    });
    try {
      await assert.rejects(leaky.start(), (err: Error) => /exited during start-up/.test(err.message) && /the API holds no signing key: .*SOLANA_DEPOSIT_SEED/.test(err.message));
    } finally {
      await leaky.stop();
    }
  });

  it('creates Solana, TON and Tron payments whose deposit keys the worker alone derives', async () => {
    for (const [family, symbol] of [['solana', 'USDC'], ['ton', 'USDT'], ['tron', 'USDT']] as const) {
      const chainId = stackChain(stack.info, family).chainId;
      const created = await createPayment(apiUrl, merchants.get(family)!.ordersKey, paymentBody({ orderId: `keyless-api-${randomUUID()}`, chainId: String(chainId), tokenSymbol: symbol, amount: '2' }));
      // The worker's adapter (with the seed) derives the same address from the payment id: it can sweep the deposit.
      assert.equal(created.source.receiverAddress, services.chains.registry.displayAddress(chainId, services.chains.adapter(chainId).depositAddress(created.id)), `${family}: the worker signs for the deposit`);
      const pooled: unknown = await services.knex('deposit_address_pool').where({ payment_id: created.id }).first();
      assert.equal(pooled, undefined, `${family}: a pooled address is handed out once`);
    }
  });

  it('a Solana payment created on the key-less API is swept and paid out by the worker', async () => {
    const chainId = String(stackChain(stack.info, 'solana').chainId);
    const merchant = merchants.get('solana')!;
    const created = await createPayment(apiUrl, merchant.ordersKey, paymentBody({ orderId: `keyless-api-${randomUUID()}`, chainId, tokenSymbol: 'USDC', amount: '3' }));
    await solanaCustomerTransfer(stack.info, 'USDC', created.source.receiverAddress, '3');
    await waitForStatus(apiUrl, created.id, 'payment_completed', 180_000);
    // Swept behind the payment, which does not wait for it, with the key only the worker holds.
    await eventually('the deposit to be swept', 30_000, async () => ((await solanaTokenBalance(stack.info, 'USDC', created.source.receiverAddress)) === 0n ? true : undefined));
    assert.equal(await solanaTokenBalance(stack.info, 'USDC', merchant.payoutAddress), 2_985_000n, 'the merchant holds amount − fee');
  });

  it('an empty pool is waited on briefly, then answered 503 with Retry-After, never 500; the next create works', async () => {
    const chainId = stackChain(stack.info, 'ton').chainId;
    const merchant = merchants.get('ton')!;
    const body = () => paymentBody({ orderId: `empty-pool-${randomUUID()}`, chainId: String(chainId), tokenSymbol: 'USDT', amount: '2' });
    // Every ready TON address is held by another transaction: a create finds none free, and the pool counts as full.
    const trx = await services.knex.transaction();
    try {
      const held = await trx('deposit_address_pool').where({ chain_id: chainId }).forUpdate().select('payment_id');
      assert.ok(held.length > 0, 'the worker filled the pool');
      const started = Date.now();
      const refused = await request(apiUrl, { headers: { 'x-api-key': merchant.ordersKey }, body: body() });
      assert.equal(refused.status, 503, refused.text);
      assert.equal(assertErrorEnvelope(refused).error, 'deposit_address_unavailable');
      assert.match(assertErrorEnvelope(refused).message, new RegExp(`no deposit address is ready on chain ${chainId}`));
      assert.match(refused.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
      assert.ok(Date.now() - started >= 2_500, 'it waited for a refill first');
    } finally {
      await trx.rollback();
    }
    const created = await createPayment(apiUrl, merchant.ordersKey, body());
    assert.equal(created.source.receiverAddress, services.chains.registry.displayAddress(chainId, services.chains.adapter(chainId).depositAddress(created.id)));
  });
});
