import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { concat, Interface, JsonRpcProvider, keccak256, solidityPacked, Wallet } from 'ethers';
import {
  decodeCctpBurnMessage, decodeCctpMessage, encodeCctpBurnMessage, encodeCctpMessage, type CctpBurnMessage, type CctpMessage,
} from '../../../chains/bridges/cctp-message';
import { cctpFeeForAmount, MESSAGE_TRANSMITTER_V2_ABI } from '../../../chains/bridges/cctp';
import { bytes32ToAddress } from '../../../chains/bridges/tx';

// A local stand-in for Circle's Iris: watches MessageSent on the devnet chains, waits for the finality each
// message asked for, fills in what Iris fills in (nonce, finality executed, fee) and signs with the devnet attesters.

export interface AttestedChain {
  domain: number;
  rpcUrl: string;
  chainId: number;
  messageTransmitter: string;
  tokenMessenger: string;
}

export interface AttestationServiceOptions {
  chains: AttestedChain[];
  /** Private keys of the devnet attesters; signatures are ordered by signer address as MessageTransmitterV2 requires. */
  attesterKeys: string[];
  /** 0 (default) picks a free port; a restart keeps the port it got. */
  port?: number;
  /** Blocks (including the burn's) before a fast (threshold ≤ 1000) or standard message is attested. */
  fastConfirmations?: number;
  standardConfirmations?: number;
  /** Fee in basis points per threshold, as decimal strings like Iris's minimumFee. */
  fastFeeBps?: string;
  standardFeeBps?: string;
  pollIntervalMs?: number;
}

/** What the service attests for a burn: its message as Iris fills it in, and the burn body inside it. */
export interface AttestedContent {
  message: CctpMessage;
  body?: CctpBurnMessage;
}

export interface AttestationService {
  /** Base URL to configure as the CCTP client's Iris base URL. */
  readonly url: string;
  /**
   * Tests: while set, every message is answered as `rewrite` makes it, and signed by the attesters all the same: an
   * Iris that answers another message than the burn's (compromised, or impersonated). Undefined: the burn's own.
   */
  answerWith(rewrite: ((attested: AttestedContent) => AttestedContent) | undefined): void;
  /** Stops serving and watching (Iris is down); state is kept. */
  stop(): Promise<void>;
  /** Serves and watches again on the same port. */
  start(): Promise<void>;
  /** Stops for good and releases the RPC connections. */
  close(): Promise<void>;
}

interface SeenMessage {
  txHash: string;
  logIndex: number;
  blockNumber: number;
  message: CctpMessage;
}

const FAST_THRESHOLD = 1000;
const STANDARD_THRESHOLD = 2000;
const CCTP_VERSION = 2;

const transmitter = new Interface(MESSAGE_TRANSMITTER_V2_ABI);
const MESSAGE_SENT = transmitter.getEvent('MessageSent')?.topicHash ?? '';

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

class ChainWatcher {
  readonly provider: JsonRpcProvider;
  readonly byTx = new Map<string, SeenMessage[]>();
  head = -1;
  private scanned = -1;

  constructor(readonly chain: AttestedChain) {
    this.provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true, cacheTimeout: -1 });
  }

  async poll(): Promise<void> {
    const head = await this.provider.getBlockNumber();
    if (head > this.scanned) {
      const logs = await this.provider.getLogs({
        address: this.chain.messageTransmitter, topics: [MESSAGE_SENT], fromBlock: this.scanned + 1, toBlock: head,
      });
      for (const log of logs) {
        const [raw] = transmitter.decodeEventLog('MessageSent', log.data, log.topics) as unknown as [string];
        const key = log.transactionHash.toLowerCase();
        const list = this.byTx.get(key) ?? [];
        list.push({ txHash: log.transactionHash, logIndex: log.index, blockNumber: log.blockNumber, message: decodeCctpMessage(raw) });
        this.byTx.set(key, list);
      }
      this.scanned = head;
    }
    this.head = head;
  }
}

