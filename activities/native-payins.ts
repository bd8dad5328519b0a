import { getAddress, type JsonRpcProvider, type TransactionReceipt } from 'ethers';
import { NATIVE_TOKEN_ADDRESS } from '../chains/registry';
import type { DetectedPayin } from '../workflows/types';

/**
 * Native-coin payins (ETH on Arbitrum and Base): plain value transfers leave no log, so the watcher reads every
 * block of the range with its transactions and keeps those whose `to` is a watched deposit address. The payin's
 * `tokenAddress` is the zero address (as the deposit factory names the coin) and its `logIndex` is -1 (the
 * transaction's own value, not one of its logs).
 */
export const NATIVE_LOG_INDEX = -1;

/** Blocks fetched at once while scanning a range. */
const BLOCK_FETCH_CONCURRENCY = 8;

export async function scanNativePayins(options: {
  provider: JsonRpcProvider;
  chainId: number;
  fromBlock: number;
  toBlock: number;
  /** Lower-cased watched deposit addresses. */
  watched: ReadonlySet<string>;
}): Promise<DetectedPayin[]> {
  const { provider, chainId, fromBlock, toBlock, watched } = options;
  if (watched.size === 0) return [];
  const payins: DetectedPayin[] = [];
  for (let start = fromBlock; start <= toBlock; start += BLOCK_FETCH_CONCURRENCY) {
    const numbers = Array.from({ length: Math.min(BLOCK_FETCH_CONCURRENCY, toBlock - start + 1) }, (_, i) => start + i);
    const blocks = await Promise.all(numbers.map((n) => provider.getBlock(n, true)));
    for (const [i, block] of blocks.entries()) {
      if (!block) throw new Error(`block ${numbers[i]} on chain ${chainId} is not available`);
      for (const tx of block.prefetchedTransactions) {
        if (!tx.to || tx.value <= 0n || !watched.has(tx.to.toLowerCase())) continue;
        payins.push({
          chainId,
          txHash: tx.hash,
          logIndex: NATIVE_LOG_INDEX,
          blockNumber: block.number,
          tokenAddress: NATIVE_TOKEN_ADDRESS,
          from: getAddress(tx.from),
          to: getAddress(tx.to),
          amountUnits: tx.value.toString(),
        });
      }
    }
  }
  return payins;
}

/**
 * The native payin as its (possibly re-mined) transaction carries it, or null when the transaction reverted
 * (a reverted transaction moves no value) or no longer pays this address this amount.
 */
export async function matchNativePayin(provider: JsonRpcProvider, receipt: TransactionReceipt, payin: DetectedPayin): Promise<DetectedPayin | null> {
  if (receipt.status !== 1) return null;
  const tx = await provider.getTransaction(payin.txHash);
  if (!tx?.to || tx.to.toLowerCase() !== payin.to.toLowerCase() || tx.value.toString() !== payin.amountUnits) return null;
  return { ...payin, blockNumber: receipt.blockNumber };
}
