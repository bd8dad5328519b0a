import assert from 'node:assert/strict';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { depositPath, derivePrivateKey } from '../../chains/solana/derivation';
import { depositWallet, parseTonAddress, rawAddress, TON_COIN_TYPE } from '../../chains/ton/wallets';

describe('TON deposit wallets and addresses', () => {
  const seed = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
  const paymentId = '00000000-0000-4000-8000-000000000001';

  it("derives each payment's wallet v5r1 from m/44'/607'/0'/… of the seed, as @ton/crypto would from that key", () => {
    assert.deepEqual(depositPath(paymentId, TON_COIN_TYPE).slice(0, 3), [44, 607, 0]);
    const key = keyPairFromSeed(derivePrivateKey(seed, depositPath(paymentId, TON_COIN_TYPE)));
    const expected = WalletContractV5R1.create({ workchain: 0, publicKey: key.publicKey }).address;
    const wallet = depositWallet(seed, paymentId);
    assert.ok(wallet.contract.address.equals(expected));
    assert.deepEqual(wallet.keyPair.secretKey, key.secretKey);
    assert.ok(depositWallet(seed, paymentId).contract.address.equals(expected), 'stable');
    assert.ok(!depositWallet(seed, '00000000-0000-4000-8000-000000000002').contract.address.equals(expected), 'one per payment');
  });

  it('takes raw and user-friendly addresses, stores them raw, and refuses malformed ones', () => {
    const address = depositWallet(seed, paymentId).contract.address;
    const raw = rawAddress(address);
    assert.match(raw, /^0:[0-9a-f]{64}$/);
    for (const form of [raw, address.toString(), address.toString({ bounceable: false }), address.toString({ urlSafe: false }), ` ${raw} `]) {
      assert.equal(rawAddress(parseTonAddress(form)!), raw, form);
    }
    const friendly = address.toString();
    const flipped = friendly.slice(0, 10) + (friendly[10] === 'A' ? 'B' : 'A') + friendly.slice(11);
    for (const bad of ['', flipped, friendly.slice(0, -1), raw.slice(0, -1), `1:${raw.slice(2)}`, raw.slice(2), '0x000000000000000000000000000000000000dEaD', '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T']) {
      assert.equal(parseTonAddress(bad), null, bad);
    }
  });
});
