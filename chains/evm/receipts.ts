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
  /** Least recently used first. */
  private readonly kept = new Map<string, R>();

  constructor(
    private readonly reads: { receipt(txHash: string): Promise<R | null>; blockHash(blockNumber: number): Promise<string | null> },
    private readonly capacity = KEPT_RECEIPTS,
  ) {}

  async get(txHash: string): Promise<R | null> {
    const kept = this.kept.get(txHash);
    if (kept && (await this.reads.blockHash(kept.blockNumber)) === kept.blockHash) {
      this.keep(txHash, kept);
      return kept;
    }
    const receipt = await this.reads.receipt(txHash);
    if (receipt) this.keep(txHash, receipt);
    else this.kept.delete(txHash);
    return receipt;
  }

  /** Kept as the most recently used (a Map iterates in insertion order). */
  private keep(txHash: string, receipt: R): void {
    this.kept.delete(txHash);
    this.kept.set(txHash, receipt);
    if (this.kept.size > this.capacity) this.kept.delete(this.kept.keys().next().value!);
  }
}
