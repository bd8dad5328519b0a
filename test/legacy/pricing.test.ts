import assert from 'node:assert/strict';
import { ChainRegistry, chainRegistrySchema, type ChainRegistryFile } from '../../chains/registry';
import { PAY_CURRENCY_CODES } from '../../domain/pay-currencies';
import { formatRate, peggedUnitsForUsd, unitsForUsd } from '../../domain/pricing';
import { eip681Uri } from '../../chains/evm/adapter';
import { resolvePayCurrency, servedPayCurrencies } from '../../services/pay-currencies';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const FEED = addr(0xfeed);

function registry(overrides: { native?: boolean; feed?: boolean; standIns?: boolean } = {}): ChainRegistry {
  const chain = (chainId: number, name: string, servesChainIds: number[]): ChainRegistryFile['chains'][number] => ({
    chainId,
    name,
    rpcUrl: 'http://127.0.0.1:1',
    confirmations: 2,
    finalityDepth: 4,
    depositFactory: addr(1),
    forwarderInitCodeHash: `0x${'11'.repeat(32)}`,
    cctp: { domain: chainId, tokenMessenger: addr(5), messageTransmitter: addr(6), irisBaseUrl: 'http://127.0.0.1:1' },
    oft: { USDT: { eid: 40_000 + chainId, oft: addr(7) } },
    tokens: { USDC: { address: addr(3), decimals: 6 }, USDT: { address: addr(4), decimals: 6 } },
    ...(overrides.native === false ? {} : { nativeCurrency: { symbol: 'ETH', decimals: 18, ...(overrides.feed === false ? {} : { usdPriceFeed: FEED }) } }),
    servesChainIds: overrides.standIns === false ? [] : servesChainIds,
  });
  return new ChainRegistry(chainRegistrySchema.parse({ chains: [chain(42161, 'Arbitrum (devnet)', [1, 56]), chain(8453, 'Base (devnet)', [137, 42220])] }).chains);
}

describe('legacy pricing and pay currencies', () => {
  it('prices USD stablecoins 1:1, rounding up below 6 decimals and scaling above', () => {
    assert.equal(peggedUnitsForUsd(12_500_000n, 6), 12_500_000n);
    assert.equal(peggedUnitsForUsd(12_500_000n, 18), 12_500_000n * 10n ** 12n);
    assert.equal(peggedUnitsForUsd(1_000_001n, 2), 101n, 'never asks for less than the price');
  });

  it('converts USD to a coin at a feed rate, rounding up, and formats the rate', () => {
    const rate = { answer: 3000n * 10n ** 8n, decimals: 8 };
    assert.equal(unitsForUsd(30_000_000n, 18, rate), 10n ** 16n, '30 USD at 3000 USD/ETH is 0.01 ETH');
    assert.equal(unitsForUsd(50_000n, 18, rate), 16_666_666_666_667n, '0.05 USD rounds up to the next wei');
    assert.equal(formatRate(rate), '3000');
    assert.equal(formatRate({ answer: 299_950_000_000n, decimals: 8 }), '2999.5');
    assert.throws(() => unitsForUsd(1n, 18, { answer: 0n, decimals: 8 }), RangeError);
  });

  it('builds EIP-681 links for tokens and for the native coin', () => {
    assert.equal(
      eip681Uri({ tokenAddress: addr(3), chainId: 42161, address: addr(9), units: '12500000' }),
      `ethereum:${addr(3)}@42161/transfer?address=${addr(9)}&uint256=12500000`,
    );
    assert.equal(eip681Uri({ tokenAddress: null, chainId: 8453, address: addr(9), units: '10' }), `ethereum:${addr(9)}@8453?value=10`);
  });

  it('maps every EVM entry of spec 2.10 onto a configured chain, the mainnet ones through stand-ins', () => {
    const reg = registry();
    const served = Object.fromEntries(servedPayCurrencies(reg).map((c) => [c.code, [c.chainId, c.token.symbol, c.mainnetChainId]]));
    assert.deepEqual(served, {
      USDT_ARB: [42161, 'USDT', 42161],
      USDC_ARB: [42161, 'USDC', 42161],
      ETH_ARB: [42161, 'ETH', 42161],
      USDC_ERC20: [42161, 'USDC', 1],
      USDT_ERC20: [42161, 'USDT', 1],
      USDC_POL: [8453, 'USDC', 137],
      USDT_BNB: [42161, 'USDT', 56],
      USDT_CELO: [8453, 'USDT', 42220],
      USDC_BASE: [8453, 'USDC', 8453],
      ETH_BASE: [8453, 'ETH', 8453],
    });
    // CUSD needs a CUSD token on the chain serving Celo; the test registry has none.
    const cusd = resolvePayCurrency(reg, 'CUSD');
    assert.equal(cusd.ok, false);
    assert.equal(!cusd.ok && cusd.reason, 'not_configured');
  });

  it('refuses entries of chains it does not serve, tokens it does not configure and coins without a price feed', () => {
    for (const code of ['USDT_TRC20', 'USDC_SOL', 'TON', 'USDT_TON', 'USDC_XLM'] as const) {
      const r = resolvePayCurrency(registry(), code);
      assert.ok(!r.ok && r.reason === 'no_chain', code);
    }
    const noStandIns = resolvePayCurrency(registry({ standIns: false }), 'USDC_POL');
    assert.ok(!noStandIns.ok && noStandIns.reason === 'no_chain');
    const noFeed = resolvePayCurrency(registry({ feed: false }), 'ETH_BASE');
    assert.ok(!noFeed.ok && noFeed.reason === 'no_price_source');
    const noNative = resolvePayCurrency(registry({ native: false }), 'ETH_ARB');
    assert.ok(!noNative.ok && noNative.reason === 'not_configured');
    assert.equal(PAY_CURRENCY_CODES.length, 16, 'all of spec 2.10');
  });
});
