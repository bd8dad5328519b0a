import { heartbeat, sleep } from '@temporalio/activity';
import { getAddress, zeroPadValue, type Log, type TransactionReceipt } from 'ethers';
import { listWatchedDepositAddresses } from '../db/queries/payments';
import { TRANSFER_TOPIC } from '../chains/evm';
import { isNativeToken } from '../chains/registry';
import type { ChainScanCursor, ChainScanResult, DetectedPayin, PayinConfirmation } from '../workflows/types';
import type { ActivityDeps } from './deps';
import { matchNativePayin, scanNativePayins } from './native-payins';

/** Blocks the watcher steps back when its cursor block is no longer canonical. */
const REORG_REWIND_BLOCKS = 64;
/** Where a watcher with no cursor starts, below the head, so payments created just before it started are seen. */
const FIRST_SCAN_LOOKBACK_BLOCKS = 256;
/** Polls after which a transaction the node no longer knows at all is taken as dropped by a reorg. */
const MISSING_POLLS_BEFORE_DROPPED = 3;

function toDetectedPayin(chainId: number, log: Log): DetectedPayin {
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

function isTransferLog(log: Log): boolean {
  // ERC-721 transfers share the topic but index the token id as a fourth topic.
  return log.topics.length === 3 && log.topics[0] === TRANSFER_TOPIC;
}

export function createChainScanActivities({ knex, chains }: Pick<ActivityDeps, 'knex' | 'chains'>) {
  return {
    /**
     * Idempotent (read-only): scans the next block range after `cursor` for transfers into watched deposit
     * addresses. Steps back when the cursor block was reorged away; payments deduplicate repeated payins.
     */
    async scanChain(input: { chainId: number; cursor: ChainScanCursor | null }): Promise<ChainScanResult> {
      const chain = chains.registry.chain(input.chainId);
      const provider = chains.provider(input.chainId);
      // The head is read before the watch list: any payin mined up to this head was sent to an address
      // whose row was already committed, so the list below includes it.
      const head = await provider.getBlockNumber();
      let from = Math.max(0, head - FIRST_SCAN_LOOKBACK_BLOCKS);
      if (input.cursor) {
        const cursorBlock = input.cursor.blockNumber <= head ? await provider.getBlock(input.cursor.blockNumber) : null;
        from =
          cursorBlock?.hash === input.cursor.blockHash
            ? input.cursor.blockNumber + 1
            : Math.max(0, Math.min(input.cursor.blockNumber, head) - REORG_REWIND_BLOCKS);
      }
      if (from > head) return { cursor: input.cursor!, caughtUp: true, payins: [] };
      const to = Math.min(head, from + chain.logBatchBlocks - 1);

      const watched = await listWatchedDepositAddresses({ knex, chainId: input.chainId });
      const paymentByAddress = new Map(watched.map((w) => [w.address.toLowerCase(), w.payment_id]));
      const payins: ChainScanResult['payins'] = [];
      for (let i = 0; i < watched.length; i += chain.logBatchAddresses) {
        const recipients = watched.slice(i, i + chain.logBatchAddresses).map((w) => zeroPadValue(w.address, 32));
        const logs = await provider.getLogs({ fromBlock: from, toBlock: to, topics: [TRANSFER_TOPIC, null, recipients] });
        for (const log of logs.filter(isTransferLog)) {
          const payin = toDetectedPayin(input.chainId, log);
          const paymentId = paymentByAddress.get(payin.to.toLowerCase());
          if (paymentId) payins.push({ ...payin, paymentId });
        }
      }
      if (chain.nativeCurrency) {
        // Native coin transfers leave no log: read the range's blocks with their transactions.
        const native = await scanNativePayins({ provider, chainId: input.chainId, fromBlock: from, toBlock: to, watched: new Set(paymentByAddress.keys()) });
        for (const payin of native) payins.push({ ...payin, paymentId: paymentByAddress.get(payin.to.toLowerCase())! });
      }
      const toBlock = await provider.getBlock(to);
      if (!toBlock?.hash) throw new Error(`block ${to} on chain ${input.chainId} is not available`);
      return { cursor: { blockNumber: to, blockHash: toBlock.hash }, caughtUp: to >= head, payins };
    },

    /**
     * Idempotent (read-only): waits until the payin's transaction has the chain's confirmations, re-reading
     * its receipt on every poll, so a reorg that moves or removes it is seen. Heartbeats while waiting.
     */
    async awaitPayinConfirmation(input: { paymentId: string; payin: DetectedPayin }): Promise<PayinConfirmation> {
      const { payin } = input;
      const chain = chains.registry.chain(payin.chainId);
      const provider = chains.provider(payin.chainId);
      let missingPolls = 0;
      for (;;) {
        heartbeat();
        const receipt = await provider.getTransactionReceipt(payin.txHash);
        if (receipt) {
          missingPolls = 0;
          const matched = isNativeToken(payin.tokenAddress) ? await matchNativePayin(provider, receipt, payin) : matchTokenPayin(receipt, payin);
          if (!matched) return { outcome: 'dropped' };
          const head = await provider.getBlockNumber();
          if (head - receipt.blockNumber + 1 >= chain.confirmations) {
            const block = await provider.getBlock(receipt.blockNumber);
            if (block?.hash === receipt.blockHash) {
              return {
                outcome: 'confirmed',
                payin: { ...matched, confirmedAt: new Date(block.timestamp * 1000).toISOString() },
              };
            }
          }
        } else if ((await provider.getTransaction(payin.txHash)) === null && ++missingPolls >= MISSING_POLLS_BEFORE_DROPPED) {
          return { outcome: 'dropped' };
        }
        await sleep(chain.pollIntervalMs);
      }
    },
  };
}

/** The ERC-20 payin as its (possibly re-mined) receipt carries it, or null when it no longer does. */
function matchTokenPayin(receipt: TransactionReceipt, payin: DetectedPayin): DetectedPayin | null {
  const log = findPayinLog(receipt, payin);
  return log ? toDetectedPayin(payin.chainId, log) : null;
}

/** The transfer log in the (possibly re-mined) receipt that carries this payin. */
function findPayinLog(receipt: TransactionReceipt, payin: DetectedPayin): Log | undefined {
  return receipt.logs.find(
    (log) =>
      isTransferLog(log) &&
      log.address.toLowerCase() === payin.tokenAddress.toLowerCase() &&
      BigInt(log.topics[2]!) === BigInt(payin.to) &&
      BigInt(log.data) === BigInt(payin.amountUnits),
  );
}
