import { Contract, ContractFactory, HDNodeWallet, JsonRpcProvider, keccak256, toUtf8Bytes, Wallet } from 'ethers';
import { mainnetBridgeChain } from '../../../chains/bridges/mainnet';
import { addressToBytes32 } from '../../../chains/bridges/tx';
import { startAttestationService, type AttestationService, type AttestationServiceOptions } from './attestation-service';
import { compileBridgeContracts, type BridgeContractName } from './compile';
import { startLzRelayer, type LzRelayer } from './relayer';

export interface DevnetBridgeChainInput {
  chainId: number;
  rpcUrl: string;
  /** The devnet's TestStablecoin USDC and USDT on this chain (owned by the treasury). */
  usdc: string;
  usdt: string;
}

export interface DeployDevnetBridgesOptions {
  /** Two chains; the first is USDT's home chain, where the OFT adapter locks (as USDT0 does on Ethereum). */
  chains: [DevnetBridgeChainInput, DevnetBridgeChainInput];
  /** Owns every contract and the devnet tokens. */
  treasuryKey: string;
  /** Pays the relayer's gas; defaults to hardhat account #9. Must not be the treasury: its nonces belong to the outbox. */
  relayerKey?: string;
  /** Defaults to two fixed devnet attesters, both required (threshold 2). */
  attesterKeys?: string[];
  attestation?: Pick<AttestationServiceOptions, 'port' | 'fastConfirmations' | 'standardConfirmations' | 'fastFeeBps' | 'standardFeeBps' | 'pollIntervalMs'>;
  relayerConfirmations?: number;
}

export interface DevnetCctpChain {
  chainId: number;
  domain: number;
  tokenMessenger: string;
  messageTransmitter: string;
  tokenMinter: string;
  usdc: string;
}

export interface DevnetOftChain {
  chainId: number;
  eid: number;
  endpoint: string;
  messageLib: string;
  /** Contract to call `send` on. */
  oft: string;
  token: string;
  kind: 'lock' | 'mint-burn';
}

export interface DevnetBridges {
  cctp: { chains: [DevnetCctpChain, DevnetCctpChain]; irisUrl: string; attesters: string[]; signatureThreshold: number };
  oft: { chains: [DevnetOftChain, DevnetOftChain] };
  attestationService: AttestationService;
  relayer: LzRelayer;
  /** Stops the attestation service and the relayer for good. */
  stop(): Promise<void>;
}

const HARDHAT_MNEMONIC = 'test test test test test test test test test test test junk';
const DEFAULT_RELAYER_KEY = HDNodeWallet.fromPhrase(HARDHAT_MNEMONIC, undefined, "m/44'/60'/0'/0/9").privateKey;
const DEFAULT_ATTESTER_KEYS = [0, 1].map((i) => keccak256(toUtf8Bytes(`payrail devnet cctp attester ${i}`)));
const CCTP_VERSION = 1;
const MAX_MESSAGE_BODY_SIZE = 8192n;
const USDC_BURN_LIMIT_PER_MESSAGE = 1_000_000_000_000n; // 1M USDC
const TEST_STABLECOIN_ABI = [
  'function setBridge(address)', 'function mint(address to, uint256 amount)', 'function totalSupply() view returns (uint256)',
];

/** Deploys, in order, from the treasury with explicit nonces, so a fresh devnet always gets the same addresses. */
class Deployer {
  readonly provider: JsonRpcProvider;
  private readonly signer: Wallet;
  private nonce = -1;

