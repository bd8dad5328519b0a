/**
 * Waits for a chain's head to pass a block, for every waiter of a process at once: while anyone waits, one loop per
 * chain reads the head every `intervalMs` and wakes each waiter whose block it passed. Hundreds of confirmation
 * waits then cost one read per interval and no timer of their own, and each sees a new block within one interval
 * of the node having it (a wait that slept its own poll interval and then read a shared head saw it up to both late).
 */
export class HeadWatch {
  private readonly waiters = new Set<{ seen: number; wake: (head: number | null) => void; fail: (err: unknown) => void }>();
  private polling = false;

  constructor(
    private readonly readHead: () => Promise<number>,
    private readonly intervalMs: number,
  ) {}

  /**
   * The head once it is past `seen`, or null when `withinMs` passes first (the caller heartbeats and asks again).
   * Rejects with the node's error when a read fails, as a read of its own would.
   */
  async after(seen: number, withinMs: number): Promise<number | null> {
    const head = await this.readHead();
    if (head > seen) return head;
    return new Promise<number | null>((resolve, reject) => {
      const leave = () => {
        clearTimeout(deadline);
        this.waiters.delete(waiter);
      };
      const waiter = {
        seen,
        wake: (next: number | null) => {
          leave();
          resolve(next);
        },
        fail: (err: unknown) => {
          leave();
          reject(err instanceof Error ? err : new Error('the head could not be read', { cause: err }));
        },
      };
      const deadline = setTimeout(() => waiter.wake(null), withinMs);
      this.waiters.add(waiter);
      if (!this.polling) void this.poll();
    });
  }

  /** Never rejects: a failed read is handed to the waiters it leaves. */
  private async poll(): Promise<void> {
    this.polling = true;
    try {
      while (this.waiters.size > 0) {
        await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
        const read = await this.readHead().then(
          (head) => ({ head }),
          (err: unknown) => ({ err }),
        );
        for (const waiter of [...this.waiters]) {
          if ('err' in read) waiter.fail(read.err);
          else if (read.head > waiter.seen) waiter.wake(read.head);
        }
      }
    } finally {
      this.polling = false;
    }
  }
}
