import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { generateKeyPairSigner, getBase58Decoder } from '@solana/kit';
import { Keypair } from '@stellar/stellar-sdk';
import { Wallet, getAddress } from 'ethers';
import type { PaymentResource } from '../../api/serializers/payment';
import { SecretBox } from '../../lib/secrets';
import { stackChain, type Stack } from '../../tools/stack/stack';
import { assertErrorEnvelope, uniqueOrderId } from '../api/helpers';
import { paymentBody } from '../support/api';
import { request } from '../support/http';
import { connectServices, type StackServices } from '../support/services';
import { newMerchant } from '../support/merchant';
import { getStack } from '../support/stack';
import { newTronAddress } from '../support/tron';
import { bearer, createKey, login, register, registerBody, type RegisteredApp, type Session } from './helpers';

const HEX64 = /^[0-9a-f]{64}$/;
const fingerprintOf = (secret: string) => `sha256:${createHash('sha256').update(secret).digest('hex')}`;

describe('merchant service: registration, API keys and webhook settings', function () {
  this.timeout(60_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let paymentApi: string;
  let alice: Session;
  let bob: Session;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.merchantApiUrl;
    paymentApi = stack.info.paymentApiUrl;
    alice = await login(api, stack.info.mailSinkUrl!);
    bob = await login(api, stack.info.mailSinkUrl!);
  });
  after(async () => services?.close());

  const storedSecret = async (appId: string) => {
    const row = (await services.knex('merchant_apps').where({ app_id: appId }).first()) as { webhook_secret_ciphertext: string };
    return new SecretBox(stack.env.PAYRAIL_SECRETS_KEY!).open(row.webhook_secret_ciphertext);
  };
  const createPayment = async (key: string, orderId = uniqueOrderId('acct')) =>
    request(paymentApi, { headers: { 'x-api-key': key }, body: paymentBody({ orderId, chainId: '8453' }) });

  it('registers an app: merchant_<slug>, checksummed payout wallet, secret shown once and stored sealed', async () => {
    const payout = Wallet.createRandom().address;
    const name = `Café Été ${randomUUID().slice(0, 4)}`;
    const res = await request(`${api}/register`, {
      headers: bearer(alice.token),
      body: { name, webhookUrl: 'https://127.0.0.1:9443/payrail', payout: { chainId: '8453', tokenSymbol: 'usdc', address: payout.toLowerCase() } },
    });
    assert.equal(res.status, 201, res.text);
    const app = res.body as RegisteredApp & Record<string, unknown>;
    for (const field of ['developerId', 'appId', 'webhookUrl', 'webhookSecret', 'webhookSecretFingerprint']) assert.ok(field in app, `spec 4.2 field ${field}`);
    assert.equal(app.developerId, alice.developerId);
    assert.equal(app.appId, `merchant_cafe-ete-${name.slice(-4)}`);
    assert.equal(app.name, name);
    assert.equal(app.webhookUrl, 'https://127.0.0.1:9443/payrail');
    assert.match(app.webhookSecret, HEX64);
    assert.equal(app.webhookSecretFingerprint, fingerprintOf(app.webhookSecret));
    assert.ok(Date.now() - Date.parse(app.webhookSecretRotatedAt) < 60_000);
    assert.deepEqual(app.payout, { chainId: '8453', tokenSymbol: 'USDC', address: getAddress(payout) });

    assert.equal(await storedSecret(app.appId), app.webhookSecret, 'the sealed secret opens to the one shown');
    const row = JSON.stringify(await services.knex('merchant_apps').where({ app_id: app.appId }).first());
    assert.ok(!row.includes(app.webhookSecret), 'the raw secret is not stored');

    // The same name again gets a suffixed slug; no name gets a random one.
    const twin = await register(api, alice.token, registerBody({ name }));
    assert.match(twin.appId, new RegExp(`^${app.appId}-[0-9a-f]{6}$`));
    assert.notEqual(twin.webhookSecret, app.webhookSecret);
    const anonymous = await register(api, alice.token, registerBody({ name: undefined }));
    assert.match(anonymous.appId, /^merchant_[0-9a-f]{6}$/);
    assert.equal(anonymous.name, anonymous.appId);

    // Listing shows the developer's own apps, never a secret.
    const list = await request(`${api}/apps`, { headers: bearer(alice.token) });
    assert.equal(list.status, 200, list.text);
    const apps = (list.body as { data: Array<Record<string, unknown>> }).data;
    assert.deepEqual(apps.map((a) => a.appId).sort(), [app.appId, twin.appId, anonymous.appId].sort());
    assert.ok(apps.every((a) => !('webhookSecret' in a)));
    for (const secret of [app.webhookSecret, twin.webhookSecret, anonymous.webhookSecret]) assert.ok(!list.text.includes(secret));
    const bobs = await request(`${api}/apps`, { headers: bearer(bob.token) });
    assert.deepEqual(bobs.body, { data: [] });
  });

  it('creates Orders keys by default and Admin keys on request, lists them without secrets, and revokes them at once', async () => {
    const app = await register(api, alice.token);
    const orders = await createKey(api, alice.token, app.appId);
    const admin = await createKey(api, alice.token, app.appId, { name: 'backend', scope: 'Admin' });
    assert.equal(orders.scope, 'Orders');
    assert.equal(admin.scope, 'Admin');
    for (const key of [orders, admin]) assert.match(key.key, /^pr_live_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(Object.keys(admin).sort(), ['createdAt', 'hint', 'id', 'key', 'lastUsedAt', 'name', 'revokedAt', 'scope']);

    const listed = await request(`${api}/apps/${app.appId}/keys`, { headers: bearer(alice.token) });
    assert.equal(listed.status, 200, listed.text);
    const keys = (listed.body as { data: Array<Record<string, unknown>> }).data;
    assert.deepEqual(keys.map((k) => [k.id, k.scope, k.name, k.revokedAt]), [
      [orders.id, 'Orders', null, null],
      [admin.id, 'Admin', 'backend', null],
    ]);
    assert.ok(keys.every((k) => !('key' in k) && typeof k.hint === 'string' && typeof k.createdAt === 'string'));
    assert.ok(!listed.text.includes(orders.key) && !listed.text.includes(admin.key));
    const stored = JSON.stringify(await services.knex('api_keys').where({ app_id: app.appId }));
    assert.ok(!stored.includes(orders.key) && !stored.includes(admin.key), 'only hashes are stored');

    // The new key creates payments for its own app, paid out to its wallet.
    const created = await createPayment(orders.key);
    assert.equal(created.status, 201, created.text);
    const payment = created.body as PaymentResource;
    assert.equal(payment.appId, app.appId);
    assert.equal(payment.destination.receiverAddress, app.payout.address);
    assert.equal(payment.webhookUrl, app.webhookUrl);

    // Revocation is immediate; revoking twice keeps the first time.
    const revoked = await request(`${api}/apps/${app.appId}/keys/${orders.id}`, { method: 'DELETE', headers: bearer(alice.token) });
    assert.equal(revoked.status, 200, revoked.text);
    const revokedAt = (revoked.body as { revokedAt: string }).revokedAt;
    assert.ok(revokedAt);
    const refused = await createPayment(orders.key);
    assert.equal(refused.status, 401);
    assert.equal(assertErrorEnvelope(refused).error, 'invalid_api_key');
    const order = await request(`${paymentApi}/payments/order/${app.appId}/${payment.orderId}`, { headers: { 'x-api-key': orders.key } });
    assert.equal(order.status, 401);
    const again = await request(`${api}/apps/${app.appId}/keys/${orders.id}`, { method: 'DELETE', headers: bearer(alice.token) });
    assert.equal((again.body as { revokedAt: string }).revokedAt, revokedAt);
    assert.equal((await createPayment(admin.key)).status, 201, 'the other key still works');

    const missing = await request(`${api}/apps/${app.appId}/keys/${randomUUID()}`, { method: 'DELETE', headers: bearer(alice.token) });
    assert.equal(missing.status, 404);
    assertErrorEnvelope(missing);
    const malformed = await request(`${api}/apps/${app.appId}/keys/not-a-uuid`, { method: 'DELETE', headers: bearer(alice.token) });
    assert.equal(malformed.status, 400);
    assertErrorEnvelope(malformed);
  });

  it("keeps apps apart: another developer gets 404, another app's key never sees the payments", async () => {
    const app = await register(api, alice.token);
    const key = await createKey(api, alice.token, app.appId);
    const orderId = uniqueOrderId('mine');
    assert.equal((await createPayment(key.key, orderId)).status, 201);

    const other = await newMerchant(stack, services.knex);
    const crossRead = await request(`${paymentApi}/payments/order/${app.appId}/${orderId}`, { headers: { 'x-api-key': other.ordersKey } });
    assert.equal(crossRead.status, 404, "another app's key cannot read the new app's order");
    const otherOrderId = uniqueOrderId('other');
    assert.equal((await createPayment(other.ordersKey, otherOrderId)).status, 201);
    const reverse = await request(`${paymentApi}/payments/order/${other.appId}/${otherOrderId}`, { headers: { 'x-api-key': key.key } });
    assert.equal(reverse.status, 404, "the new key cannot read the other app's order");

    const foreign: Array<[string, string, unknown?]> = [
      ['GET', `/apps/${app.appId}/keys`],
      ['POST', `/apps/${app.appId}/keys`, {}],
      ['DELETE', `/apps/${app.appId}/keys/${key.id}`],
      ['PUT', `/apps/${app.appId}/webhook`, { webhookUrl: 'https://127.0.0.1:9443/bob' }],
      ['POST', `/apps/${app.appId}/webhook/rotate`],
      ['GET', `/apps/${other.appId}/keys`],
      ['GET', `/apps/merchant_does-not-exist/keys`],
    ];
    for (const [method, path, body] of foreign) {
      const res = await request(`${api}${path}`, { method, headers: bearer(bob.token), body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(assertErrorEnvelope(res).error, 'not_found');
    }
    assert.equal((await createPayment(key.key)).status, 201, "bob's attempts changed nothing: the key is live");
    const malformed = await request(`${api}/apps/Not_An_App/keys`, { headers: bearer(alice.token) });
    assert.equal(malformed.status, 400);
  });

  it('updates the webhook URL for payments created afterwards and rotates the secret at once', async () => {
    const app = await register(api, alice.token);
    const key = await createKey(api, alice.token, app.appId);
    const before = (await createPayment(key.key)).body as PaymentResource;

    const updated = await request(`${api}/apps/${app.appId}/webhook`, { method: 'PUT', headers: bearer(alice.token), body: { webhookUrl: 'https://127.0.0.1:9444/v2/hooks' } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((updated.body as { webhookUrl: string }).webhookUrl, 'https://127.0.0.1:9444/v2/hooks');
    const after = (await createPayment(key.key)).body as PaymentResource;
    assert.equal(after.webhookUrl, 'https://127.0.0.1:9444/v2/hooks');
    const reread = await request(`${paymentApi}/payments/${before.id}`, { headers: { 'x-api-key': key.key } });
    assert.equal((reread.body as PaymentResource).webhookUrl, app.webhookUrl, 'an existing payment keeps its URL');

    const rotated = await request(`${api}/apps/${app.appId}/webhook/rotate`, { method: 'POST', headers: bearer(alice.token) });
    assert.equal(rotated.status, 200, rotated.text);
    const body = rotated.body as { webhookSecret: string; webhookSecretFingerprint: string; webhookSecretRotatedAt: string };
    assert.deepEqual(Object.keys(body).sort(), ['webhookSecret', 'webhookSecretFingerprint', 'webhookSecretRotatedAt']);
    assert.match(body.webhookSecret, HEX64);
    assert.notEqual(body.webhookSecret, app.webhookSecret);
    assert.equal(body.webhookSecretFingerprint, fingerprintOf(body.webhookSecret));
    assert.notEqual(body.webhookSecretFingerprint, app.webhookSecretFingerprint);
    assert.ok(Date.parse(body.webhookSecretRotatedAt) > Date.parse(app.webhookSecretRotatedAt), 'rotatedAt moves forward');
    assert.equal(await storedSecret(app.appId), body.webhookSecret, 'only the new secret is stored');

    const listed = (await request(`${api}/apps`, { headers: bearer(alice.token) })).body as { data: Array<{ appId: string; webhookSecretFingerprint: string; webhookSecretRotatedAt: string }> };
    const entry = listed.data.find((a) => a.appId === app.appId);
    assert.equal(entry?.webhookSecretFingerprint, body.webhookSecretFingerprint);
    assert.equal(entry?.webhookSecretRotatedAt, body.webhookSecretRotatedAt);
  });

  it("lets the seeded demo developer manage the demo merchant's keys from the dashboard", async () => {
    const demo = await login(api, stack.info.mailSinkUrl!, stack.info.demoMerchant.developerEmail);
    const apps = await request(`${api}/apps`, { headers: bearer(demo.token) });
    assert.equal(apps.status, 200);
    assert.ok((apps.body as { data: Array<{ appId: string }> }).data.some((app) => app.appId === stack.info.demoMerchant.appId));
    const keys = await request(`${api}/apps/${stack.info.demoMerchant.appId}/keys`, { headers: bearer(demo.token) });
    assert.deepEqual(
      new Set((keys.body as { data: Array<{ scope: string }> }).data.map((k) => k.scope)),
      new Set(['Orders', 'Admin']),
    );
  });

  it('takes Tron (base58check T…) and Stellar (G… StrKey) payout wallets as given; refuses malformed ones with 400 naming payout.address', async () => {
    const tron = { chainId: String(stackChain(stack.info, 'tron').chainId), tokenSymbol: 'USDT' };
    const stellar = { chainId: String(stackChain(stack.info, 'stellar').chainId), tokenSymbol: 'USDC' };
    const tronGood = newTronAddress();
    const stellarGood = Keypair.random().publicKey();
    for (const payout of [{ ...tron, address: tronGood }, { ...stellar, address: stellarGood }]) {
      const res = await request(`${api}/register`, { headers: bearer(alice.token), body: registerBody({ payout }) });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual((res.body as RegisteredApp).payout, payout);
    }
    const flipLast = (a: string, alphabet: string) => a.slice(0, -1) + (a.endsWith(alphabet[0]!) ? alphabet[1]! : alphabet[0]!);
    const bad: Array<[string, Record<string, string>]> = [
      ['Tron checksum broken', { ...tron, address: flipLast(tronGood, 'AB') }],
      ['Tron short', { ...tron, address: 'T123' }],
      ['Tron hex form', { ...tron, address: `41${'ab'.repeat(20)}` }],
      ['EVM address on Tron', { ...tron, address: Wallet.createRandom().address }],
      ['Stellar checksum broken', { ...stellar, address: flipLast(stellarGood, 'AB') }],
      ['Stellar secret seed', { ...stellar, address: Keypair.random().secret() }],
      ['Stellar lower case', { ...stellar, address: stellarGood.toLowerCase() }],
      ['Tron address on Stellar', { ...stellar, address: tronGood }],
    ];
    for (const [label, payout] of bad) {
      const res = await request(`${api}/register`, { headers: bearer(alice.token), body: registerBody({ payout }) });
      assert.equal(res.status, 400, `${label}: ${res.text}`);
      const error = assertErrorEnvelope(res, label);
      assert.equal(error.error, 'invalid_request', label);
      assert.ok(error.details?.some((d) => d.path === 'payout.address'), `${label}: ${res.text}`);
    }
  });

  it('answers bad registration, key and webhook input with 400 naming the field, never 5xx', async () => {
    const app = await register(api, alice.token);
    const payout = (p: Record<string, unknown>) => registerBody({ payout: { chainId: '8453', tokenSymbol: 'USDC', address: Wallet.createRandom().address, ...p } });
    const cases: Array<[string, string, string, unknown, string]> = [
      ['POST', '/register', 'missing webhookUrl', { ...registerBody(), webhookUrl: undefined }, 'webhookUrl'],
      ['POST', '/register', 'webhookUrl number', registerBody({ webhookUrl: 443 }), 'webhookUrl'],
      ['POST', '/register', 'webhookUrl not a URL', registerBody({ webhookUrl: 'payrail hooks' }), 'webhookUrl'],
      ['POST', '/register', 'missing payout', { ...registerBody(), payout: undefined }, 'payout'],
      ['POST', '/register', 'unsupported chain', payout({ chainId: '1' }), 'payout.chainId'],
      ['POST', '/register', 'chainId as number', payout({ chainId: 8453 }), 'payout.chainId'],
      ['POST', '/register', 'unsupported token', payout({ tokenSymbol: 'DAI' }), 'payout.tokenSymbol'],
      ['POST', '/register', 'bad checksum', payout({ address: '0x000000000000000000000000000000000000DEAd' }), 'payout.address'],
      ['POST', '/register', 'short address', payout({ address: '0x1234' }), 'payout.address'],
      ['POST', '/register', 'zero address', payout({ address: '0x0000000000000000000000000000000000000000' }), 'payout.address'],
      ['POST', '/register', 'payout extra field', payout({ memo: 'x' }), 'payout'],
      ['POST', '/register', 'empty name', registerBody({ name: '  ' }), 'name'],
      ['POST', '/register', 'long name', registerBody({ name: 'n'.repeat(101) }), 'name'],
      ['POST', '/register', 'NUL in name', registerBody({ name: 'a\u0000b' }), 'name'],
      ['POST', '/register', 'unknown field', registerBody({ developerId: bob.developerId }), '(root)'],
      ['POST', `/apps/${app.appId}/keys`, 'scope lower-case', { scope: 'admin' }, 'scope'],
      ['POST', `/apps/${app.appId}/keys`, 'scope unknown', { scope: 'Root' }, 'scope'],
      ['POST', `/apps/${app.appId}/keys`, 'unknown field', { expiresAt: 'tomorrow' }, '(root)'],
      ['PUT', `/apps/${app.appId}/webhook`, 'missing webhookUrl', {}, 'webhookUrl'],
      ['PUT', `/apps/${app.appId}/webhook`, 'http URL', { webhookUrl: 'http://127.0.0.1:9443/payrail' }, 'webhookUrl'],
    ];
    for (const [method, path, label, body, field] of cases) {
      const res = await request(`${api}${path}`, { method, headers: bearer(alice.token), body });
      assert.equal(res.status, 400, `${label}: ${res.text}`);
      const error = assertErrorEnvelope(res, label);
      assert.equal(error.error, 'invalid_request', label);
      assert.ok(error.details?.some((d) => d.path === field || d.path.startsWith(`${field}.`)), `${label}: details name ${field}: ${res.text}`);
    }
    const unauthenticated = await request(`${api}/register`, { body: registerBody() });
    assert.equal(unauthenticated.status, 401);
    assert.equal(assertErrorEnvelope(unauthenticated).error, 'missing_token');
    const apps = (await request(`${api}/apps`, { headers: bearer(alice.token) })).body as { data: unknown[] };
    assert.ok(apps.data.length >= 1);
  });

  it("checks a payout address against the payout chain's family: Solana wallets on Solana, 400 naming payout.address otherwise", async () => {
    const solanaWallet = (await generateKeyPairSigner()).address;
    const solana = (p: Record<string, unknown>) => registerBody({ payout: { chainId: '501', tokenSymbol: 'USDC', address: solanaWallet, ...p } });
    const good = await request(`${api}/register`, { headers: bearer(alice.token), body: solana({}) });
    assert.equal(good.status, 201, good.text);
    assert.deepEqual((good.body as { payout: unknown }).payout, { chainId: '501', tokenSymbol: 'USDC', address: solanaWallet });
    const pyusd = await request(`${api}/register`, { headers: bearer(alice.token), body: solana({ tokenSymbol: 'PYUSD' }) });
    assert.equal(pyusd.status, 201, pyusd.text);

    const bad: Array<[string, Record<string, unknown>]> = [
      ['an EVM address on Solana', solana({ address: Wallet.createRandom().address })],
      ['base58 with a 0 in it', solana({ address: `0${solanaWallet.slice(1)}` })],
      ['base58 with an l in it', solana({ address: `l${solanaWallet.slice(1)}` })],
      ['too short for 32 bytes', solana({ address: solanaWallet.slice(0, 20) })],
      ['33 bytes', solana({ address: getBase58Decoder().decode(new Uint8Array(33).fill(7)) })],
      ['a Solana address on Base', registerBody({ payout: { chainId: '8453', tokenSymbol: 'USDC', address: solanaWallet } })],
      ['empty', solana({ address: '' })],
    ];
    for (const [label, body] of bad) {
      const res = await request(`${api}/register`, { headers: bearer(alice.token), body });
      assert.equal(res.status, 400, `${label}: ${res.text}`);
      const error = assertErrorEnvelope(res, label);
      assert.equal(error.error, 'invalid_request', label);
      assert.ok(error.details?.some((d) => d.path === 'payout.address'), `${label}: details name payout.address: ${res.text}`);
    }
  });
});
