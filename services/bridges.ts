/**
 * Bridge transfers over the bridge adapters of chains/bridges, for a payment's bridging step or a rebalance between
 * treasuries: every transaction one needs (approval, burn or send, mint) is an intent of the sign-once outbox,
 * keyed by the payment or the rebalance, so each step resumes after a crash with the transaction it already signed.
 */
import { bridgeAdapterFor, bridgeKindFor, type BridgeAdapter } from '../chains/bridges/adapter';
import type { ChainAdapters } from '../chains/adapters';
import type { BridgeArrival, BridgeOwner, BridgeQuote } from '../domain/bridges';
import { intentKeys } from '../domain/chain-txs';
import { findChainTx } from '../db/queries/chain-txs';
import { vettedJsonClient, type GetJson } from '../lib/http-client';
import { createChainTxService, type ChainTxServiceDeps } from './chain-txs';
import { recordBridgeArrival, recordRebalanceArrival } from './ledger';

export interface BridgeServiceDeps extends ChainTxServiceDeps {
  /** Development and tests: Iris may be a stand-in on a private or loopback address, over plain http. */
  webhooks: { allowPrivateNetworks: boolean };
}

type Submitted = { intentKey: string; txHash: string };

/** The owner's outbox intents, and how its OFT delivery (made without a transaction of ours) is booked. */
function ownedBy(owner: BridgeOwner) {
  if ('paymentId' in owner) {
    const { paymentId } = owner;
    return {
      paymentId, label: `payment ${paymentId}`, approve: intentKeys.bridgeApprove(paymentId), burn: intentKeys.bridgeBurn(paymentId), mint: intentKeys.bridgeMint(paymentId),
      delivered: (deps: BridgeServiceDeps, arrival: Omit<Parameters<typeof recordBridgeArrival>[1], 'paymentId'>) => recordBridgeArrival(deps, { ...arrival, paymentId }),
    };
  }
  const { rebalanceId } = owner;
  return {
    paymentId: null, label: `rebalance ${rebalanceId}`, approve: intentKeys.rebalanceApprove(rebalanceId), burn: intentKeys.rebalanceBurn(rebalanceId), mint: intentKeys.rebalanceMint(rebalanceId),
    delivered: (deps: BridgeServiceDeps, arrival: Omit<Parameters<typeof recordBridgeArrival>[1], 'paymentId'>) => recordRebalanceArrival(deps, { ...arrival, rebalanceId }),
  };
}

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

    /** The approval the bridge needs to pull the token, if it pulls it. Idempotent per payment or rebalance. */
    async approve(input: BridgeOwner & { quote: BridgeQuote }): Promise<Submitted | null> {
      const { quote } = input;
      const owner = ownedBy(input);
      // Whether the bridge pulls the token is fixed by its contract (a lock adapter does, a burning OFT doesn't).
      const call = await adapter(quote).approval(quote);
      if (!call) return null;
      return txs.submitBridgeStep({
        step: 'bridge-approve', intentKey: owner.approve, paymentId: owner.paymentId, chainId: quote.sourceChainId, call,
        purpose: 'bridge approve', tokenAddress: null, amountUnits: null,
      });
    },

    /** The burn (CCTP) or send (OFT) from the source treasury. Idempotent per payment or rebalance. */
    start(input: BridgeOwner & { quote: BridgeQuote }): Promise<Submitted> {
      const { quote } = input;
      const owner = ownedBy(input);
      return txs.submitBridgeStep({
        step: 'bridge-burn', intentKey: owner.burn, paymentId: owner.paymentId, chainId: quote.sourceChainId,
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
     * checked against the owner's own burn, as the outbox recorded it mined, before anything is signed. Idempotent
     * per payment or rebalance.
     */
    async finish(input: BridgeOwner & { quote: BridgeQuote; arrival: Exclude<BridgeArrival, { state: 'pending' }> }): Promise<Submitted | null> {
      const { quote } = input;
      const owner = ownedBy(input);
      const started = await findChainTx({ knex: deps.knex, intentKey: owner.burn });
      if (started?.status !== 'confirmed') throw new Error(`${owner.label} has no bridge start mined: nothing to finish`);
      const call = await adapter(quote).finish(quote, input.arrival, started.tx_hash);
      // An OFT's executor delivers without a transaction of ours: booked now, as the delivery on chain says (a CCTP
      // mint is booked when it lands, as its receipt says).
      const { arrival } = input;
      const destinationToken = tokenAddress(quote.destinationChainId, quote.tokenSymbol);
      if (arrival.state === 'delivered') {
        await owner.delivered(deps, { chainId: quote.destinationChainId, tokenAddress: destinationToken, burntUnits: BigInt(quote.amountUnits), receivedUnits: BigInt(arrival.receivedUnits) });
      }
      if (!call) return null;
      return txs.submitBridgeStep({
        step: 'bridge-mint', intentKey: owner.mint, paymentId: owner.paymentId, chainId: quote.destinationChainId,
        call, purpose: 'bridge mint', tokenAddress: destinationToken, amountUnits: quote.amountUnits,
      });
    },
  };
}

export type BridgeService = ReturnType<typeof createBridgeService>;
