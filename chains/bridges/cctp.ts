import { Interface, type Provider, type TransactionReceipt } from 'ethers';
import type { GetJson } from '../../lib/http-client';
import { decodeCctpBurnMessage, decodeCctpMessage, type CctpBurnMessage, type CctpMessage } from './cctp-message';
import { addressToBytes32, type TxRequest } from './tx';

// Circle CCTP v2 client: fee quote and attestation from Iris (through the vetted HTTP client the caller hands in),
// calls on TokenMessengerV2 and MessageTransmitterV2, and the check of Iris's message against our own burn. It knows
// nothing of any devnet: everything comes from CctpRoute / the Iris base URL.

export type CctpFinality = 'fast' | 'standard';
/** minFinalityThreshold values of CCTP v2: 1000 = confirmed (Fast Transfer), 2000 = finalized (Standard Transfer). */
export const CCTP_FINALITY_THRESHOLD: Record<CctpFinality, number> = { fast: 1000, standard: 2000 };

export interface CctpChain {
  domain: number;
  tokenMessenger: string;
  messageTransmitter: string;
  usdc: string;
}

export interface CctpRoute {
  source: CctpChain;
  destination: CctpChain;
  /** Iris base URL: https://iris-api.circle.com (mainnet), https://iris-api-sandbox.circle.com (testnet), or a stand-in. */
  irisBaseUrl: string;
  finality: CctpFinality;
}

const BPS_DENOMINATOR = 10_000n;
/** Head room over the quoted fee, as Circle's own Bridge Kit adds (10%), so a small fee rise doesn't slow the transfer. */
const DEFAULT_MAX_FEE_BUFFER_BPS = 1_000n;

export const TOKEN_MESSENGER_V2_ABI = [
  'function depositForBurn(uint256 amount, uint32 destinationDomain, bytes32 mintRecipient, address burnToken, bytes32 destinationCaller, uint256 maxFee, uint32 minFinalityThreshold)',
  'event DepositForBurn(address indexed burnToken, uint256 amount, address indexed depositor, bytes32 mintRecipient, uint32 destinationDomain, bytes32 destinationTokenMessenger, bytes32 destinationCaller, uint256 maxFee, uint32 indexed minFinalityThreshold, bytes hookData)',
  'event MintAndWithdraw(address indexed mintRecipient, uint256 amount, address indexed mintToken, uint256 feeCollected)',
];
export const MESSAGE_TRANSMITTER_V2_ABI = [
  'function receiveMessage(bytes message, bytes attestation) returns (bool success)',
  'function usedNonces(bytes32) view returns (uint256)',
  'event MessageSent(bytes message)',
  'event MessageReceived(address indexed caller, uint32 sourceDomain, bytes32 indexed nonce, bytes32 sender, uint32 indexed finalityThresholdExecuted, bytes messageBody)',
];
const ERC20_ABI = ['function approve(address spender, uint256 amount) returns (bool)'];

const tokenMessenger = new Interface(TOKEN_MESSENGER_V2_ABI);
const messageTransmitter = new Interface(MESSAGE_TRANSMITTER_V2_ABI);
const erc20 = new Interface(ERC20_ABI);

const irisGet = (irisBaseUrl: string, path: string, get: GetJson) => get(`${irisBaseUrl.replace(/\/$/, '')}${path}`);

