import { concat, Interface, toBeHex, zeroPadValue, type Provider, type TransactionReceipt } from 'ethers';
import { addressToBytes32, type TxRequest } from './tx';

// LayerZero OFT client (USDT0 on mainnet): quote, send, and delivery check on the destination. It speaks to the
// OFT contract's standard interface only; who delivers the message (LayerZero's DVNs and executor, or a devnet
// relayer) is not its concern.

export interface OftChain {
  /** LayerZero v2 endpoint id. */
  eid: number;
  /** The OFT (or OFT adapter) contract that `send` is called on. */
  oft: string;
  /** The ERC-20 the OFT moves (USDT / USDT0). */
  token: string;
}

export interface OftRoute {
  source: OftChain;
  destination: OftChain;
  /** Executor options; empty when the OFT enforces its own (USDT0 does). See lzReceiveOption. */
  extraOptions?: string;
}

export interface SendParam {
  dstEid: number;
  to: string;
  amountLD: bigint;
  minAmountLD: bigint;
  extraOptions: string;
  composeMsg: string;
  oftCmd: string;
}

export interface MessagingFee {
  nativeFee: bigint;
  lzTokenFee: bigint;
}

const SEND_PARAM = 'tuple(uint32 dstEid, bytes32 to, uint256 amountLD, uint256 minAmountLD, bytes extraOptions, bytes composeMsg, bytes oftCmd)';
export const OFT_ABI = [
  `function quoteOFT(${SEND_PARAM} sendParam) view returns (tuple(uint256 minAmountLD, uint256 maxAmountLD), tuple(int256 feeAmountLD, string description)[], tuple(uint256 amountSentLD, uint256 amountReceivedLD))`,
  `function quoteSend(${SEND_PARAM} sendParam, bool payInLzToken) view returns (tuple(uint256 nativeFee, uint256 lzTokenFee))`,
  `function send(${SEND_PARAM} sendParam, tuple(uint256 nativeFee, uint256 lzTokenFee) fee, address refundAddress) payable returns (tuple(bytes32 guid, uint64 nonce, tuple(uint256 nativeFee, uint256 lzTokenFee) fee), tuple(uint256 amountSentLD, uint256 amountReceivedLD))`,
  'function approvalRequired() view returns (bool)',
  'event OFTSent(bytes32 indexed guid, uint32 dstEid, address indexed fromAddress, uint256 amountSentLD, uint256 amountReceivedLD)',
  'event OFTReceived(bytes32 indexed guid, uint32 srcEid, address indexed toAddress, uint256 amountReceivedLD)',
];
const ERC20_ABI = ['function approve(address spender, uint256 amount) returns (bool)'];

const oft = new Interface(OFT_ABI);
const erc20 = new Interface(ERC20_ABI);

const OPTIONS_TYPE_3 = '0x0003';
const EXECUTOR_WORKER_ID = 1;
const OPTION_TYPE_LZRECEIVE = 1;

/** A type-3 executor option asking for `gas` on the destination's lzReceive. */
export function lzReceiveOption(gas: bigint): string {
  const gasBytes = zeroPadValue(toBeHex(gas), 16);
  const option = concat([toBeHex(OPTION_TYPE_LZRECEIVE, 1), gasBytes]);
  return concat([OPTIONS_TYPE_3, toBeHex(EXECUTOR_WORKER_ID, 1), toBeHex(17, 2), option]);
}

async function view(provider: Provider, to: string, fn: string, args: unknown[]): Promise<ReturnType<Interface['decodeFunctionResult']>> {
  return oft.decodeFunctionResult(fn, await provider.call({ to, data: oft.encodeFunctionData(fn, args) }));
}

const toTuple = (p: SendParam): unknown[] => [p.dstEid, p.to, p.amountLD, p.minAmountLD, p.extraOptions, p.composeMsg, p.oftCmd];

export interface OftQuote {
  sendParam: SendParam;
  fee: MessagingFee;
  amountSentLD: bigint;
  amountReceivedLD: bigint;
}

/**
 * quoteOFT then quoteSend for `amount` to `recipient`: minAmountLD is what the OFT says will arrive (dust removal
 * and any OFT fee), so the send reverts rather than deliver less than quoted.
 */
