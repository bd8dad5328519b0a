/**
 * Entries an adapter keeps of what one deposit derives (its key, its address, its token accounts): more than the
 * payments a worker has open at once.
 */
export const KEPT_PER_DEPOSIT = 10_000;

/**
 * What an adapter keeps of what never changes (a derived key or address, a committed transaction, a contract's
 * address for a pair), at most `capacity` entries, the least recently used going first: a worker runs for months,
 * and a cache that kept one entry per payment forever grew with every payment. An entry that went is derived or
 * read again when next asked for.
 */
export class Kept<K, V> {
  /** Least recently used first (a Map iterates in insertion order). */
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) this.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /** The kept value of `key`, or `make`'s, kept. */
  getOrMake(key: K, make: () => V): V {
    const kept = this.get(key);
    if (kept !== undefined) return kept;
    const value = make();
    this.set(key, value);
    return value;
  }

  /** The kept value of `key`, or `load`'s once it resolves, kept (a failed load is not). */
  async getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    const kept = this.get(key);
    if (kept !== undefined) return kept;
    const value = await load();
    this.set(key, value);
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
