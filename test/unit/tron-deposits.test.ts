import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { HDNodeWallet } from 'ethers';
import { TronWeb } from 'tronweb';
import { TronAdapter } from '../../chains/tron/adapter';
import type { TronChainConfig } from '../../chains/tron/config';
import { depositAccount, depositAccountXpub, depositAddressFromXpub, depositPrivateKey, parseDepositAccountXpub } from '../../chains/tron/deposits';
import { tron } from '../../chains/tron';

const config = { family: 'tron', chainId: 195, name: 'Tron', rpcUrl: 'http://127.0.0.1:1', confirmations: 1, finalityDepth: 1, tokens: {} } as unknown as TronChainConfig;

describe('Tron deposit keys: addresses from the xpub, signatures from the seed', () => {
  it("the xpub alone gives every payment the address of the key the seed signs with", () => {
    const seed = randomBytes(32);
    const account = parseDepositAccountXpub(depositAccountXpub(seed));
    assert.ok(account, 'the xpub of the deposit account parses');
    const signer = depositAccount(seed);
    const ids = [randomUUID(), randomUUID(), '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-4fff-bfff-ffffffffffff'];
    const addresses = ids.map((id) => depositAddressFromXpub(account, id));
    for (const [i, id] of ids.entries()) {
      assert.equal(addresses[i], TronWeb.address.fromPrivateKey(depositPrivateKey(signer, id)), `payment ${id}`);
      assert.match(addresses[i], /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    }
    assert.equal(new Set(addresses).size, ids.length, 'one address per payment');
    // The path: m/44'/195'/0' then the payment id's five 31-bit groups, not hardened.
    assert.equal(signer.path, "m/44'/195'/0'");
    assert.equal(depositPrivateKey(signer, ids[2]!), HDNodeWallet.fromSeed(seed).derivePath("m/44'/195'/0'/0/0/0/0/0").privateKey.slice(2));
  });

  it('refuses an extended private key, or a key of another depth, where the xpub goes', () => {
    const seed = randomBytes(32);
    const account = HDNodeWallet.fromSeed(seed).derivePath("m/44'/195'/0'");
    assert.equal(parseDepositAccountXpub(account.extendedKey), null, 'an xprv');
    assert.equal(parseDepositAccountXpub(HDNodeWallet.fromSeed(seed).neuter().extendedKey), null, 'the root xpub');
    assert.equal(parseDepositAccountXpub('not a key'), null);
    const parsed = tron.env.deposits.safeParse({ TRON_DEPOSIT_XPUB: account.extendedKey });
    assert.equal(parsed.success, false);
    assert.match(parsed.error.issues[0]!.message, /never an xprv/);
  });

  it("a worker refuses a seed that is not the xpub's: the API's addresses would be keys it cannot sign for", () => {
    const seed = randomBytes(32);
    const depositXpub = parseDepositAccountXpub(depositAccountXpub(seed))!;
    const adapter = new TronAdapter(config, { depositXpub, depositSeed: seed });
    const id = randomUUID();
    assert.equal(adapter.depositAddress(id), new TronAdapter(config, { depositXpub }).depositAddress(id), 'the API and the worker agree');
    const other = randomBytes(32);
    assert.throws(() => new TronAdapter(config, { depositXpub, depositSeed: other }), new RegExp(`TRON_DEPOSIT_XPUB is not the deposit account of TRON_DEPOSIT_SEED: for this seed it is ${depositAccountXpub(other)}`));
    assert.deepEqual(tron.depositKeysOf?.({ TRON_DEPOSIT_SEED: seed.toString('hex') }), { TRON_DEPOSIT_XPUB: depositAccountXpub(seed) });
  });
});
