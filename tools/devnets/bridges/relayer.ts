import { dataSlice, Interface, JsonRpcProvider, Wallet } from 'ethers';

// Devnet delivery for LayerZero v2 between two separate hardhat nodes: watches PacketSent on each EndpointV2 and,
// in the roles a DVN and an executor play on mainnet, verifies the packet on the destination through
// SimpleMessageLib.validatePacket (the library's own validation path) and executes it with EndpointV2.lzReceive.

export interface RelayedChain {
  eid: number;
  chainId: number;
  rpcUrl: string;
  endpoint: string;
  /** SimpleMessageLib registered as the endpoint's send and receive library. */
  messageLib: string;
}

export interface LzRelayerOptions {
  chains: RelayedChain[];
  /** Key the relayer pays gas with; SimpleMessageLib only accepts packets from it. Never the treasury's key. */
  relayerKey: string;
  /** Blocks on the source (including the packet's) before delivery, as DVNs wait for confirmations. */
  confirmations?: number;
  pollIntervalMs?: number;
}

export interface LzRelayer {
  stop(): Promise<void>;
  start(): void;
  /** Stops for good and releases the RPC connections. */
  close(): Promise<void>;
}

const endpointAbi = new Interface([
  'event PacketSent(bytes encodedPayload, bytes options, address sendLibrary)',
  'function inboundPayloadHash(address receiver, uint32 srcEid, bytes32 sender, uint64 nonce) view returns (bytes32)',
  'function lazyInboundNonce(address receiver, uint32 srcEid, bytes32 sender) view returns (uint64)',
  'function lzReceive(tuple(uint32 srcEid, bytes32 sender, uint64 nonce) origin, address receiver, bytes32 guid, bytes message, bytes extraData) payable',
]);
const messageLibAbi = new Interface(['function validatePacket(bytes packetBytes)']);
const PACKET_SENT = endpointAbi.getEvent('PacketSent')?.topicHash ?? '';

/** PacketV1Codec header: version(1) nonce(8) srcEid(4) sender(32) dstEid(4) receiver(32) guid(32) message. */
interface Packet {
  raw: string;
  nonce: bigint;
  srcEid: number;
  sender: string;
  dstEid: number;
  receiver: string;
  guid: string;
  message: string;
  blockNumber: number;
}

function decodePacket(raw: string, blockNumber: number): Packet {
  return {
    raw,
    nonce: BigInt(dataSlice(raw, 1, 9)),
    srcEid: Number(BigInt(dataSlice(raw, 9, 13))),
    sender: dataSlice(raw, 13, 45),
    dstEid: Number(BigInt(dataSlice(raw, 45, 49))),
    receiver: `0x${dataSlice(raw, 49, 81).slice(26)}`,
    guid: dataSlice(raw, 81, 113),
    message: dataSlice(raw, 113),
    blockNumber,
  };
}

const ZERO_HASH = `0x${'0'.repeat(64)}`;

class RelayedNode {
  readonly provider: JsonRpcProvider;
  readonly signer: Wallet;
  scanned = -1;

  constructor(readonly chain: RelayedChain, relayerKey: string) {
    this.provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true, cacheTimeout: -1 });
    this.signer = new Wallet(relayerKey, this.provider);
  }

  async call(to: string, data: string): Promise<string> {
    return this.provider.call({ to, data });
  }

  async send(to: string, data: string): Promise<void> {
    const receipt = await (await this.signer.sendTransaction({ to, data })).wait();
    if (receipt?.status !== 1) throw new Error(`relayer transaction to ${to} reverted`);
  }
}

export function startLzRelayer(opts: LzRelayerOptions): LzRelayer {
  const nodes = new Map(opts.chains.map((c) => [c.eid, new RelayedNode(c, opts.relayerKey)]));
  const confirmations = opts.confirmations ?? 1;
  const pollIntervalMs = opts.pollIntervalMs ?? 200;
  const pending: Packet[] = [];
  let running = false;
  let generation = 0;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const scan = async (node: RelayedNode): Promise<void> => {
    const head = await node.provider.getBlockNumber();
    if (head <= node.scanned) return;
    const logs = await node.provider.getLogs({ address: node.chain.endpoint, topics: [PACKET_SENT], fromBlock: node.scanned + 1, toBlock: head });
    for (const log of logs) {
      const [raw] = endpointAbi.decodeEventLog('PacketSent', log.data, log.topics) as unknown as [string];
      pending.push(decodePacket(raw, log.blockNumber));
    }
    node.scanned = head;
  };

  /** Verifies (unless already verified) and executes one packet; true once it is delivered. */
  const deliver = async (packet: Packet): Promise<boolean> => {
    const source = nodes.get(packet.srcEid);
    const destination = nodes.get(packet.dstEid);
    if (!source || !destination) return true; // Not a route this devnet serves; nothing will ever deliver it.
    if ((await source.provider.getBlockNumber()) - packet.blockNumber + 1 < confirmations) return false;
    const { endpoint, messageLib } = destination.chain;
    const channel = [packet.receiver, packet.srcEid, packet.sender];
    const [hash] = endpointAbi.decodeFunctionResult('inboundPayloadHash', await destination.call(endpoint, endpointAbi.encodeFunctionData('inboundPayloadHash', [...channel, packet.nonce])));
    if (hash === ZERO_HASH) {
      const [lazyNonce] = endpointAbi.decodeFunctionResult('lazyInboundNonce', await destination.call(endpoint, endpointAbi.encodeFunctionData('lazyInboundNonce', channel)));
      // Executed packets have their payload hash cleared and sit at or below the lazy inbound nonce.
      if (BigInt(lazyNonce as bigint) >= packet.nonce) return true;
      await destination.send(messageLib, messageLibAbi.encodeFunctionData('validatePacket', [packet.raw]));
    }
    const origin = [packet.srcEid, packet.sender, packet.nonce];
    await destination.send(endpoint, endpointAbi.encodeFunctionData('lzReceive', [origin, packet.receiver, packet.guid, packet.message, '0x']));
    return true;
  };

  const tick = (gen: number): void => {
    inFlight = relay(gen);
  };
  const relay = async (gen: number): Promise<void> => {
    for (const node of nodes.values()) await scan(node).catch(() => undefined);
    // In order per channel: a packet that can't be delivered yet (or reverts) is retried on the next tick.
    for (let i = 0; i < pending.length; ) {
      const packet = pending[i];
      const done = packet !== undefined && (await deliver(packet).catch(() => false));
      if (done) pending.splice(i, 1);
      else i += 1;
    }
    if (running && gen === generation) timer = setTimeout(() => tick(gen), pollIntervalMs);
  };

  const start = (): void => {
    if (running) return;
    running = true;
    generation += 1;
    tick(generation);
  };
  /** Resolves once no delivery is under way. */
  const stop = async (): Promise<void> => {
    running = false;
    clearTimeout(timer);
    await inFlight;
  };
  start();
  return {
    start,
    stop,
    close: async () => {
      await stop();
      for (const node of nodes.values()) node.provider.destroy();
    },
  };
}
