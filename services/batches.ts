/**
 * Work that serialises on one database lock per key (a signer's nonce row, a treasury's reservations), done in
 * batches: the jobs waiting for a key while its batch runs form its next batch, so a process waits for each key's
 * lock with one pooled connection and one round of locking per batch, while the rest wait in memory.
 *
 * Why: every job taking the lock itself held a pooled connection while it waited. A hundred payouts settling
 * together took the worker's whole pool queueing on one treasury, and every other step waited for a connection.
 */

/** A job of a batch: what it asks, and how its batch answers it. */
export interface BatchJob<T, R> {
  item: T;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/**
 * Runs `runBatch` for each key's waiting jobs, one batch at a time per key. `runBatch` settles every job it is given
 * and never rejects.
 */
export class KeyedBatches<T, R> {
  private readonly waiting = new Map<string, Array<BatchJob<T, R>>>();

  constructor(private readonly runBatch: (batch: Array<BatchJob<T, R>>) => Promise<void>) {}

  /** Resolves with the answer of the batch that takes `item`. */
  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const job = { item, resolve, reject };
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push(job);
        return;
      }
      this.waiting.set(key, [job]);
      void this.drain(key);
    });
  }

  /** Runs batches for the key until nobody waits. */
  private async drain(key: string): Promise<void> {
    for (;;) {
      const batch = this.waiting.get(key)!.splice(0);
      if (batch.length === 0) {
        this.waiting.delete(key);
        return;
      }
      await this.runBatch(batch);
    }
  }
}

/** One set of batches per database (one per process in practice), made on first use. */
export function perDatabase<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) made.set(key, (value = make(key)));
    return value;
  };
}