/** Exact basis points from Iris's minimumFee ("1.3", 1, …) as numerator/denominator, never a float. */
function parseBps(value: unknown): { num: bigint; den: bigint } {
  const text = String(value);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`Iris returned an unreadable minimumFee: ${text}`);
  const fraction = match[2] ?? '';
  return { num: BigInt(`${match[1]}${fraction}`), den: 10n ** BigInt(fraction.length) };
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** The fee on `amount` at `minimumFeeBps` basis points (Iris's minimumFee, possibly fractional), rounded up. */
export function cctpFeeForAmount(amount: bigint, minimumFeeBps: unknown): bigint {
  const bps = parseBps(minimumFeeBps);
  return ceilDiv(amount * bps.num, bps.den * BPS_DENOMINATOR);
}

export interface CctpFeeQuote {
  finalityThreshold: number;
  /** Iris's minimumFee for that threshold, in basis points of the amount, as Iris sent it. */
  minimumFeeBps: string;
  /** The fee the attester would deduct now, in USDC base units. */
  fee: bigint;
  /** What to pass as maxFee: the fee plus head room, always below the amount. */
  maxFee: bigint;
}

/** GET /v2/burn/USDC/fees/{source}/{destination}: the fee for this amount at the route's finality. */
export async function quoteCctpFee(route: CctpRoute, amount: bigint, opts: { get: GetJson; maxFeeBufferBps?: bigint }): Promise<CctpFeeQuote> {
  const threshold = CCTP_FINALITY_THRESHOLD[route.finality];
  const { status, body } = await irisGet(route.irisBaseUrl, `/v2/burn/USDC/fees/${route.source.domain}/${route.destination.domain}`, opts.get);
  if (status !== 200 || !Array.isArray(body)) throw new Error(`Iris fee quote failed with HTTP ${status}`);
  const tier = (body as { finalityThreshold?: unknown; minimumFee?: unknown }[]).find((t) => t.finalityThreshold === threshold);
  if (!tier) throw new Error(`Iris quoted no fee for finality threshold ${threshold}`);
  const fee = cctpFeeForAmount(amount, tier.minimumFee);
  const maxFee = fee + ceilDiv(fee * (opts.maxFeeBufferBps ?? DEFAULT_MAX_FEE_BUFFER_BPS), BPS_DENOMINATOR);
  if (maxFee >= amount) throw new Error(`CCTP fee ${maxFee} is not below the amount ${amount}`);
  return { finalityThreshold: threshold, minimumFeeBps: String(tier.minimumFee), fee, maxFee };
}

/** USDC approval for TokenMessengerV2, which pulls the amount in depositForBurn. */
export function buildCctpApprove(route: CctpRoute, amount: bigint): TxRequest {
  return { to: route.source.usdc, data: erc20.encodeFunctionData('approve', [route.source.tokenMessenger, amount]), value: 0n };
}

export interface CctpBurnParams {
  amount: bigint;
  /** Who receives the USDC on the destination: the destination treasury, or the merchant's payout address directly. */
  mintRecipient: string;
  maxFee: bigint;
  /** Only this address may call receiveMessage on the destination; omit to let anyone relay. */
  destinationCaller?: string;
}

export function buildDepositForBurn(route: CctpRoute, p: CctpBurnParams): TxRequest {
  const destinationCaller = p.destinationCaller === undefined ? `0x${'0'.repeat(64)}` : addressToBytes32(p.destinationCaller);
  const data = tokenMessenger.encodeFunctionData('depositForBurn', [
    p.amount, route.destination.domain, addressToBytes32(p.mintRecipient), route.source.usdc, destinationCaller, p.maxFee,
    CCTP_FINALITY_THRESHOLD[route.finality],
  ]);
  return { to: route.source.tokenMessenger, data, value: 0n };
}

export interface CctpBurn {
  txHash: string;
  /** Position among the transaction's CCTP messages, which is also Iris's order for it. */
  messageIndex: number;
  /** The message as emitted: Iris's attested copy adds the nonce, the finality executed and the fee. */
  message: CctpMessage;
  body: CctpBurnMessage;
}

/** The CCTP burns in a depositForBurn receipt (MessageSent logs of the route's MessageTransmitterV2). */
export function parseCctpBurnReceipt(route: CctpRoute, receipt: Pick<TransactionReceipt, 'hash' | 'logs'>): CctpBurn[] {
  const topic = messageTransmitter.getEvent('MessageSent')?.topicHash;
  const transmitter = route.source.messageTransmitter.toLowerCase();
  return receipt.logs
    .filter((log) => log.address.toLowerCase() === transmitter && log.topics[0] === topic)
    .map((log, messageIndex) => {
      const [raw] = messageTransmitter.decodeEventLog('MessageSent', log.data, log.topics) as unknown as [string];
      const message = decodeCctpMessage(raw);
      return { txHash: receipt.hash, messageIndex, message, body: decodeCctpBurnMessage(message.messageBody) };
    });
}

export type CctpAttestation =
  | { status: 'pending'; irisStatus: string | undefined }
  | { status: 'complete'; message: string; attestation: string; nonce: string };

interface IrisMessage {
  message?: string;
  attestation?: string;
  eventNonce?: string;
  status?: string;
}

/**
 * GET /v2/messages/{sourceDomain}?transactionHash=…: the attestation of the burn's message, or pending while Iris
 * has not seen the burn (404) or waits for the finality the message asked for. HTTP and network failures throw, so
 * the caller's retry policy decides how long Iris may be away.
 */
export async function fetchCctpAttestation(route: CctpRoute, burn: Pick<CctpBurn, 'txHash' | 'messageIndex'>, opts: { get: GetJson }): Promise<CctpAttestation> {
  const { status, body } = await irisGet(route.irisBaseUrl, `/v2/messages/${route.source.domain}?transactionHash=${burn.txHash}`, opts.get);
  if (status === 404) return { status: 'pending', irisStatus: undefined };
  if (status !== 200) throw new Error(`Iris attestation lookup failed with HTTP ${status}`);
  const entry = (body as { messages?: IrisMessage[] } | undefined)?.messages?.[burn.messageIndex];
  if (!entry) return { status: 'pending', irisStatus: undefined };
  if (entry.status !== 'complete') return { status: 'pending', irisStatus: entry.status };
  const { message, attestation, eventNonce } = entry;
  if (!message || !attestation || !eventNonce) throw new Error('Iris marked a message complete without message, attestation or nonce');
  return { status: 'complete', message, attestation, nonce: eventNonce };
}

/** Iris answered, for one of our burns, a message that is not that burn's: it is never minted. */
export class CctpMessageMismatch extends Error {}

/**
 * How Iris's attested message differs from the message our burn emitted (read from the source chain): every field the
 * burn fixed must be the same (version, domains, sender and recipient TokenMessengers, destination caller, finality
 * asked; the body's burn token, mint recipient, amount, message sender, max fee, hook data); of what Iris fills in, the
 * nonce must be the `eventNonce` it names and not empty, the finality executed at least the one asked, and the fee
 * executed within the max fee. Empty when the message is our burn's.
 */
export function cctpMessageMismatches(burn: Pick<CctpBurn, 'message' | 'body'>, attested: { message: string; nonce: string }): string[] {
  let message: CctpMessage;
  let body: CctpBurnMessage;
  try {
    message = decodeCctpMessage(attested.message);
    body = decodeCctpBurnMessage(message.messageBody);
  } catch (err) {
    return [`the message cannot be read (${(err as Error).message})`];
  }
  const problems: string[] = [];
  const same = (field: string, got: string | number | bigint, sent: string | number | bigint) => {
    if (String(got).toLowerCase() !== String(sent).toLowerCase()) problems.push(`${field} ${String(got)} is not the burn's ${String(sent)}`);
  };
  const sent = burn.message;
  same('version', message.version, sent.version);
  same('source domain', message.sourceDomain, sent.sourceDomain);
  same('destination domain', message.destinationDomain, sent.destinationDomain);
  same('sender', message.sender, sent.sender);
  same('recipient', message.recipient, sent.recipient);
  same('destination caller', message.destinationCaller, sent.destinationCaller);
  same('min finality threshold', message.minFinalityThreshold, sent.minFinalityThreshold);
  same('burn message version', body.version, burn.body.version);
  same('burn token', body.burnToken, burn.body.burnToken);
  same('mint recipient', body.mintRecipient, burn.body.mintRecipient);
  same('amount', body.amount, burn.body.amount);
  same('message sender', body.messageSender, burn.body.messageSender);
  same('max fee', body.maxFee, burn.body.maxFee);
  same('hook data', body.hookData, burn.body.hookData);
  if (message.nonce.toLowerCase() !== attested.nonce.toLowerCase()) problems.push(`nonce ${message.nonce} is not Iris's eventNonce ${attested.nonce}`);
  if (BigInt(message.nonce) === 0n) problems.push('the nonce is empty');
  if (message.finalityThresholdExecuted < sent.minFinalityThreshold) problems.push(`finality executed ${message.finalityThresholdExecuted} is below the ${sent.minFinalityThreshold} asked`);
  if (body.feeExecuted > burn.body.maxFee) problems.push(`fee executed ${body.feeExecuted} is over the max fee ${burn.body.maxFee}`);
  return problems;
}

/**
 * Checks an attested message against our burn `txHash`, read from the source chain, and that burn against what we
 * meant to burn (the quote's amount and recipient). Throws CctpMessageMismatch naming every difference: the mint of
 * another message (someone else's burn, another amount or recipient) is never signed.
 */
export async function assertAttestationOfBurn(
  route: CctpRoute,
  source: Provider,
  burn: { txHash: string; amount: bigint; mintRecipient: string },
  attested: { message: string; nonce: string },
): Promise<void> {
  const receipt = await source.getTransactionReceipt(burn.txHash);
  if (!receipt) throw new Error(`the CCTP burn ${burn.txHash} has no receipt`);
  const [emitted] = parseCctpBurnReceipt(route, receipt);
  if (!emitted) throw new CctpMessageMismatch(`${burn.txHash} burned nothing through CCTP`);
  const problems = cctpMessageMismatches(emitted, attested);
  if (emitted.body.amount !== burn.amount) problems.push(`the burn moved ${emitted.body.amount}, not the ${burn.amount} meant`);
  if (emitted.body.mintRecipient.toLowerCase() !== addressToBytes32(burn.mintRecipient).toLowerCase()) problems.push(`the burn mints to ${emitted.body.mintRecipient}, not to ${burn.mintRecipient}`);
  if (problems.length > 0) throw new CctpMessageMismatch(`Iris's message for the burn ${burn.txHash} is not that burn's: ${problems.join('; ')}`);
}

/** The mint: MessageTransmitterV2.receiveMessage on the destination with Iris's message and attestation. */
export function buildReceiveMessage(route: CctpRoute, attested: { message: string; attestation: string }): TxRequest {
  const data = messageTransmitter.encodeFunctionData('receiveMessage', [attested.message, attested.attestation]);
  return { to: route.destination.messageTransmitter, data, value: 0n };
}

/** Whether the destination already received this nonce: after a crash between sending and the receipt, don't resend. */
export async function isCctpNonceUsed(route: CctpRoute, destination: Provider, nonce: string): Promise<boolean> {
  const result = await destination.call({
    to: route.destination.messageTransmitter,
    data: messageTransmitter.encodeFunctionData('usedNonces', [nonce]),
  });
  return BigInt(result) !== 0n;
}

/** The MintAndWithdraw of a receiveMessage receipt: what the recipient got and the fee taken. */
export function parseCctpMintReceipt(
  route: CctpRoute,
  receipt: Pick<TransactionReceipt, 'logs'>,
): { mintRecipient: string; amount: bigint; mintToken: string; feeCollected: bigint } | undefined {
  const topic = tokenMessenger.getEvent('MintAndWithdraw')?.topicHash;
  const log = receipt.logs.find((l) => l.address.toLowerCase() === route.destination.tokenMessenger.toLowerCase() && l.topics[0] === topic);
  if (!log) return undefined;
  const e = tokenMessenger.decodeEventLog('MintAndWithdraw', log.data, log.topics);
  return { mintRecipient: String(e[0]), amount: BigInt(e[1] as bigint), mintToken: String(e[2]), feeCollected: BigInt(e[3] as bigint) };
}
