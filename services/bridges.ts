/**
 * The payment's bridging step over the bridge adapters of chains/bridges: every transaction it needs (approval,
 * burn or send, mint) is an intent of the sign-once outbox, keyed by the payment, so each step resumes after a
 * crash with the transaction it already signed.
 */
import { bridgeAdapterFor, bridgeKindFor, type BridgeAdapter } from '../chains/bridges/adapter';
import type { ChainAdapters } from '../chains/adapters';
import type { BridgeArrival, BridgeQuote } from '../domain/bridges';
import { intentKeys } from '../domain/chain-txs';
import { findChainTx } from '../db/queries/chain-txs';
import { vettedJsonClient, type GetJson } from '../lib/http-client';
import { createChainTxService, type ChainTxServiceDeps } from './chain-txs';
import { recordBridgeArrival } from './ledger';

export interface BridgeServiceDeps extends ChainTxServiceDeps {
  /** Development and tests: Iris may be a stand-in on a private or loopback address, over plain http. */
  webhooks: { allowPrivateNetworks: boolean };
}

type Submitted = { intentKey: string; txHash: string };

/** One Iris request (a fee quote, an attestation lookup) may take this long. */
const IRIS_TIMEOUT_MS = 10_000;

/** Circle's Iris through the vetted HTTP client: https to a public address, or the devnet's stand-in where private networks are allowed. */
export const irisClient = (allowPrivateNetworks: boolean): GetJson =>
  vettedJsonClient({ schemes: allowPrivateNetworks ? ['https:', 'http:'] : ['https:'], allowPrivateNetworks, label: 'irisBaseUrl' }, IRIS_TIMEOUT_MS);

/**
 * Whether a bridge carries a payin of `symbol` from its chain to the payout chain, the same base units on both sides
 * (same decimals): the way a payment's own funds reach a destination treasury whose float is short. Reads no chain.
 */
export function bridgeRouteFor(chains: ChainAdapters, source: { chainId: number; symbol: string; decimals: number }, destinationChainId: number): boolean {
  if (bridgeKindFor(chains, source.chainId, destinationChainId, source.symbol) === undefined) return false;
  return chains.registry.findToken(destinationChainId, source.symbol)?.decimals === source.decimals;
}

export function createBridgeService(deps: BridgeServiceDeps) {
  const txs = createChainTxService(deps);
  const { registry } = deps.chains;
  const iris = irisClient(deps.webhooks.allowPrivateNetworks);

  function adapter(quote: Pick<BridgeQuote, 'sourceChainId' | 'destinationChainId' | 'tokenSymbol'>): BridgeAdapter {
    const found = bridgeAdapterFor({ endpoints: deps.chains, iris }, quote.sourceChainId, quote.destinationChainId, quote.tokenSymbol);
    if (!found) throw new Error(`no bridge for ${quote.tokenSymbol} from chain ${quote.sourceChainId} to chain ${quote.destinationChainId}`);
    return found;
  }

  const tokenAddress = (chainId: number, symbol: string) => registry.token(chainId, symbol).address;

  return {
    /** Fees and expected time of moving `amountUnits` to the destination treasury. Reads only. */
    quote(input: { sourceChainId: number; destinationChainId: number; tokenSymbol: string; amountUnits: string }): Promise<BridgeQuote> {
      return adapter(input).quote(BigInt(input.amountUnits));
    },

    /** The approval the bridge needs to pull the token, if it pulls it. Idempotent per payment. */
    async approve(input: { paymentId: string; quote: BridgeQuote }): Promise<Submitted | null> {
      const { quote } = input;
      // Whether the bridge pulls the token is fixed by its contract (a lock adapter does, a burning OFT doesn't).
      const call = await adapter(quote).approval(quote);
      if (!call) return null;
      return txs.submitBridgeStep({
        step: 'bridge-approve', intentKey: intentKeys.bridgeApprove(input.paymentId), paymentId: input.paymentId, chainId: quote.sourceChainId, call,
        purpose: 'bridge approve', tokenAddress: null, amountUnits: null,
      });
    },

    /** The burn (CCTP) or send (OFT) from the source treasury. Idempotent per payment. */
    start(input: { paymentId: string; quote: BridgeQuote }): Promise<Submitted> {
      const { quote } = input;
      return txs.submitBridgeStep({
        step: 'bridge-burn', intentKey: intentKeys.bridgeBurn(input.paymentId), paymentId: input.paymentId, chainId: quote.sourceChainId,
        call: adapter(quote).start(quote), purpose: quote.kind === 'cctp' ? 'bridge burn' : 'bridge send',
        tokenAddress: tokenAddress(quote.sourceChainId, quote.tokenSymbol), amountUnits: quote.amountUnits,
      });
    },

    /** One look at the transfer: pending, attested (CCTP) or delivered (OFT). Reads only. */
    check(input: { quote: BridgeQuote; startTxHash: string }): Promise<BridgeArrival> {
      return adapter(input.quote).check(input.quote, input.startTxHash);
    },

    /**
     * The mint on the destination (CCTP receiveMessage), or null when the bridge delivered. The attested message is
     * checked against the payment's own burn, as the outbox recorded it mined, before anything is signed. Idempotent
     * per payment.
     */
    async finish(input: { paymentId: string; quote: BridgeQuote; arrival: Exclude<BridgeArrival, { state: 'pending' }> }): Promise<Submitted | null> {
      const { quote } = input;
      const started = await findChainTx({ knex: deps.knex, intentKey: intentKeys.bridgeBurn(input.paymentId) });
      if (started?.status !== 'confirmed') throw new Error(`payment ${input.paymentId} has no bridge start mined: nothing to finish`);
      const call = await adapter(quote).finish(quote, input.arrival, started.tx_hash);
      // An OFT's executor delivers without a transaction of ours: booked now, as the delivery on chain says (a CCTP
      // mint is booked when it lands, as its receipt says).
      const { arrival } = input;
      const destinationToken = tokenAddress(quote.destinationChainId, quote.tokenSymbol);
      if (arrival.state === 'delivered') {
        await recordBridgeArrival(deps, { paymentId: input.paymentId, chainId: quote.destinationChainId, tokenAddress: destinationToken, burntUnits: BigInt(quote.amountUnits), receivedUnits: BigInt(arrival.receivedUnits) });
      }
      if (!call) return null;
      return txs.submitBridgeStep({
        step: 'bridge-mint', intentKey: intentKeys.bridgeMint(input.paymentId), paymentId: input.paymentId, chainId: quote.destinationChainId,
        call, purpose: 'bridge mint', tokenAddress: destinationToken, amountUnits: quote.amountUnits,
      });
    },
  };
}

export type BridgeService = ReturnType<typeof createBridgeService>;