  constructor(readonly chain: DevnetBridgeChainInput, treasuryKey: string, private readonly compiled: ReturnType<typeof compileBridgeContracts>) {
    this.provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true, cacheTimeout: -1 });
    this.signer = new Wallet(treasuryKey, this.provider);
  }

  get treasury(): string {
    return this.signer.address;
  }

  private async nextNonce(): Promise<number> {
    if (this.nonce < 0) this.nonce = await this.provider.getTransactionCount(this.signer.address, 'pending');
    return this.nonce++;
  }

  async deploy(name: BridgeContractName, ...args: unknown[]): Promise<string> {
    const { abi, bytecode } = this.compiled[name];
    const contract = await new ContractFactory(abi, bytecode, this.signer).deploy(...args, { nonce: await this.nextNonce() });
    await contract.deploymentTransaction()?.wait();
    return contract.getAddress();
  }

  async call(abi: string[] | BridgeContractName, address: string, method: string, ...args: unknown[]): Promise<void> {
    const iface = typeof abi === 'string' ? this.compiled[abi].abi : abi;
    const fn = new Contract(address, iface, this.signer).getFunction(method);
    const receipt = await (await fn.send(...args, { nonce: await this.nextNonce() })).wait();
    if (receipt?.status !== 1) throw new Error(`${method} on ${address} reverted`);
  }

  async read(address: string, method: string): Promise<unknown> {
    return new Contract(address, TEST_STABLECOIN_ABI, this.provider).getFunction(method).staticCall();
  }
}

/**
 * Deploys CCTP v2 (our contracts) for USDC and LayerZero v2 (EndpointV2, SimpleMessageLib and OFT adapters from npm)
 * for USDT on two devnet chains, hands the tokens' mint/burn rights to the bridges, and starts the local Iris
 * stand-in and the LayerZero relayer. Chains with a mainnet CCTP domain / LayerZero eid get the same numbers here.
 */
