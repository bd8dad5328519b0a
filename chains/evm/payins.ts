import { getAddress, type JsonRpcProvider, type Log, type TransactionReceipt } from 'ethers';
import { NATIVE_TOKEN_ADDRESS, isNativeToken } from '../../domain/payment';
import { NATIVE_LOG_INDEX, type DetectedPayin } from '../../domain/payins';
import type { PayinCheck } from '../family';
import { TRANSFER_TOPIC } from './contracts';
import type { BlockReads } from './transactions';

/** Blocks fetched at once while reading a range for native-coin transfers. */
const BLOCK_FETCH_CONCURRENCY = 8;

function isTransferLog(log: Log): boolean {
  // ERC-721 transfers share the topic but index the token id as a fourth topic.
  return log.topics.length === 3 && log.topics[0] === TRANSFER_TOPIC;
}

function payinFromLog(chainId: number, log: Log): DetectedPayin {
  return {
    chainId,
    txHash: log.transactionHash,
    logIndex: log.index,
    blockNumber: log.blockNumber,
    tokenAddress: getAddress(log.address),
    from: getAddress(`0x${log.topics[1]!.slice(26)}`),
    to: getAddress(`0x${log.topics[2]!.slice(26)}`),
    amountUnits: BigInt(log.data).toString(),
  };
}

/**
 * Every ERC-20 transfer in the block range, of any contract, whoever receives it: the caller matches recipients
 * against its deposit addresses, counts the configured tokens' transfers as payins and quarantines the others. One
 * `eth_getLogs` per range (by topic, not by contract), whatever the number of open payments.
 */
export async function readTokenTransfers(options: { provider: JsonRpcProvider; chainId: number; fromBlock: number; toBlock: number }): Promise<DetectedPayin[]> {
  const logs = await options.provider.getLogs({ fromBlock: options.fromBlock, toBlock: options.toBlock, topics: [TRANSFER_TOPIC] });
  return logs.filter(isTransferLog).map((log) => payinFromLog(options.chainId, log));
}

/**
 * Native-coin transfers (ETH on Arbitrum and Base) in the block range: plain value transfers leave no log, so the
 * blocks are read with their transactions. A native payin's token is the zero address and its log index
 * `NATIVE_LOG_INDEX` (the transaction's own value).
 */
export async function readNativeTransfers(options: { provider: JsonRpcProvider; chainId: number; fromBlock: number; toBlock: number }): Promise<DetectedPayin[]> {
  const { provider, chainId, fromBlock, toBlock } = options;
  const payins: DetectedPayin[] = [];
  for (let start = fromBlock; start <= toBlock; start += BLOCK_FETCH_CONCURRENCY) {
    const numbers = Array.from({ length: Math.min(BLOCK_FETCH_CONCURRENCY, toBlock - start + 1) }, (_, i) => start + i);
    const blocks = await Promise.all(numbers.map((n) => provider.getBlock(n, true)));
    for (const [i, block] of blocks.entries()) {
      if (!block) throw new Error(`block ${numbers[i]} on chain ${chainId} is not available`);
      for (const tx of block.prefetchedTransactions) {
        if (!tx.to || tx.value <= 0n) continue;
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


export async function checkPayin(options: { provider: JsonRpcProvider; blocks: BlockReads; payin: DetectedPayin; depth: number }): Promise<PayinCheck> {
  const { provider, blocks, payin, depth } = options;
  const receipt = await blocks.receipt(payin.txHash);
  if (!receipt) return (await provider.getTransaction(payin.txHash)) === null ? { state: 'missing' } : { state: 'pending' };
  const matched = isNativeToken(payin.tokenAddress) ? await matchNativePayin(provider, receipt, payin) : matchTokenPayin(receipt, payin);
  if (!matched) return { state: 'dropped' };
  const head = await blocks.head();
  if (head - receipt.blockNumber + 1 < depth) return { state: 'pending' };
  const block = await blocks.block(receipt.blockNumber);
  if (block?.hash !== receipt.blockHash) return { state: 'pending' };
  return { state: 'confirmed', payin: { ...matched, confirmedAt: new Date(block.timestamp * 1000).toISOString() } };
}

/**
 * The ERC-20 payin as its (possibly re-mined) receipt carries it, or null when it no longer does. The log index
 * is the payin's identity, so a re-mined transaction must carry the transfer at the same index.
 */
function matchTokenPayin(receipt: TransactionReceipt, payin: DetectedPayin): DetectedPayin | null {
  const log = receipt.logs.find(
    (l) =>
      l.index === payin.logIndex &&
      isTransferLog(l) &&
      l.address.toLowerCase() === payin.tokenAddress.toLowerCase() &&
      BigInt(l.topics[2]!) === BigInt(payin.to) &&
      BigInt(l.data) === BigInt(payin.amountUnits),
  );
  return log ? payinFromLog(payin.chainId, log) : null;
}

/**
 * The native payin as its (possibly re-mined) transaction carries it, or null when the transaction reverted (a
 * reverted transaction moves no value) or no longer pays this address this amount.
 */
async function matchNativePayin(provider: JsonRpcProvider, receipt: TransactionReceipt, payin: DetectedPayin): Promise<DetectedPayin | null> {
  if (receipt.status !== 1) return null;
  const tx = await provider.getTransaction(payin.txHash);
  if (!tx?.to || tx.to.toLowerCase() !== payin.to.toLowerCase() || tx.value.toString() !== payin.amountUnits) return null;
  return { ...payin, blockNumber: receipt.blockNumber };
}
