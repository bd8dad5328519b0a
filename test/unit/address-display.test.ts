import assert from 'node:assert/strict';
import { Keypair, MuxedAccount, Account } from '@stellar/stellar-sdk';
import { Address } from '@ton/core';
import { chainFamily } from '../../chains/families';
import { ChainRegistry, chainRegistrySchema } from '../../chains/registry';

const tonChain = { family: 'ton', chainId: 607, name: 'TON', rpcUrl: 'http://127.0.0.1:1', confirmations: 1, finalityDepth: 1, tokens: {} };
const evmChain = { chainId: 8453, name: 'Base', rpcUrl: 'http://127.0.0.1:1', confirmations: 2, finalityDepth: 4, depositFactory: `0x${'22'.repeat(20)}`, forwarderInitCodeHash: `0x${'33'.repeat(32)}`, tokens: {} };
const registry = (...chains: unknown[]) => new ChainRegistry(chainRegistrySchema.parse({ chains }).chains);

describe('addresses as each family writes them (AddressRules.display)', () => {
  it('TON: a stored raw deposit is shown user-friendly non-bounceable (UQ…), test-only on a testnet; raw and friendly input name the same stored address', () => {
    const raw = `0:${'ba70'.repeat(16)}`;
    const rules = chainFamily('ton').addresses;
    const stored = rules.normalize(raw)!;
    const chains = registry(tonChain, { ...tonChain, chainId: 608, testnet: true });
    const shown = chains.displayAddress(607, stored);
    assert.match(shown, /^UQ[A-Za-z0-9_-]{46}$/);
    const parsed = Address.parseFriendly(shown);
    assert.equal(parsed.isBounceable, false);
    assert.equal(parsed.isTestOnly, false);
    assert.equal(Address.parseFriendly(chains.displayAddress(608, stored)).isTestOnly, true);
    assert.equal(rules.normalize(shown), stored, 'the shown form is taken back as the same address');
    assert.equal(rules.normalize(Address.parse(raw).toString({ bounceable: true })), stored, 'and so is the bounceable form');
  });

  it('EVM: shown EIP-55 whatever case it was written in', () => {
    const lower = '0x52908400098527886e0f7030069857d2e4169ee7';
    assert.equal(registry(evmChain).displayAddress(8453, lower), '0x52908400098527886E0F7030069857D2E4169EE7');
  });

  it('Tron, Solana and Stellar store what their wallets write: shown as stored (Stellar deposits: the muxed M… form)', () => {
    const muxed = new MuxedAccount(new Account(Keypair.random().publicKey(), '0'), '42').accountId();
    const cases: Array<[string, string]> = [
      ['tron', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'],
      ['solana', 'So11111111111111111111111111111111111111112'],
      ['stellar', muxed],
    ];
    for (const [family, address] of cases) assert.equal(chainFamily(family).addresses.display(address, {}), address, family);
  });
});
