import assert from 'node:assert/strict';
import { depositPath, derivePrivateKey, publicAddress } from '../../chains/solana/derivation';

describe('Solana deposit keys (SLIP-0010 ed25519)', () => {
  // SLIP-0010 test vector 1 for ed25519, seed 000102030405060708090a0b0c0d0e0f.
  const seed = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');

  it('derives the SLIP-0010 test vector keys', () => {
    assert.equal(derivePrivateKey(seed, []).toString('hex'), '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7');
    assert.equal(derivePrivateKey(seed, [0]).toString('hex'), '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3');
  });

  it("maps a payment id to m/44'/501'/0' and five 31-bit groups of its 128 bits, one key per payment", () => {
    const path = depositPath('ffffffff-ffff-4fff-bfff-ffffffffffff');
    assert.equal(path.length, 8);
    assert.deepEqual(path.slice(0, 3), [44, 501, 0]);
    for (const index of path) assert.ok(index >= 0 && index < 2 ** 31);
    const a = publicAddress(derivePrivateKey(seed, depositPath('00000000-0000-4000-8000-000000000001')));
    const b = publicAddress(derivePrivateKey(seed, depositPath('00000000-0000-4000-8000-000000000002')));
    assert.notEqual(a, b);
    assert.match(a, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    assert.throws(() => depositPath('not-a-uuid'));
  });
});
