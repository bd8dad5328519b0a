import { Contract, type Provider } from 'ethers';
import { PriceUnavailable, type FeedReading } from '../family';
import { priceFeedAbi } from './contracts';



/** Reads a Chainlink AggregatorV3-style feed and refuses stale or nonsensical answers rather than guessing. */
export async function readUsdPriceFeed(provider: Provider, feed: string, options: { maxAgeSeconds: number; nowSeconds: number }): Promise<FeedReading> {
  const contract = new Contract(feed, priceFeedAbi, provider);
  const [decimals, round] = (await Promise.all([
    contract.getFunction('decimals')(),
    contract.getFunction('latestRoundData')(),
  ])) as [bigint, [bigint, bigint, bigint, bigint, bigint]];
  const [roundId, answer, , updatedAt, answeredInRound] = round;
  if (answer <= 0n) throw new PriceUnavailable(`price feed ${feed} answers ${answer}`);
  if (updatedAt === 0n || answeredInRound < roundId) throw new PriceUnavailable(`price feed ${feed} has no complete round`);
  const age = options.nowSeconds - Number(updatedAt);
  if (age > options.maxAgeSeconds) throw new PriceUnavailable(`price feed ${feed} was last updated ${age} s ago (allowed ${options.maxAgeSeconds} s)`);
  return { feed, answer, decimals: Number(decimals), roundId, updatedAt: Number(updatedAt) };
}