export async function startAttestationService(opts: AttestationServiceOptions): Promise<AttestationService> {
  const attesters = opts.attesterKeys.map((k) => new Wallet(k)).sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
  const fastConfirmations = opts.fastConfirmations ?? 1;
  const standardConfirmations = opts.standardConfirmations ?? 5;
  const feeBps = { [FAST_THRESHOLD]: opts.fastFeeBps ?? '1', [STANDARD_THRESHOLD]: opts.standardFeeBps ?? '0' };
  const pollIntervalMs = opts.pollIntervalMs ?? 200;
  const watchers = new Map(opts.chains.map((c) => [c.domain, new ChainWatcher(c)]));
  let rewrite: ((attested: AttestedContent) => AttestedContent) | undefined;

  /** What Iris would attest for `seen` now, or undefined while the message waits for its finality. */
  const attest = (watcher: ChainWatcher, seen: SeenMessage): { message: string; attestation: string; decoded: CctpMessage; body?: CctpBurnMessage } | undefined => {
    const confirmations = watcher.head - seen.blockNumber + 1;
    const isBurn = bytes32ToAddress(seen.message.sender).toLowerCase() === watcher.chain.tokenMessenger.toLowerCase();
    const burn = isBurn ? decodeCctpBurnMessage(seen.message.messageBody) : undefined;
    // A fast message is served fast only if its maxFee covers the fast fee; otherwise it waits for finality, as on Iris.
    const fastAffordable = burn === undefined || cctpFeeForAmount(burn.amount, feeBps[FAST_THRESHOLD]) <= burn.maxFee;
    const fast = seen.message.minFinalityThreshold <= FAST_THRESHOLD && fastAffordable;
    if (confirmations < (fast ? fastConfirmations : standardConfirmations)) return undefined;
    const executed = fast ? FAST_THRESHOLD : STANDARD_THRESHOLD;
    const fee = burn ? cctpFeeForAmount(burn.amount, feeBps[executed]) : 0n;
    const body = burn && { ...burn, feeExecuted: fee < burn.maxFee ? fee : burn.maxFee };
    // Derived from the burn itself, so a restarted service attests the same nonce and a burn can't be minted twice.
    const nonce = keccak256(solidityPacked(['uint32', 'bytes32', 'uint256'], [seen.message.sourceDomain, seen.txHash, seen.logIndex]));
    const own: AttestedContent = { message: { ...seen.message, nonce, finalityThresholdExecuted: executed }, body };
    const served = rewrite ? rewrite(own) : own;
    const decoded: CctpMessage = { ...served.message, messageBody: served.body ? encodeCctpBurnMessage(served.body) : served.message.messageBody };
    const message = encodeCctpMessage(decoded);
    const digest = keccak256(message);
    const attestation = concat(attesters.map((a) => a.signingKey.sign(digest).serialized));
    return { message, attestation, decoded, body: served.body };
  };

  const irisMessage = (watcher: ChainWatcher, seen: SeenMessage): unknown => {
    const done = attest(watcher, seen);
    if (!done) {
      return { message: '0x', eventNonce: '', attestation: 'PENDING', cctpVersion: CCTP_VERSION, status: 'pending_confirmations', decodedMessage: null, delayReason: null };
    }
    const { decoded, body } = done;
    return {
      message: done.message,
      eventNonce: decoded.nonce,
      attestation: done.attestation,
      cctpVersion: CCTP_VERSION,
      status: 'complete',
      decodedMessage: {
        sourceDomain: String(decoded.sourceDomain),
        destinationDomain: String(decoded.destinationDomain),
        nonce: decoded.nonce,
        sender: bytes32ToAddress(decoded.sender).toLowerCase(),
        recipient: bytes32ToAddress(decoded.recipient).toLowerCase(),
        destinationCaller: decoded.destinationCaller,
        minFinalityThreshold: String(decoded.minFinalityThreshold),
        finalityThresholdExecuted: String(decoded.finalityThresholdExecuted),
        messageBody: decoded.messageBody,
        decodedMessageBody: body && {
          burnToken: bytes32ToAddress(body.burnToken).toLowerCase(),
          mintRecipient: bytes32ToAddress(body.mintRecipient).toLowerCase(),
          amount: body.amount.toString(),
          messageSender: bytes32ToAddress(body.messageSender).toLowerCase(),
          maxFee: body.maxFee.toString(),
          feeExecuted: body.feeExecuted.toString(),
          expirationBlock: body.expirationBlock.toString(),
          hookData: body.hookData === '0x' ? null : body.hookData,
        },
      },
      delayReason: null,
    };
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const messages = /^\/v2\/messages\/(\d+)$/.exec(url.pathname);
    const fees = /^\/v2\/burn\/USDC\/fees\/(\d+)\/(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && messages) {
      const watcher = watchers.get(Number(messages[1]));
      const txHash = url.searchParams.get('transactionHash')?.toLowerCase();
      if (!watcher) return send(res, 400, { error: `Invalid source domain: ${messages[1]}` });
      if (!txHash) return send(res, 400, { error: 'transactionHash or nonce is required' });
      const seen = watcher.byTx.get(txHash);
      if (!seen) return send(res, 404, { error: 'Message not found' });
      return send(res, 200, { messages: seen.map((s) => irisMessage(watcher, s)) });
    }
    if (req.method === 'GET' && fees) {
      const [source, destination] = [Number(fees[1]), Number(fees[2])];
      if (!watchers.has(source) || !watchers.has(destination) || source === destination) {
        return send(res, 400, { error: `Unsupported route: ${source} -> ${destination}` });
      }
      return send(res, 200, [
        { finalityThreshold: FAST_THRESHOLD, minimumFee: Number(feeBps[FAST_THRESHOLD]) },
        { finalityThreshold: STANDARD_THRESHOLD, minimumFee: Number(feeBps[STANDARD_THRESHOLD]) },
      ]);
    }
    send(res, 404, { error: 'Not found' });
  };

  let server: Server | undefined;
  let timer: NodeJS.Timeout | undefined;
  let port = opts.port ?? 0;
  let running = false;
  // Each start gets a generation, so a poll still in flight from before a stop never schedules a second loop.
  let generation = 0;

  const loop = async (gen: number): Promise<void> => {
    for (const watcher of watchers.values()) {
      // A chain that is briefly unreachable is retried on the next tick, like Iris retrying its node.
      await watcher.poll().catch(() => undefined);
    }
    if (running && gen === generation) timer = setTimeout(() => void loop(gen), pollIntervalMs);
  };

  const start = async (): Promise<void> => {
    if (running) return;
    running = true;
    generation += 1;
    server = createServer(handle);
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => resolve());
    });
    port = (listening.address() as AddressInfo).port;
    await loop(generation);
  };

  const stop = async (): Promise<void> => {
    running = false;
    clearTimeout(timer);
    const closing = server;
    server = undefined;
    if (closing) {
      closing.closeAllConnections();
      await new Promise<void>((resolve) => closing.close(() => resolve()));
    }
  };

  await start();
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    answerWith(next) {
      rewrite = next;
    },
    stop,
    start,
    close: async () => {
      await stop();
      for (const watcher of watchers.values()) watcher.provider.destroy();
    },
  };
}

