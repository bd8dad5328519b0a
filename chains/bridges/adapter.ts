import type { BridgeArrival, BridgeKind, BridgeQuote } from '../../domain/bridges';
import type { GetJson } from '../../lib/http-client';
import {
  assertAttestationOfBurn, buildCctpApprove, buildDepositForBurn, buildReceiveMessage, CCTP_FINALITY_THRESHOLD, fetchCctpAttestation, quoteCctpFee,
  type CctpRoute,
} from './cctp';
import { decodeCctpMessage } from './cctp-message';
import type { BridgeEndpoint, BridgeEndpoints } from './endpoint';
import { buildOftApprove, buildOftSend, findOftDelivery, oftApprovalRequired, parseOftSentReceipt, quoteOftSend, type OftRoute } from './oft';
import { addressToBytes32, approvalIfShort, type TxRequest } from './tx';

/**
 * One bridge between two chains for one token, in the four steps of the payment's bridging: quote, start (burn or
 * send, after an approval when the bridge pulls the token), wait (one `check` per poll) and finish (mint or
 * receive). Calls come back unsigned: the caller signs each as an intent of the sign-once outbox, so every step
 * can be resumed after a crash. Everything a later step needs is in the quote.
 */
export interface BridgeAdapter {
  readonly kind: BridgeKind;
  quote(amount: bigint): Promise<BridgeQuote>;
  /** The approval the start needs when the bridge pulls the token from the treasury, else null. */
  approval(quote: BridgeQuote): Promise<TxRequest | null>;
  /** The burn (CCTP depositForBurn) or send (OFT send) on the source chain. */
  start(quote: BridgeQuote): TxRequest;
  /**
   * Where the transfer started by `startTxHash` is now. Network failures throw (the caller's retries decide); so does
   * an attestation of another message than the start's (CCTP: `CctpMessageMismatch`).
   */
  check(quote: BridgeQuote, startTxHash: string): Promise<BridgeArrival>;
  /**
   * The destination call that completes an attested transfer (CCTP receiveMessage, once the attested message is
   * checked again against the burn `startTxHash`); null once delivered (OFT).
   */
  finish(quote: BridgeQuote, arrival: Exclude<BridgeArrival, { state: 'pending' }>, startTxHash: string): Promise<TxRequest | null>;
}

export interface BridgeAdapterDeps {
  /** The chains' bridge endpoints (`ChainAdapters`). */
  endpoints: BridgeEndpoints;
  /** Circle's Iris, through the vetted HTTP client (lib/http-client.ts). */
  iris: GetJson;
}

/** The two ends of a transfer. */
interface Ends {
  source: BridgeEndpoint;
  destination: BridgeEndpoint;
}

/** A transfer's ends and the treasury: it pays on the source, receives on the destination, and alone may mint. */
interface Transfer extends Ends {
  treasury: string;
  iris: GetJson;
}

type QuoteBase = Omit<BridgeQuote, 'kind' | 'amountUnits' | 'maxFeeUnits' | 'nativeFeeWei' | 'expectedSeconds' | 'params'>;

/** LayerZero's fee may rise between quote and send: pay this much more; the endpoint refunds what it doesn't use. */
const NATIVE_FEE_HEADROOM_BPS = 2_000n;
/** CCTP moves USDC only; every other bridged token goes through its OFT. */
const CCTP_TOKEN = 'USDC';

function cctpRoute({ source, destination }: Ends): CctpRoute | undefined {
  const [from, to] = [source.cctp, destination.cctp];
  const [usdcFrom, usdcTo] = [source.tokenAddress(CCTP_TOKEN), destination.tokenAddress(CCTP_TOKEN)];
  if (!from || !to || !usdcFrom || !usdcTo) return undefined;
  return {
    source: { domain: from.domain, tokenMessenger: from.tokenMessenger, messageTransmitter: from.messageTransmitter, usdc: usdcFrom },
    destination: { domain: to.domain, tokenMessenger: to.tokenMessenger, messageTransmitter: to.messageTransmitter, usdc: usdcTo },
    irisBaseUrl: from.irisBaseUrl,
    finality: from.finality,
  };
}

