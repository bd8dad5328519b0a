/**
 * Nothing is refunded at a loss. Before a payin (or the excess of one) goes back to its sender, what the refund would
 * cost the treasury is estimated from the chain (fees, energy, gas attached and not returned, rent); a refund whose
 * cost is above the configured share of its value (`refundMaxCostBps` of the chain or asset), one below the asset's
 * dust threshold, and one the chain cannot carry without a cost Payrail never pays (a Solana recipient's rent) is
 * held at the deposit address instead: recorded on the payin and in the ledger, visible to operators.
 */
import type { ChainAdapters } from '../chains/adapters';
import type { ChainConfig } from '../chains/registry';
import { PriceUnavailable, TxWouldRevert, type ChainAction, type TxCost } from '../chains/family';
import { formatUnits, parseUnits } from '../domain/money';
import { isNativeToken } from '../domain/payment';
import type { DetectedPayin } from '../domain/payins';
import { USD_DECIMALS, refundTooDear } from '../domain/pricing';

/** Why returning `amountUnits` of the payin to its sender is held rather than refunded, or null when it goes back. */
export async function refundHoldReason(deps: { chains: ChainAdapters }, input: { paymentId: string; payin: DetectedPayin; amountUnits: string }): Promise<string | null> {
  const { registry } = deps.chains;
  const { chainId, tokenAddress } = input.payin;
  const amount = BigInt(input.amountUnits);
  if (amount < registry.dustUnits(chainId, tokenAddress)) return 'dust: below the asset’s dust threshold';
  const asset = registry.payableByAddress(chainId, tokenAddress);
  if (!asset) return 'not a configured asset of the chain: its refund cannot be weighed';
  const chain = registry.chain(chainId);
  const native = isNativeToken(tokenAddress);
  const maxCostBps = asset.refundMaxCostBps ?? chain.refundMaxCostBps;
  const weigh = async (cost: TxCost) =>
    refundTooDear({ amountUnits: amount, asset: { decimals: asset.decimals, native, usdPegged: asset.usdPegged }, cost, feeCoinUsdMicros: native ? null : await feeCoinUsdMicros(deps, chain), maxCostBps });
  const recent = recentCosts(deps.chains);
  const key = `${chainId}:${tokenAddress.toLowerCase()}`;
  const seen = recent.get(key);
  // A burst of tiny payins is weighed without reading the chain for each: a refund worth less than a tenth of what
  // one of this asset cost moments ago (or costs, being estimated now) is held at once. The shortcut only ever holds;
  // a refund is made on its own estimate.
  const known = seen && Date.now() - seen.at < RECENT_COST_MS ? await seen.cost.catch(() => undefined) : undefined;
  if (known && !known.refusal && (await weigh({ ...known, feeUnits: known.feeUnits / 10n })) === true) {
    return `its network cost is above ${maxCostBps / 100}% of its value: a refund of this asset costs ${formatUnits(known.feeUnits, known.feeDecimals)} of the fee coin`;
  }
  const action: ChainAction = { kind: 'sweep', paymentId: input.paymentId, tokenAddress, to: input.payin.from, amountUnits: input.amountUnits };
  const estimate = deps.chains.adapter(chainId).estimateCost(action);
  recent.set(key, { cost: estimate, at: Date.now() });
  let cost;
  try {
    cost = await estimate;
  } catch (err) {
    // The refund's own step refuses it visibly (EstimateReverted), waiting for an operator.
    if (err instanceof TxWouldRevert) return null;
    throw err;
  }
  if (cost.refusal) return cost.refusal;
  const verdict = await weigh(cost);
  const costText = `${formatUnits(cost.feeUnits, cost.feeDecimals)} of the fee coin`;
  if (verdict === 'unweighable') return `its network cost (${costText}) cannot be weighed against its value: chain ${chainId} has no feeCoinUsd nor price feed`;
  return verdict ? `its network cost (${costText}) is above ${maxCostBps / 100}% of its value` : null;
}

/** How long a refund's estimated cost stands for the next payins of the same asset (the shortcut that holds a burst). */
const RECENT_COST_MS = 60_000;

/** Per process (its chain adapters): the latest refund cost estimate per chain and asset, as soon as it is asked for. */
const costsByProcess = new WeakMap<ChainAdapters, Map<string, RecentCost>>();

interface RecentCost {
  cost: Promise<TxCost>;
  at: number;
}

function recentCosts(chains: ChainAdapters): Map<string, RecentCost> {
  let costs = costsByProcess.get(chains);
  if (!costs) costsByProcess.set(chains, (costs = new Map<string, RecentCost>()));
  return costs;
}

/** USD per whole fee coin, in micro-USD: the chain's `feeCoinUsd`, else its native coin's price feed; null without either. */
async function feeCoinUsdMicros(deps: { chains: ChainAdapters }, chain: ChainConfig): Promise<bigint | null> {
  if (chain.feeCoinUsd) return parseUnits(chain.feeCoinUsd, USD_DECIMALS);
  const native = chain.nativeCurrency;
  if (!native?.usdPriceFeed) return null;
  try {
    const reading = await deps.chains.adapter(native.usdPriceFeedChainId ?? chain.chainId).readUsdPriceFeed(native.usdPriceFeed, {
      maxAgeSeconds: native.maxPriceAgeSeconds,
      nowSeconds: Math.floor(Date.now() / 1000),
    });
    return (reading.answer * 10n ** BigInt(USD_DECIMALS)) / 10n ** BigInt(reading.decimals);
  } catch (err) {
    if (err instanceof PriceUnavailable) return null;
    throw err;
  }
}
