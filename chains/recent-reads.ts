/** How long a read of a chain's state is shared: under a block time, so every wait still sees each new block. */
export const SHARED_READ_MAX_AGE_MS = 200;

/**
 * Reads of a node's state shared by every caller within `SHARED_READ_MAX_AGE_MS` of the first: the hundreds of waits
 * and signings of one process ask a chain the same questions (its head, a signer's nonces, the fees), and each is
 * asked once per interval instead of once per caller. A failed read is not shared: the next caller asks again.
 */
export class RecentReads {
  /** The key of the chain's head: the one read every family's waits share (`ChainAdapters.sharedHead`). */
  static readonly HEAD = 'head';

  private readonly reads = new Map<string, { readAt: number; value: Promise<unknown> }>();

  /** `maxAgeMs`: how long a read is shared (a test holds reads longer to see who relies on their age). */
  constructor(private readonly maxAgeMs = SHARED_READ_MAX_AGE_MS) {}

  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const cached = this.reads.get(key);
    const now = Date.now();
    if (cached && now - cached.readAt < this.maxAgeMs) return cached.value as Promise<T>;
    // Oldest first: stale reads go, so keys asked once (a block by number) do not pile up.
    for (const [k, read] of this.reads) {
      if (now - read.readAt < this.maxAgeMs) break;
      this.reads.delete(k);
    }
    const value = load();
    this.reads.set(key, { readAt: now, value });
    // Each caller sees the rejection itself; only the entry goes.
    value.catch(() => {
      if (this.reads.get(key)?.value === value) this.reads.delete(key);
    });
    return value;
  }

  /** Drops the shared read of `key`: the next caller reads the chain as it is now. */
  forget(key: string): void {
    this.reads.delete(key);
  }
}
