import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { concat, Interface, JsonRpcProvider, keccak256, Wallet, type InterfaceAbi, type TransactionReceipt } from 'ethers';
import {
  buildCctpApprove, buildDepositForBurn, buildReceiveMessage, fetchCctpAttestation, isCctpNonceUsed, parseCctpBurnReceipt,
  parseCctpMintReceipt, quoteCctpFee, type CctpRoute,
} from '../../chains/bridges/cctp';
import { decodeCctpBurnMessage, decodeCctpMessage, encodeCctpBurnMessage, encodeCctpMessage } from '../../chains/bridges/cctp-message';
import { MAINNET_BRIDGES } from '../../chains/bridges/mainnet';
import {
  buildOftApprove, buildOftSend, findOftDelivery, lzReceiveOption, oftApprovalRequired, parseOftSentReceipt, quoteOftSend, type OftRoute,
} from '../../chains/bridges/oft';
import type { TxRequest } from '../../chains/bridges/tx';
import { irisClient } from '../../services/bridges';
import { deployDevnetBridges, type DevnetBridges } from '../../tools/devnets/bridges/deploy';
import { compileBridgeContracts } from '../../tools/devnets/bridges/compile';
import { startDevnet, type Devnet } from '../../tools/devnets/evm/devnet';

const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)', 'function totalSupply() view returns (uint256)']);
const POLL_MS = 100;
/** The stand-in Iris listens on 127.0.0.1: reached through the vetted client with private networks allowed. */
const iris = irisClient(true);

/** Circle ships the CCTP v2 ABIs inside @circle-fin/adapter-ethers-v6 without exporting them: read the array literal. */
function circlePublishedAbi(name: 'messageTransmitterV2Abi' | 'tokenMessengerV2Abi'): InterfaceAbi {
  const source = readFileSync(require.resolve('@circle-fin/adapter-ethers-v6'), 'utf8');
  const start = source.indexOf('[', source.indexOf(`const ${name} = [`));
  assert.ok(start > 0, `${name} not found in @circle-fin/adapter-ethers-v6`);
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    if (source[i] === '[') depth++;
    if (source[i] === ']' && --depth === 0) return runInNewContext(`(${source.slice(start, i + 1)})`, {}) as InterfaceAbi;
  }
  throw new Error(`${name} is not a closed array literal`);
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

