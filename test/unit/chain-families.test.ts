import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { getAddress } from 'ethers';
import { ChainAdapters, readChainKeys, signingVariablesIn, withoutSigningVariables } from '../../chains/adapters';
import { CHAIN_FAMILIES, CHAIN_FAMILY_IDS, chainFamily } from '../../chains/families';
import { ChainRegistry, chainRegistrySchema, scanRangeBlocks } from '../../chains/registry';

const TREASURY_KEY = `0x${'11'.repeat(32)}`;
const evmChain = { chainId: 8453, name: 'Base', rpcUrl: 'http://127.0.0.1:1', confirmations: 2, finalityDepth: 4, depositFactory: `0x${'22'.repeat(20)}`, forwarderInitCodeHash: `0x${'33'.repeat(32)}`, tokens: {} };
const solanaChain = { family: 'solana', chainId: 501, name: 'Solana', rpcUrl: 'http://127.0.0.1:1', confirmations: 1, finalityDepth: 4, scanBatchSlots: 250, tokens: {} };

const registry = (...chains: unknown[]) => new ChainRegistry(chainRegistrySchema.parse({ chains }).chains);

describe('chain families: one descriptor each, one list', () => {
  it('lists each family once, its chain schema naming its own id', () => {
    assert.deepEqual(CHAIN_FAMILY_IDS, ['evm', 'solana', 'ton', 'tron', 'stellar']);
    for (const family of CHAIN_FAMILIES) {
      assert.equal(family.chainSchema.shape.family.value, family.id);
      assert.equal(chainFamily(family.id), family);
    }
    assert.throws(() => chainFamily('bitcoin'), /bitcoin is not a chain family/);
  });

  it('reads an entry without a family as the first family, and each chain through its family', () => {
    const chains = registry(evmChain, solanaChain);
    assert.deepEqual(chains.chains.map((c) => c.family), ['evm', 'solana']);
    assert.deepEqual(chains.chains.map(scanRangeBlocks), [500, 250]);
    assert.throws(() => registry({ ...solanaChain, family: 'bitcoin' }));
  });

  it('a worker reads every signing and deposit key of the families it has chains of, naming what is missing or invalid', () => {
    const chains = registry(evmChain, solanaChain);
    const seed = randomBytes(32).toString('hex');
    const secret = JSON.stringify(Array.from(randomBytes(64)));
    const keys = readChainKeys(chains, { TREASURY_PRIVATE_KEY: TREASURY_KEY, SOLANA_DEPOSIT_SEED: seed, SOLANA_TREASURY_SECRET_KEY: secret, TON_DEPOSIT_SEED: 'not read' }, 'worker');
    assert.deepEqual(Object.keys(keys).sort(), ['evm', 'solana'], 'only the families it has chains of');
    assert.equal(keys.evm?.TREASURY_PRIVATE_KEY, TREASURY_KEY);
    assert.deepEqual(keys.solana?.SOLANA_DEPOSIT_SEED, Uint8Array.from(Buffer.from(seed, 'hex')));
    assert.throws(
      () => readChainKeys(chains, { TREASURY_PRIVATE_KEY: '0x12', SOLANA_DEPOSIT_SEED: seed }, 'worker'),
      (err: Error) =>
        err.message.startsWith('invalid configuration: ') &&
        err.message.includes('TREASURY_PRIVATE_KEY: must be a 0x-prefixed 32-byte hex key') &&
        err.message.includes('SOLANA_TREASURY_SECRET_KEY: required (solana chain 501)'),
    );
  });

  it('the API reads only the public data deposit addresses follow from: never a signing key or a deposit seed', () => {
    const chains = registry(evmChain, solanaChain);
    const keys = readChainKeys(chains, { TREASURY_PRIVATE_KEY: TREASURY_KEY, SOLANA_TREASURY_SECRET_KEY: 'not even valid', SOLANA_DEPOSIT_SEED: 'ab'.repeat(32) }, 'deposits');
    assert.deepEqual(keys, { evm: {}, solana: {} });
    assert.deepEqual(readChainKeys(chains, {}, 'deposits'), { evm: {}, solana: {} }, 'Solana addresses come from the pool: the API needs nothing');
    assert.deepEqual(
      CHAIN_FAMILIES.map((f) => [f.id, Object.keys(f.env.deposits.shape), f.depositAddresses]),
      [['evm', [], 'derived'], ['solana', [], 'pooled'], ['ton', [], 'pooled'], ['tron', ['TRON_DEPOSIT_XPUB'], 'derived'], ['stellar', [], 'derived']],
    );
    const seeds = CHAIN_FAMILIES.flatMap((f) => Object.keys(f.env.signing.shape)).filter((name) => name.includes('SEED'));
    assert.deepEqual(seeds, ['SOLANA_DEPOSIT_SEED', 'TON_DEPOSIT_SEED', 'TRON_DEPOSIT_SEED'], 'every deposit seed is a signing key, the worker\'s alone');
  });

  it("an API's environment is the worker's without a single signing variable", () => {
    const env = { TREASURY_PRIVATE_KEY: TREASURY_KEY, SOLANA_DEPOSIT_SEED: 'ab', TON_TREASURY_SECRET_KEY: 'cd', STELLAR_RECEIVING_SECRET: 'S', TRON_DEPOSIT_XPUB: 'xpub', DATABASE_URL: 'postgres://x', UNSET: undefined };
    assert.deepEqual(signingVariablesIn(env).sort(), ['SOLANA_DEPOSIT_SEED', 'STELLAR_RECEIVING_SECRET', 'TON_TREASURY_SECRET_KEY', 'TREASURY_PRIVATE_KEY']);
    assert.deepEqual(withoutSigningVariables(env), { TRON_DEPOSIT_XPUB: 'xpub', DATABASE_URL: 'postgres://x' });
    assert.deepEqual(signingVariablesIn(withoutSigningVariables(env)), []);
  });

  it('each family gives its chains address rules, and the chains bridges reach an endpoint', () => {
    const adapters = new ChainAdapters(registry(evmChain, solanaChain), { evm: { TREASURY_PRIVATE_KEY: TREASURY_KEY } });
    try {
      const lower = `0x${'ab'.repeat(20)}`;
      assert.equal(adapters.family(8453).addresses.normalize(lower), getAddress(lower), 'stored in its EIP-55 form');
      assert.equal(adapters.family(8453).addresses.normalize(lower.replace('ab', 'AB')), null, 'mixed case must match the checksum');
      assert.equal(adapters.family(8453).addresses.normalize(`0x${'00'.repeat(20)}`), null, 'not the zero address');
      assert.equal(adapters.family(501).addresses.normalize(`0x${'ab'.repeat(20)}`), null);
      assert.match(adapters.family(501).addresses.form, /base58/);
      assert.ok(adapters.bridgeEndpoint(8453), 'EVM chains are bridge endpoints');
      assert.equal(adapters.bridgeEndpoint(501), undefined, 'no bridge reaches Solana');
    } finally {
      adapters.destroy();
    }
  });
});