export async function deployDevnetBridges(opts: DeployDevnetBridgesOptions): Promise<DevnetBridges> {
  const compiled = compileBridgeContracts();
  const attesterKeys = opts.attesterKeys ?? DEFAULT_ATTESTER_KEYS;
  const attesters = attesterKeys.map((k) => new Wallet(k).address);
  const deployers = opts.chains.map((c) => new Deployer(c, opts.treasuryKey, compiled)) as [Deployer, Deployer];
  const relayerAddress = new Wallet(opts.relayerKey ?? DEFAULT_RELAYER_KEY).address;
  const ids = opts.chains.map((c, i) => {
    const known = mainnetBridgeChain(c.chainId);
    return { domain: known?.cctp?.domain ?? 100 + i, eid: known?.lzEid ?? 40_000 + i };
  });

  try {
    // CCTP: transmitter, messenger and minter per chain; the minter holds USDC's mint/burn rights.
    const cctp = await Promise.all(deployers.map(async (d, i) => {
      const { domain } = ids[i] ?? { domain: 0 };
      const messageTransmitter = await d.deploy('MessageTransmitterV2', domain, CCTP_VERSION);
      const tokenMessenger = await d.deploy('TokenMessengerV2', messageTransmitter, CCTP_VERSION);
      const tokenMinter = await d.deploy('TokenMinterV2', d.treasury);
      await d.call('MessageTransmitterV2', messageTransmitter, 'initialize', d.treasury, d.treasury, d.treasury, d.treasury, attesters, attesters.length, MAX_MESSAGE_BODY_SIZE);
      await d.call('TokenMinterV2', tokenMinter, 'addLocalTokenMessenger', tokenMessenger);
      await d.call('TokenMinterV2', tokenMinter, 'setMaxBurnAmountPerMessage', d.chain.usdc, USDC_BURN_LIMIT_PER_MESSAGE);
      await d.call(TEST_STABLECOIN_ABI, d.chain.usdc, 'setBridge', tokenMinter);
      return { chainId: d.chain.chainId, domain, tokenMessenger, messageTransmitter, tokenMinter, usdc: d.chain.usdc };
    })) as [DevnetCctpChain, DevnetCctpChain];
    await Promise.all(deployers.map(async (d, i) => {
      const local = cctp[i] as DevnetCctpChain;
      const remote = cctp[1 - i] as DevnetCctpChain;
      await d.call('TokenMessengerV2', local.tokenMessenger, 'initialize', d.treasury, d.treasury, d.treasury, d.treasury, local.tokenMinter, [remote.domain], [addressToBytes32(remote.tokenMessenger)]);
      await d.call('TokenMinterV2', local.tokenMinter, 'linkTokenPair', local.usdc, remote.domain, addressToBytes32(remote.usdc));
    }));

    // LayerZero: real EndpointV2 with SimpleMessageLib as send and receive library, only our relayer may verify.
    const remoteEid = (i: number): number => (ids[1 - i] ?? { eid: 0 }).eid;
    const oft = await Promise.all(deployers.map(async (d, i) => {
      const { eid } = ids[i] ?? { eid: 0 };
      const endpoint = await d.deploy('EndpointV2', eid, d.treasury);
      const messageLib = await d.deploy('SimpleMessageLib', endpoint, d.treasury);
      await d.call('SimpleMessageLib', messageLib, 'setWhitelistCaller', relayerAddress);
      await d.call('EndpointV2', endpoint, 'registerLibrary', messageLib);
      await d.call('EndpointV2', endpoint, 'setDefaultSendLibrary', remoteEid(i), messageLib);
      await d.call('EndpointV2', endpoint, 'setDefaultReceiveLibrary', remoteEid(i), messageLib, 0);
      let oftAddress: string;
      if (i === 0) {
        oftAddress = await d.deploy('DevnetLockOFTAdapter', d.chain.usdt, endpoint, d.treasury);
      } else {
        const minterBurner = await d.deploy('DevnetOFTMinterBurner', d.chain.usdt, d.treasury);
        oftAddress = await d.deploy('DevnetMintBurnOFTAdapter', d.chain.usdt, minterBurner, endpoint, d.treasury);
        await d.call('DevnetOFTMinterBurner', minterBurner, 'setOperator', oftAddress);
        await d.call(TEST_STABLECOIN_ABI, d.chain.usdt, 'setBridge', minterBurner);
      }
      const kind: DevnetOftChain['kind'] = i === 0 ? 'lock' : 'mint-burn';
      return { chainId: d.chain.chainId, eid, endpoint, messageLib, oft: oftAddress, token: d.chain.usdt, kind };
    })) as [DevnetOftChain, DevnetOftChain];
    await Promise.all(deployers.map((d, i) => d.call('DevnetLockOFTAdapter', oft[i]?.oft ?? '', 'setPeer', remoteEid(i), addressToBytes32(oft[1 - i]?.oft ?? ''))));
    // The other chain's USDT already has a supply; lock as much on the home chain so it can all come back, as
    // USDT0's adapter on Ethereum backs every USDT0 minted elsewhere.
    const otherSupply = (await deployers[1].read(opts.chains[1].usdt, 'totalSupply')) as bigint;
    await deployers[0].call(TEST_STABLECOIN_ABI, opts.chains[0].usdt, 'mint', oft[0].oft, otherSupply);

    const attestationService = await startAttestationService({
      ...opts.attestation,
      attesterKeys,
      chains: cctp.map((c, i) => ({ ...c, rpcUrl: opts.chains[i]?.rpcUrl ?? '' })),
    });
    const relayer = startLzRelayer({
      relayerKey: opts.relayerKey ?? DEFAULT_RELAYER_KEY,
      confirmations: opts.relayerConfirmations,
      chains: oft.map((o, i) => ({ eid: o.eid, chainId: o.chainId, rpcUrl: opts.chains[i]?.rpcUrl ?? '', endpoint: o.endpoint, messageLib: o.messageLib })),
    });
    return {
      cctp: { chains: cctp, irisUrl: attestationService.url, attesters, signatureThreshold: attesters.length },
      oft: { chains: oft },
      attestationService,
      relayer,
      stop: async () => {
        await Promise.all([attestationService.close(), relayer.close()]);
      },
    };
  } finally {
    for (const d of deployers) d.provider.destroy();
  }
}