describe('devnet bridges: CCTP v2 and LayerZero OFT on two hardhat nodes', function () {
  this.timeout(120_000);
  let devnet: Devnet;
  let bridges: DevnetBridges;
  let providers: [JsonRpcProvider, JsonRpcProvider];
  let cctpRoute: (finality: CctpRoute['finality']) => CctpRoute;
  let oftRoute: (from: 0 | 1) => OftRoute;

  const balance = async (chain: 0 | 1, token: string, owner: string): Promise<bigint> =>
    BigInt(await providers[chain].call({ to: token, data: ERC20.encodeFunctionData('balanceOf', [owner]) }));
  const supply = async (chain: 0 | 1, token: string): Promise<bigint> =>
    BigInt(await providers[chain].call({ to: token, data: ERC20.encodeFunctionData('totalSupply', []) }));
  const signer = (chain: 0 | 1, key: string): Wallet => new Wallet(key, providers[chain]);
  const sendTx = async (wallet: Wallet, tx: TxRequest): Promise<TransactionReceipt> => {
    const receipt = await (await wallet.sendTransaction(tx)).wait();
    assert.equal(receipt?.status, 1);
    return receipt;
  };

  /** Customer burns `amount` USDC on chain 0 for `recipient` on chain 1; returns the burn and the maxFee it allowed. */
  const burnUsdc = async (route: CctpRoute, amount: bigint, recipient: string) => {
    const customer = signer(0, devnet.customer.privateKey);
    const quote = await quoteCctpFee(route, amount, { get: iris });
    await sendTx(customer, buildCctpApprove(route, amount));
    const receipt = await sendTx(customer, buildDepositForBurn(route, { amount, mintRecipient: recipient, maxFee: quote.maxFee }));
    const [burn, ...others] = parseCctpBurnReceipt(route, receipt);
    assert.ok(burn);
    assert.equal(others.length, 0);
    return { burn, quote };
  };
  const attested = (route: CctpRoute, burn: { txHash: string; messageIndex: number }) =>
    until('attestation', async () => {
      const a = await fetchCctpAttestation(route, burn, { get: iris });
      return a.status === 'complete' ? a : undefined;
    });

  before(async function () {
    this.timeout(300_000);
    devnet = await startDevnet({ chains: [{ chainId: 42161, name: 'Arbitrum', port: 0 }, { chainId: 8453, name: 'Base', port: 0 }], blockTimeMs: 250 });
    const [a, b] = devnet.chains;
    assert.ok(a && b);
    bridges = await deployDevnetBridges({
      chains: [
        { chainId: a.chainId, rpcUrl: a.rpcUrl, usdc: a.tokens.USDC.address, usdt: a.tokens.USDT.address },
        { chainId: b.chainId, rpcUrl: b.rpcUrl, usdc: b.tokens.USDC.address, usdt: b.tokens.USDT.address },
      ],
      treasuryKey: devnet.treasury.privateKey,
      attestation: { fastConfirmations: 2, standardConfirmations: 10, fastFeeBps: '1.3' },
    });
    providers = devnet.chains.map((c) => new JsonRpcProvider(c.rpcUrl, c.chainId, { staticNetwork: true, cacheTimeout: -1 })) as [JsonRpcProvider, JsonRpcProvider];
    const [ca, cb] = bridges.cctp.chains;
    cctpRoute = (finality) => ({ source: ca, destination: cb, irisBaseUrl: bridges.cctp.irisUrl, finality });
    const [oa, ob] = bridges.oft.chains;
    oftRoute = (from) => (from === 0 ? { source: oa, destination: ob } : { source: ob, destination: oa });
  });

  after(async function () {
    this.timeout(60_000);
    await bridges?.stop();
    for (const p of providers ?? []) p.destroy();
    await devnet?.stop();
  });

  it('our CCTP contracts have the selectors, outputs and event topics of Circle\'s published v2 ABIs', function () {
    const compiled = compileBridgeContracts();
    const core: Record<string, string[]> = {
      MessageTransmitterV2: ['receiveMessage(bytes,bytes)', 'sendMessage(uint32,bytes32,bytes32,uint32,bytes)', 'usedNonces(bytes32)', 'MessageSent(bytes)', 'MessageReceived(address,uint32,bytes32,bytes32,uint32,bytes)'],
      TokenMessengerV2: [
        'depositForBurn(uint256,uint32,bytes32,address,bytes32,uint256,uint32)', 'depositForBurnWithHook(uint256,uint32,bytes32,address,bytes32,uint256,uint32,bytes)',
        'handleReceiveFinalizedMessage(uint32,bytes32,uint32,bytes)', 'handleReceiveUnfinalizedMessage(uint32,bytes32,uint32,bytes)',
        'DepositForBurn(address,uint256,address,bytes32,uint32,bytes32,bytes32,uint256,uint32,bytes)', 'MintAndWithdraw(address,uint256,address,uint256)',
      ],
    };
    for (const [contract, circleName] of [['MessageTransmitterV2', 'messageTransmitterV2Abi'], ['TokenMessengerV2', 'tokenMessengerV2Abi']] as const) {
      const ours = new Interface(compiled[contract].abi);
      const circle = new Interface(circlePublishedAbi(circleName));
      const shape = (f: ReturnType<Interface['getFunction']>) => f && `${f.format('sighash')} ${f.stateMutability} -> ${f.outputs.map((o) => o.type).join(',')}`;
      let functions = 0;
      ours.forEachFunction((f) => {
        functions++;
        // Every function we expose is one of Circle's, with the same selector, mutability and return types.
        assert.equal(shape(circle.getFunction(f.selector)), shape(f), `${contract}.${f.format('sighash')}`);
      });
      let events = 0;
      ours.forEachEvent((e) => {
        events++;
        assert.equal(circle.getEvent(e.topicHash)?.format('full'), e.format('full'), `${contract} event ${e.format('sighash')}`);
      });
      const ourSignatures: string[] = [];
      ours.forEachFunction((f) => ourSignatures.push(f.format('sighash')));
      ours.forEachEvent((e) => ourSignatures.push(e.format('sighash')));
      for (const signature of core[contract] ?? []) assert.ok(ourSignatures.includes(signature), `${contract} lacks ${signature}`);
      assert.ok(functions >= 15 && events >= 5, `${contract}: ${functions} functions, ${events} events compared`);
    }
    assert.equal(new Interface(circlePublishedAbi('tokenMessengerV2Abi')).getFunction('depositForBurn')?.selector, '0x8e0250ee');
    assert.equal(new Interface(circlePublishedAbi('messageTransmitterV2Abi')).getFunction('receiveMessage')?.selector, '0x57ecfd28');
  });

  it('the mainnet configuration matches Circle\'s and LayerZero\'s published lists', async function () {
    const circleChains = (await import('@circle-fin/bridge-kit/chains')) as unknown as Record<string, {
      chainId?: number; usdcAddress: string;
      cctp: { domain: number; contracts: { v2: { tokenMessenger: string; messageTransmitter: string; confirmations: number; fastConfirmations: number } } } | null;
    }>;
    const circleName = { ethereum: 'Ethereum', arbitrum: 'Arbitrum', base: 'Base', polygon: 'Polygon', solana: 'Solana' } as const;
    for (const [ours, theirs] of Object.entries(circleName)) {
      const mine = MAINNET_BRIDGES[ours as keyof typeof circleName].cctp;
      const circle = circleChains[theirs];
      assert.ok(circle?.cctp, theirs);
      assert.deepEqual(
        { domain: mine.domain, tm: mine.tokenMessenger.toLowerCase(), mt: mine.messageTransmitter.toLowerCase(), usdc: mine.usdc.toLowerCase(), ...mine.confirmations },
        { domain: circle.cctp.domain, tm: circle.cctp.contracts.v2.tokenMessenger.toLowerCase(), mt: circle.cctp.contracts.v2.messageTransmitter.toLowerCase(),
          usdc: circle.usdcAddress.toLowerCase(), standard: circle.cctp.contracts.v2.confirmations, fast: circle.cctp.contracts.v2.fastConfirmations },
        theirs,
      );
    }
    assert.equal(MAINNET_BRIDGES.bnb.cctp, null);
    assert.equal(MAINNET_BRIDGES.celo.cctp, null);
    const { EndpointId } = await import('@layerzerolabs/lz-definitions');
    const eids = { ethereum: 'ETHEREUM_V2_MAINNET', arbitrum: 'ARBITRUM_V2_MAINNET', base: 'BASE_V2_MAINNET', polygon: 'POLYGON_V2_MAINNET', bnb: 'BSC_V2_MAINNET', celo: 'CELO_V2_MAINNET', solana: 'SOLANA_V2_MAINNET' } as const;
    for (const [ours, theirs] of Object.entries(eids)) {
      const chain = MAINNET_BRIDGES[ours as keyof typeof eids];
      assert.equal(chain.lzEid, EndpointId[theirs], ours);
      if (chain.usdt0) assert.equal(chain.usdt0.eid, chain.lzEid, ours);
    }
  });

  it('moves USDC from chain A to a recipient on chain B through CCTP v2 fast transfer, fee within maxFee', async function () {
    const route = cctpRoute('fast');
    const [a, b] = devnet.chains as [Devnet['chains'][0], Devnet['chains'][0]];
    const amount = 1_234_567_890n; // 1,234.56789 USDC
    const recipient = devnet.merchantPayout.address;
    const before = { customer: await balance(0, a.tokens.USDC.address, devnet.customer.address), supplyA: await supply(0, a.tokens.USDC.address),
      recipient: await balance(1, b.tokens.USDC.address, recipient), feeRecipient: await balance(1, b.tokens.USDC.address, devnet.treasury.address) };

    const { burn, quote } = await burnUsdc(route, amount, recipient);
    assert.equal(quote.finalityThreshold, 1000);
    assert.equal(quote.fee, 160_494n); // ceil(1,234,567,890 × 1.3 / 10,000)
    assert.equal(quote.maxFee, 176_544n); // plus 10% head room, rounded up
    assert.equal(burn.message.sourceDomain, 3);
    assert.equal(burn.message.destinationDomain, 6);
    assert.equal(burn.message.nonce, `0x${'0'.repeat(64)}`); // Iris assigns it
    assert.equal(burn.message.minFinalityThreshold, 1000);
    assert.equal(burn.body.amount, amount);
    assert.equal(burn.body.maxFee, quote.maxFee);
    assert.equal(await balance(0, a.tokens.USDC.address, devnet.customer.address), before.customer - amount);
    assert.equal(await supply(0, a.tokens.USDC.address), before.supplyA - amount); // burned, not parked

    const attestation = await attested(route, burn);
    const message = decodeCctpMessage(attestation.message);
    const body = decodeCctpBurnMessage(message.messageBody);
    assert.equal(message.finalityThresholdExecuted, 1000);
    assert.equal(message.nonce, attestation.nonce);
    assert.equal(body.feeExecuted, quote.fee);
    assert.ok(body.feeExecuted <= body.maxFee);
    assert.equal(await isCctpNonceUsed(route, providers[1], attestation.nonce), false);

    const receipt = await sendTx(signer(1, devnet.treasury.privateKey), buildReceiveMessage(route, attestation));
    assert.deepEqual(parseCctpMintReceipt(route, receipt), { mintRecipient: recipient, amount: amount - quote.fee, mintToken: b.tokens.USDC.address, feeCollected: quote.fee });
    assert.equal(await balance(1, b.tokens.USDC.address, recipient), before.recipient + amount - quote.fee);
    assert.equal(await balance(1, b.tokens.USDC.address, devnet.treasury.address), before.feeRecipient + quote.fee);
    assert.equal(await isCctpNonceUsed(route, providers[1], attestation.nonce), true);
  });

  it('the Iris stand-in answers in Iris\'s shapes: fee tiers, 404 for an unknown transaction, decoded messages', async function () {
    const route = cctpRoute('fast');
    const url = bridges.cctp.irisUrl;
    assert.deepEqual(await (await fetch(`${url}/v2/burn/USDC/fees/3/6`)).json(), [
      { finalityThreshold: 1000, minimumFee: 1.3 }, { finalityThreshold: 2000, minimumFee: 0 },
    ]);
    const unknownTx = `0x${'ab'.repeat(32)}`;
    const unknown = await fetch(`${url}/v2/messages/3?transactionHash=${unknownTx}`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { error: 'Message not found' });
    assert.deepEqual(await fetchCctpAttestation(route, { txHash: unknownTx, messageIndex: 0 }, { get: iris }), { status: 'pending', irisStatus: undefined });

    const { burn, quote } = await burnUsdc(route, 2_000_000n, devnet.merchantPayout.address);
    const attestation = await attested(route, burn);
    const body = (await (await fetch(`${url}/v2/messages/3?transactionHash=${burn.txHash}`)).json()) as { messages: Record<string, unknown>[] };
    assert.equal(body.messages.length, 1);
    const [a, b] = bridges.cctp.chains;
    assert.deepEqual(body.messages[0], {
      message: attestation.message,
      eventNonce: attestation.nonce,
      attestation: attestation.attestation,
      cctpVersion: 2,
      status: 'complete',
      decodedMessage: {
        sourceDomain: '3',
        destinationDomain: '6',
        nonce: attestation.nonce,
        sender: a.tokenMessenger.toLowerCase(),
        recipient: b.tokenMessenger.toLowerCase(),
        destinationCaller: `0x${'0'.repeat(64)}`,
        minFinalityThreshold: '1000',
        finalityThresholdExecuted: '1000',
        messageBody: decodeCctpMessage(attestation.message).messageBody,
        decodedMessageBody: {
          burnToken: a.usdc.toLowerCase(),
          mintRecipient: devnet.merchantPayout.address.toLowerCase(),
          amount: '2000000',
          messageSender: devnet.customer.address.toLowerCase(),
          maxFee: quote.maxFee.toString(),
          feeExecuted: '260',
          expirationBlock: '0',
          hookData: null,
        },
      },
      delayReason: null,
    });
    assert.equal(quote.maxFee, 286n);
    assert.equal(attestation.attestation.length, 2 + 2 * 65 * bridges.cctp.signatureThreshold);
  });

  it('a standard transfer waits while Iris is down and completes once it is back', async function () {
    const route = cctpRoute('standard');
    const [, b] = devnet.chains as [Devnet['chains'][0], Devnet['chains'][0]];
    const amount = 50_000_000n;
    const recipient = devnet.merchantPayout.address;
    const before = await balance(1, b.tokens.USDC.address, recipient);
    const { burn, quote } = await burnUsdc(route, amount, recipient);
    assert.equal(quote.maxFee, 0n);

    await bridges.attestationService.stop();
    const startBlock = await providers[0].getBlockNumber();
    // While Iris is away every lookup fails (the caller's retry policy keeps the transfer in bridging)…
    await until('blocks past the standard threshold', async () => ((await providers[0].getBlockNumber()) >= startBlock + 12 ? true : undefined));
    await assert.rejects(fetchCctpAttestation(route, burn, { get: iris }), /GET 127\.0\.0\.1:\d+\/v2\/messages\/\d+ failed: ECONNREFUSED/);
    await bridges.attestationService.start();
    // …and once it is back it catches up with the chain and attests.
    const attestation = await attested(route, burn);
    const message = decodeCctpMessage(attestation.message);
    assert.equal(message.finalityThresholdExecuted, 2000);
    assert.equal(decodeCctpBurnMessage(message.messageBody).feeExecuted, 0n);
    await sendTx(signer(1, devnet.treasury.privateKey), buildReceiveMessage(route, attestation));
    assert.equal(await balance(1, b.tokens.USDC.address, recipient), before + amount);
  });

  it('Iris reports a standard burn as pending until finality, and a replayed message is refused (nonce used)', async function () {
    const route = cctpRoute('standard');
    const [, b] = devnet.chains as [Devnet['chains'][0], Devnet['chains'][0]];
    const { burn } = await burnUsdc(route, 10_000_000n, devnet.merchantPayout.address);
    const first = await until('Iris to index the burn', async () => {
      const a = await fetchCctpAttestation(route, burn, { get: iris });
      return a.status === 'pending' && a.irisStatus === undefined ? undefined : a;
    });
    // Indexed within a block or two of the burn, far from the ten confirmations a standard transfer waits for.
    assert.deepEqual(first, { status: 'pending', irisStatus: 'pending_confirmations' });

    const attestation = await attested(route, burn);
    const treasury = signer(1, devnet.treasury.privateKey);
    const receive = buildReceiveMessage(route, attestation);
    await sendTx(treasury, receive);
    const afterFirst = await balance(1, b.tokens.USDC.address, devnet.merchantPayout.address);
    await assert.rejects(treasury.call(receive), /Nonce already used/);
    // Sent anyway (no gas estimate to stop it), the destination contract reverts it on chain (hardhat's automine
    // reports the mined revert on submission).
    await assert.rejects(treasury.sendTransaction({ ...receive, gasLimit: 500_000n }), /reverted with reason string 'Nonce already used'/);
    assert.equal(await balance(1, b.tokens.USDC.address, devnet.merchantPayout.address), afterFirst);
  });

  it('a forged attestation (wrong signers) or a tampered message is refused', async function () {
    const route = cctpRoute('fast');
    const { burn } = await burnUsdc(route, 7_000_000n, devnet.merchantPayout.address);
    const attestation = await attested(route, burn);
    const treasury = signer(1, devnet.treasury.privateKey);
    const digest = keccak256(attestation.message);
    const forgers = [Wallet.createRandom(), Wallet.createRandom()].sort((x, y) => (BigInt(x.address) < BigInt(y.address) ? -1 : 1));
    const forged = concat(forgers.map((w) => w.signingKey.sign(digest).serialized));
    await assert.rejects(treasury.call(buildReceiveMessage(route, { message: attestation.message, attestation: forged })), /Invalid signature: not attester/);
    // The genuine signatures over a message whose amount was raised recover to non-attesters as well.
    const message = decodeCctpMessage(attestation.message);
    const body = decodeCctpBurnMessage(message.messageBody);
    const tampered = encodeCctpMessage({ ...message, messageBody: encodeCctpBurnMessage({ ...body, amount: body.amount * 100n }) });
    await assert.rejects(treasury.call(buildReceiveMessage(route, { message: tampered, attestation: attestation.attestation })), /Invalid signature: not attester/);
    // Signatures by the right attesters in the wrong order are refused too.
    const sigs = [attestation.attestation.slice(2, 132), attestation.attestation.slice(132)];
    await assert.rejects(treasury.call(buildReceiveMessage(route, { message: attestation.message, attestation: `0x${sigs[1]}${sigs[0]}` })), /Invalid signature order or dupe/);
    // The genuine attestation still mints.
    assert.equal(await isCctpNonceUsed(route, providers[1], attestation.nonce), false);
    await sendTx(treasury, buildReceiveMessage(route, attestation));
    assert.equal(await isCctpNonceUsed(route, providers[1], attestation.nonce), true);
  });

  it('sends USDT through the OFT from chain A to chain B (lock, mint) and back (burn, unlock), delivered by the relayer', async function () {
    const [a, b] = devnet.chains as [Devnet['chains'][0], Devnet['chains'][0]];
    const amount = 25_000_000n;
    const customer = signer(0, devnet.customer.privateKey);
    const merchantB = signer(1, devnet.merchantPayout.privateKey);
    const out = oftRoute(0);
    const before = { customerA: await balance(0, a.tokens.USDT.address, devnet.customer.address), lockedA: await balance(0, a.tokens.USDT.address, out.source.oft),
      merchantB: await balance(1, b.tokens.USDT.address, devnet.merchantPayout.address), supplyB: await supply(1, b.tokens.USDT.address) };

    assert.equal(await oftApprovalRequired(out, providers[0]), true);
    const quote = await quoteOftSend(out, providers[0], devnet.merchantPayout.address, amount);
    assert.equal(quote.amountReceivedLD, amount);
    assert.equal(quote.sendParam.minAmountLD, amount);
    assert.equal(quote.fee.nativeFee, 100n); // SimpleMessageLib's fee
    await sendTx(customer, buildOftApprove(out, amount));
    const fromBlockB = await providers[1].getBlockNumber();
    const sent = parseOftSentReceipt(out, await sendTx(customer, buildOftSend(out, quote, devnet.customer.address)));
    assert.equal(sent.dstEid, 30184);
    assert.equal(sent.amountReceivedLD, amount);
    const delivered = await until('OFT delivery on chain B', async () => {
      const d = await findOftDelivery(out, providers[1], sent.guid, fromBlockB);
      return d.delivered ? d : undefined;
    });
    assert.equal(delivered.toAddress, devnet.merchantPayout.address);
    assert.equal(delivered.amountReceivedLD, amount);
    assert.equal(await balance(0, a.tokens.USDT.address, devnet.customer.address), before.customerA - amount);
    assert.equal(await balance(0, a.tokens.USDT.address, out.source.oft), before.lockedA + amount);
    assert.equal(await balance(1, b.tokens.USDT.address, devnet.merchantPayout.address), before.merchantB + amount);
    assert.equal(await supply(1, b.tokens.USDT.address), before.supplyB + amount);

    // The way back asks the executor for lzReceive gas explicitly (mainnet USDT0 enforces its own options instead).
    const back = { ...oftRoute(1), extraOptions: lzReceiveOption(200_000n) };
    assert.equal(back.extraOptions, '0x00030100110100000000000000000000000000030d40');
    assert.equal(await oftApprovalRequired(back, providers[1]), false);
    const backQuote = await quoteOftSend(back, providers[1], devnet.customer.address, amount);
    const fromBlockA = await providers[0].getBlockNumber();
    const returned = parseOftSentReceipt(back, await sendTx(merchantB, buildOftSend(back, backQuote, devnet.merchantPayout.address)));
    await until('OFT delivery back on chain A', async () => ((await findOftDelivery(back, providers[0], returned.guid, fromBlockA)).delivered ? true : undefined));
    assert.equal(await balance(0, a.tokens.USDT.address, devnet.customer.address), before.customerA);
    assert.equal(await balance(0, a.tokens.USDT.address, out.source.oft), before.lockedA);
    assert.equal(await balance(1, b.tokens.USDT.address, devnet.merchantPayout.address), before.merchantB);
    assert.equal(await supply(1, b.tokens.USDT.address), before.supplyB);
  });
});