function oftRoute({ source, destination }: Ends, symbol: string): OftRoute | undefined {
  const [from, to] = [source.oft[symbol], destination.oft[symbol]];
  const [tokenFrom, tokenTo] = [source.tokenAddress(symbol), destination.tokenAddress(symbol)];
  if (!from || !to || !tokenFrom || !tokenTo) return undefined;
  return {
    source: { eid: from.eid, oft: from.oft, token: tokenFrom },
    destination: { eid: to.eid, oft: to.oft, token: tokenTo },
    extraOptions: from.extraOptions,
  };
}

/** What the burn `txHash` was meant to burn: the quote's amount, minted to the quote's recipient. */
const ourBurn = (quote: BridgeQuote, txHash: string) => ({ txHash, amount: BigInt(quote.amountUnits), mintRecipient: quote.recipient });

function cctpAdapter(transfer: Transfer, route: CctpRoute, base: QuoteBase): BridgeAdapter {
  const expectedSeconds = transfer.source.cctp?.expectedSeconds ?? 0;
  return {
    kind: 'cctp',
    async quote(amount) {
      const fee = await quoteCctpFee(route, amount, { get: transfer.iris });
      return {
        ...base, kind: 'cctp', amountUnits: amount.toString(), maxFeeUnits: fee.maxFee.toString(), nativeFeeWei: '0', expectedSeconds,
        params: { minFinalityThreshold: String(fee.finalityThreshold) },
      };
    },
    approval: (quote) =>
      approvalIfShort(
        transfer.source.provider,
        { token: route.source.usdc, owner: transfer.treasury, spender: route.source.tokenMessenger, amount: BigInt(quote.amountUnits) },
        (allowance) => buildCctpApprove(route, allowance),
      ),
    start(quote) {
      // Minted to the treasury, and only the treasury may mint: the one receiveMessage is Payrail's own outbox intent.
      const finality = Number(quote.params.minFinalityThreshold) <= CCTP_FINALITY_THRESHOLD.fast ? 'fast' : 'standard';
      return buildDepositForBurn({ ...route, finality }, {
        amount: BigInt(quote.amountUnits), mintRecipient: quote.recipient, maxFee: BigInt(quote.maxFeeUnits), destinationCaller: transfer.treasury,
      });
    },
    async check(quote, startTxHash) {
      const attestation = await fetchCctpAttestation(route, { txHash: startTxHash, messageIndex: 0 }, { get: transfer.iris });
      if (attestation.status === 'pending') return { state: 'pending', detail: `Iris: ${attestation.irisStatus ?? 'not seen yet'}` };
      await assertAttestationOfBurn(route, transfer.source.provider, ourBurn(quote, startTxHash), attestation);
      return { state: 'attested', message: attestation.message, attestation: attestation.attestation };
    },
    async finish(quote, arrival, startTxHash) {
      if (arrival.state !== 'attested') throw new Error(`a CCTP transfer is finished from its attestation, not from ${arrival.state}`);
      // Checked again where the mint is signed: the arrival came through the workflow, the burn is read from the chain.
      await assertAttestationOfBurn(route, transfer.source.provider, ourBurn(quote, startTxHash), { message: arrival.message, nonce: decodeCctpMessage(arrival.message).nonce });
      return buildReceiveMessage(route, arrival);
    },
  };
}

