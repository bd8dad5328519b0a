import { Kept } from '../kept';

/** How many receipts a process keeps: a few per transaction or payin being waited for; an evicted one is read again. */
const KEPT_RECEIPTS = 1024;

/** What a kept receipt is checked by: the block it names. */
export interface MinedReceipt {
  blockNumber: number;
  blockHash: string;
}

/**
 * Receipts of mined transactions, reused while their block stands. A block's hash commits to its transactions and
 * their receipts, so while the block at a receipt's height has the hash the receipt names, the node would answer
 * that same receipt: a wait checking a transaction at each new block reads the block (which every wait of the
 * process shares) instead of the receipt again. A reorg that replaced the block, or a node that no longer has it,
 * reads the receipt anew. An unmined transaction is always asked for.
 */
export class MinedReceipts<R extends MinedReceipt> {
  private readonly kept: Kept<string, R>;

  constructor(
    private readonly reads: { receipt(txHash: string): Promise<R | null>; blockHash(blockNumber: number): Promise<string | null> },
    capacity = KEPT_RECEIPTS,
  ) {
    this.kept = new Kept(capacity);
  }

  async get(txHash: string): Promise<R | null> {
    const kept = this.kept.get(txHash);
    if (kept && (await this.reads.blockHash(kept.blockNumber)) === kept.blockHash) return kept;
    const receipt = await this.reads.receipt(txHash);
    if (receipt) this.kept.set(txHash, receipt);
    else this.kept.delete(txHash);
    return receipt;
  }
}
