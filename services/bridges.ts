/**
 * The payment's bridging step over the bridge adapters of chains/bridges: every transaction it needs (approval,
 * burn or send, mint) is an intent of the sign-once outbox, keyed by the payment, so each step resumes after a
 * crash with the transaction it already signed.
 */
import { bridgeAdapterFor, type BridgeAdapter } from '../chains/bridges/adapter';
import type { FetchLike } from '../chains/bridges/cctp';
import type { BridgeArrival, BridgeQuote } from '../domain/bridges';
import { intentKeys } from '../domain/chain-txs';
import { createChainTxService, type ChainTxServiceDeps } from './chain-txs';

export interface BridgeServiceDeps extends ChainTxServiceDeps {
  /** HTTP client for Iris; global fetch by default. */
  fetch?: FetchLike;
}

type Submitted = { intentKey: string; txHash: string };

export function createBridgeService(deps: BridgeServiceDeps) {
  const txs = createChainTxService(deps);
  const { registry } = deps.chains;

  function adapter(quote: Pick<BridgeQuote, 'sourceChainId' | 'destinationChainId' | 'tokenSymbol'>): BridgeAdapter {
    const found = bridgeAdapterFor({ endpoints: deps.chains, fetch: deps.fetch }, quote.sourceChainId, quote.destinationChainId, quote.tokenSymbol);
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

    /** The mint on the destination (CCTP receiveMessage), or null when the bridge delivered. Idempotent per payment. */
    async finish(input: { paymentId: string; quote: BridgeQuote; arrival: Exclude<BridgeArrival, { state: 'pending' }> }): Promise<Submitted | null> {
      const { quote } = input;
      const call = adapter(quote).finish(quote, input.arrival);
      if (!call) return null;
      return txs.submitBridgeStep({
        step: 'bridge-mint', intentKey: intentKeys.bridgeMint(input.paymentId), paymentId: input.paymentId, chainId: quote.destinationChainId,
        call, purpose: 'bridge mint', tokenAddress: tokenAddress(quote.destinationChainId, quote.tokenSymbol), amountUnits: quote.amountUnits,
      });
    },
  };
}

export type BridgeService = ReturnType<typeof createBridgeService>;
