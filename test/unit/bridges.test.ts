import assert from 'node:assert/strict';
import { getAddress, Interface } from 'ethers';
import { ChainAdapters } from '../../chains/adapters';
import { bridgeAdapterFor, bridgeKindFor } from '../../chains/bridges/adapter';
import { cctpMessageMismatches, TOKEN_MESSENGER_V2_ABI } from '../../chains/bridges/cctp';
import { encodeCctpBurnMessage, encodeCctpMessage, type CctpBurnMessage, type CctpMessage } from '../../chains/bridges/cctp-message';
import { OFT_ABI } from '../../chains/bridges/oft';
import { addressToBytes32 } from '../../chains/bridges/tx';
import { ChainRegistry, chainRegistrySchema, type ChainRegistryFile } from '../../chains/registry';
import type { BridgeQuote } from '../../domain/bridges';
import { irisClient } from '../../services/bridges';

const addr = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`);
const TREASURY_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const TREASURY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** Two EVM chains of a chains file, with CCTP on `cctpOn` and USDT's OFT on both; their adapters are the bridge endpoints. */
function chains(opts: { cctpOn?: number[] } = {}): ChainAdapters {
  const chain = (chainId: number, n: number): ChainRegistryFile['chains'][number] => ({
    chainId,
    name: `chain ${chainId}`,
    rpcUrl: 'http://127.0.0.1:1',
    confirmations: 2,
    finalityDepth: 4,
    depositFactory: addr(1),
    forwarderInitCodeHash: `0x${'11'.repeat(32)}`,
    tokens: { USDC: { address: addr(n + 1), decimals: 6 }, USDT: { address: addr(n + 2), decimals: 6 }, CUSD: { address: addr(n + 3), decimals: 18 } },
    ...((opts.cctpOn ?? [42161, 8453]).includes(chainId)
      ? { cctp: { domain: n, tokenMessenger: addr(n + 4), messageTransmitter: addr(n + 5), irisBaseUrl: 'https://iris.invalid', finality: 'standard' as const } }
      : {}),
    oft: { USDT: { eid: 30_000 + n, oft: addr(n + 6) } },
  });
  const registry = new ChainRegistry(chainRegistrySchema.parse({ chains: [chain(42161, 3), chain(8453, 6)] }).chains);
  const adapters = new ChainAdapters(registry, { evm: { TREASURY_PRIVATE_KEY: TREASURY_KEY } });
  made.push(adapters);
  return adapters;
}

const made: ChainAdapters[] = [];

describe('bridge adapters: which bridge, and the calls they sign', () => {
  after(() => {
    for (const adapters of made) adapters.destroy();
  });

  it('picks CCTP for USDC, the OFT for USDT, nothing for a token without a bridge or within one chain', () => {
    assert.equal(bridgeKindFor(chains(), 42161, 8453, 'USDC'), 'cctp');
    assert.equal(bridgeKindFor(chains(), 8453, 42161, 'USDT'), 'oft');
    assert.equal(bridgeKindFor(chains(), 42161, 8453, 'CUSD'), undefined);
    assert.equal(bridgeKindFor(chains(), 42161, 42161, 'USDC'), undefined);
    assert.equal(bridgeKindFor(chains({ cctpOn: [42161] }), 42161, 8453, 'USDC'), undefined, 'CCTP on one side only');
    assert.equal(bridgeKindFor(chains(), 42161, 501, 'USDC'), undefined, 'no bridge reaches a chain without an endpoint');
  });

  it('CCTP burns from the quote: mintRecipient and destinationCaller are the treasury, maxFee and finality as quoted', () => {
    const adapter = bridgeAdapterFor({ endpoints: chains(), iris: irisClient(false) }, 42161, 8453, 'USDC')!;
    const quote: BridgeQuote = {
      kind: 'cctp', sourceChainId: 42161, destinationChainId: 8453, tokenSymbol: 'USDC', amountUnits: '39800000', recipient: TREASURY,
      maxFeeUnits: '4400', nativeFeeWei: '0', expectedSeconds: 60, params: { minFinalityThreshold: '1000' },
    };
    const call = adapter.start(quote);
    assert.equal(call.to, addr(3 + 4));
    const [amount, domain, mintRecipient, burnToken, destinationCaller, maxFee, threshold] = new Interface(TOKEN_MESSENGER_V2_ABI).decodeFunctionData('depositForBurn', call.data);
    assert.deepEqual(
      [amount, domain, mintRecipient, burnToken, destinationCaller, maxFee, threshold],
      [39_800_000n, 6n, addressToBytes32(TREASURY), addr(3 + 1), addressToBytes32(TREASURY), 4_400n, 1000n],
    );
  });

  it('an OFT send pays the quoted native fee and refuses to deliver less than the quote', async () => {
    const adapter = bridgeAdapterFor({ endpoints: chains(), iris: irisClient(false) }, 8453, 42161, 'USDT')!;
    const quote: BridgeQuote = {
      kind: 'oft', sourceChainId: 8453, destinationChainId: 42161, tokenSymbol: 'USDT', amountUnits: '15000000', recipient: TREASURY,
      maxFeeUnits: '0', nativeFeeWei: '120', expectedSeconds: 180, params: { destinationFromBlock: '10' },
    };
    const call = adapter.start(quote);
    assert.equal(call.to, addr(6 + 6));
    assert.equal(call.value, 120n);
    const [sendParam, fee, refundAddress] = new Interface(OFT_ABI).decodeFunctionData('send', call.data) as unknown as [
      { dstEid: bigint; to: string; amountLD: bigint; minAmountLD: bigint }, { nativeFee: bigint; lzTokenFee: bigint }, string,
    ];
    assert.deepEqual([sendParam.dstEid, sendParam.to, sendParam.amountLD, sendParam.minAmountLD], [30_003n, addressToBytes32(TREASURY), 15_000_000n, 15_000_000n]);
    assert.deepEqual([fee.nativeFee, fee.lzTokenFee, refundAddress], [120n, 0n, TREASURY]);
    assert.equal(await adapter.finish(quote, { state: 'delivered', txHash: `0x${'ab'.repeat(32)}`, receivedUnits: '15000000' }, `0x${'cd'.repeat(32)}`), null, 'LayerZero delivers');
  });

  it("an attested CCTP message is taken only when it is our burn's: every field the burn fixed, Iris's nonce and fee within bounds", () => {
    const word = (n: number) => addressToBytes32(addr(n));
    const sent: CctpMessage = {
      version: 1, sourceDomain: 3, destinationDomain: 6, nonce: `0x${'00'.repeat(32)}`, sender: word(7), recipient: word(8), destinationCaller: addressToBytes32(TREASURY),
      minFinalityThreshold: 1000, finalityThresholdExecuted: 0, messageBody: '0x',
    };
    const burned: CctpBurnMessage = {
      version: 1, burnToken: word(1), mintRecipient: addressToBytes32(TREASURY), amount: 39_800_000n, messageSender: addressToBytes32(TREASURY), maxFee: 4_400n,
      feeExecuted: 0n, expirationBlock: 0n, hookData: '0x',
    };
    const burn = { message: { ...sent, messageBody: encodeCctpBurnMessage(burned) }, body: burned };
    const nonce = `0x${'5a'.repeat(32)}`;
    const attested = (message: Partial<CctpMessage> = {}, body: Partial<CctpBurnMessage> = {}) =>
      encodeCctpMessage({ ...sent, nonce, finalityThresholdExecuted: 1000, ...message, messageBody: encodeCctpBurnMessage({ ...burned, feeExecuted: 3_980n, ...body }) });

    assert.deepEqual(cctpMessageMismatches(burn, { message: attested(), nonce }), [], 'our burn, as Iris fills it in');
    assert.deepEqual(cctpMessageMismatches(burn, { message: attested({ finalityThresholdExecuted: 2000 }), nonce }), [], 'attested at finality instead');
    const refused = (message: Partial<CctpMessage>, body: Partial<CctpBurnMessage> = {}, claimed = nonce) => cctpMessageMismatches(burn, { message: attested(message, body), nonce: claimed });
    assert.match(refused({}, { amount: 79_600_000n }).join(), /amount 79600000 is not the burn's 39800000/);
    assert.match(refused({}, { mintRecipient: word(99) }).join(), /mint recipient .* is not the burn's/);
    assert.match(refused({ sourceDomain: 0 }).join(), /source domain 0 is not the burn's 3/);
    assert.match(refused({ sender: word(98) }).join(), /sender .* is not the burn's/);
    assert.match(refused({ recipient: word(97) }).join(), /recipient .* is not the burn's/);
    assert.match(refused({ destinationCaller: word(96) }).join(), /destination caller/);
    assert.match(refused({}, { messageSender: word(95) }).join(), /message sender/);
    assert.match(refused({}, { burnToken: word(94) }).join(), /burn token/);
    assert.match(refused({}, {}, `0x${'6b'.repeat(32)}`).join(), /is not Iris's eventNonce/);
    assert.match(refused({ nonce: sent.nonce }, {}, sent.nonce).join(), /the nonce is empty/);
    assert.match(refused({}, { feeExecuted: 4_401n }).join(), /fee executed 4401 is over the max fee 4400/);
    assert.match(refused({ finalityThresholdExecuted: 500 }).join(), /finality executed 500 is below the 1000 asked/);
    assert.match(cctpMessageMismatches(burn, { message: '0x01', nonce }).join(), /cannot be read/);
  });
});