export async function quoteOftSend(route: OftRoute, source: Provider, recipient: string, amount: bigint): Promise<OftQuote> {
  const draft: SendParam = {
    dstEid: route.destination.eid,
    to: addressToBytes32(recipient),
    amountLD: amount,
    minAmountLD: 0n,
    extraOptions: route.extraOptions ?? '0x',
    composeMsg: '0x',
    oftCmd: '0x',
  };
  const [, , receipt] = await view(source, route.source.oft, 'quoteOFT', [toTuple(draft)]);
  const { amountSentLD, amountReceivedLD } = receipt as { amountSentLD: bigint; amountReceivedLD: bigint };
  const sendParam = { ...draft, minAmountLD: amountReceivedLD };
  const [fee] = await view(source, route.source.oft, 'quoteSend', [toTuple(sendParam), false]);
  const { nativeFee, lzTokenFee } = fee as { nativeFee: bigint; lzTokenFee: bigint };
  return { sendParam, fee: { nativeFee, lzTokenFee }, amountSentLD, amountReceivedLD };
}

/** Lock/unlock adapters (USDT0 on Ethereum) pull the token and need an approval; mint/burn OFTs don't. */
export async function oftApprovalRequired(route: OftRoute, source: Provider): Promise<boolean> {
  const [required] = await view(source, route.source.oft, 'approvalRequired', []);
  return Boolean(required);
}

export function buildOftApprove(route: OftRoute, amount: bigint): TxRequest {
  return { to: route.source.token, data: erc20.encodeFunctionData('approve', [route.source.oft, amount]), value: 0n };
}

/** OFT.send paying the quoted native fee; any excess the endpoint doesn't use goes back to refundAddress. */
export function buildOftSend(route: OftRoute, quote: Pick<OftQuote, 'sendParam' | 'fee'>, refundAddress: string): TxRequest {
  const data = oft.encodeFunctionData('send', [toTuple(quote.sendParam), [quote.fee.nativeFee, quote.fee.lzTokenFee], refundAddress]);
  return { to: route.source.oft, data, value: quote.fee.nativeFee };
}

export interface OftSent {
  guid: string;
  dstEid: number;
  fromAddress: string;
  amountSentLD: bigint;
  amountReceivedLD: bigint;
}

/** The OFTSent of a send receipt; its guid identifies the transfer on the destination. */
export function parseOftSentReceipt(route: OftRoute, receipt: Pick<TransactionReceipt, 'logs'>): OftSent {
  const topic = oft.getEvent('OFTSent')?.topicHash;
  const log = receipt.logs.find((l) => l.address.toLowerCase() === route.source.oft.toLowerCase() && l.topics[0] === topic);
  if (!log) throw new Error('receipt has no OFTSent from the route\'s OFT');
  const e = oft.decodeEventLog('OFTSent', log.data, log.topics);
  return {
    guid: String(e[0]), dstEid: Number(e[1]), fromAddress: String(e[2]),
    amountSentLD: BigInt(e[3] as bigint), amountReceivedLD: BigInt(e[4] as bigint),
  };
}

export type OftDelivery =
  | { delivered: false }
  | { delivered: true; txHash: string; blockNumber: number; toAddress: string; amountReceivedLD: bigint };

/** OFTReceived for the guid on the destination OFT since `fromBlock` (a block from before the send). */
export async function findOftDelivery(route: OftRoute, destination: Provider, guid: string, fromBlock: number): Promise<OftDelivery> {
  const event = oft.getEvent('OFTReceived');
  if (!event) throw new Error('OFT ABI lacks OFTReceived');
  const logs = await destination.getLogs({ address: route.destination.oft, topics: [event.topicHash, guid], fromBlock, toBlock: 'latest' });
  const log = logs[0];
  if (!log) return { delivered: false };
  const e = oft.decodeEventLog(event, log.data, log.topics);
  return { delivered: true, txHash: log.transactionHash, blockNumber: log.blockNumber, toAddress: String(e[2]), amountReceivedLD: BigInt(e[3] as bigint) };
}