function oftAdapter(transfer: Transfer, route: OftRoute, base: QuoteBase): BridgeAdapter {
  const source = transfer.source.provider;
  const destination = transfer.destination.provider;
  const expectedSeconds = transfer.source.oft[base.tokenSymbol]?.expectedSeconds ?? 0;
  const sendParam = (quote: BridgeQuote) => ({
    dstEid: route.destination.eid,
    to: addressToBytes32(quote.recipient),
    amountLD: BigInt(quote.amountUnits),
    minAmountLD: BigInt(quote.amountUnits) - BigInt(quote.maxFeeUnits),
    extraOptions: route.extraOptions ?? '0x',
    composeMsg: '0x',
    oftCmd: '0x',
  });
  return {
    kind: 'oft',
    async quote(amount) {
      const [quoted, destinationBlock] = await Promise.all([quoteOftSend(route, source, base.recipient, amount), destination.getBlockNumber()]);
      const nativeFee = quoted.fee.nativeFee + (quoted.fee.nativeFee * NATIVE_FEE_HEADROOM_BPS) / 10_000n;
      return {
        ...base, kind: 'oft', amountUnits: amount.toString(), maxFeeUnits: (amount - quoted.amountReceivedLD).toString(), nativeFeeWei: nativeFee.toString(),
        expectedSeconds,
        // Delivery is looked for from here on: a block of the destination from before the send.
        params: { destinationFromBlock: String(destinationBlock) },
      };
    },
    async approval(quote) {
      if (!(await oftApprovalRequired(route, source))) return null;
      const pull = { token: route.source.token, owner: transfer.treasury, spender: route.source.oft, amount: BigInt(quote.amountUnits) };
      return approvalIfShort(source, pull, (allowance) => buildOftApprove(route, allowance));
    },
    start(quote) {
      return buildOftSend(route, { sendParam: sendParam(quote), fee: { nativeFee: BigInt(quote.nativeFeeWei), lzTokenFee: 0n } }, transfer.treasury);
    },
    async check(quote, startTxHash) {
      const receipt = await source.getTransactionReceipt(startTxHash);
      if (!receipt) throw new Error(`the OFT send ${startTxHash} has no receipt`);
      const { guid } = parseOftSentReceipt(route, receipt);
      const delivery = await findOftDelivery(route, destination, guid, Number(quote.params.destinationFromBlock));
      if (!delivery.delivered) return { state: 'pending', detail: `LayerZero message ${guid} not delivered yet` };
      return { state: 'delivered', txHash: delivery.txHash, receivedUnits: delivery.amountReceivedLD.toString() };
    },
    finish: () => Promise.resolve(null),
  };
}

/** The chains' endpoints, when a bridge reaches both. */
function endsOf(endpoints: BridgeEndpoints, sourceChainId: number, destinationChainId: number): Ends | undefined {
  const [source, destination] = [endpoints.bridgeEndpoint(sourceChainId), endpoints.bridgeEndpoint(destinationChainId)];
  return source && destination && { source, destination };
}

function routeFor(ends: Ends, symbol: string) {
  const cctp = symbol === CCTP_TOKEN ? cctpRoute(ends) : undefined;
  if (cctp) return { kind: 'cctp' as const, route: cctp };
  const oft = oftRoute(ends, symbol);
  return oft && { kind: 'oft' as const, route: oft };
}

/**
 * The bridge for `symbol` from one chain to another, as configured (`cctp` / `oft` of chains.json): CCTP for USDC
 * when both chains have it, else the token's OFT on both chains; undefined when neither connects them.
 */
export function bridgeAdapterFor(deps: BridgeAdapterDeps, sourceChainId: number, destinationChainId: number, symbol: string): BridgeAdapter | undefined {
  const ends = endsOf(deps.endpoints, sourceChainId, destinationChainId);
  const found = ends && routeFor(ends, symbol);
  if (!ends || !found) return undefined;
  const transfer: Transfer = { ...ends, treasury: ends.source.treasuryAddress(), iris: deps.iris };
  const base = { sourceChainId, destinationChainId, tokenSymbol: symbol, recipient: transfer.treasury };
  return found.kind === 'cctp' ? cctpAdapter(transfer, found.route, base) : oftAdapter(transfer, found.route, base);
}

/** Which bridge connects the chains for `symbol`, if any (for planning a payment: reads no chain). */
export function bridgeKindFor(endpoints: BridgeEndpoints, sourceChainId: number, destinationChainId: number, symbol: string): BridgeKind | undefined {
  const ends = sourceChainId === destinationChainId ? undefined : endsOf(endpoints, sourceChainId, destinationChainId);
  return ends && routeFor(ends, symbol)?.kind;
}
