import assert from 'node:assert/strict';
import { HeadWatch } from '../../chains/head-watch';
import { eventually } from '../support/poll';

/** A node whose head the test moves, counting how often it is read. */
function node(head: number) {
  const state = { head, reads: 0, failing: undefined as Error | undefined };
  const read = () => {
    state.reads++;
    return state.failing ? Promise.reject(state.failing) : Promise.resolve(state.head);
  };
  return { state, read };
}

const INTERVAL_MS = 20;

/** Resolves once `node` has been read `count` times in all. */
const readsReach = (state: { reads: number }, count: number) =>
  eventually(`${count} head reads`, 5_000, () => Promise.resolve(state.reads >= count ? true : undefined), 5);

/**
 * Resolves once `intervals` intervals have passed, as another watch counts them: its reads of a head that never
 * passes its waiter's block, one per interval.
 */
async function intervalsPass(intervals: number): Promise<void> {
  const clock = node(0);
  const ticking = new HeadWatch(clock.read, INTERVAL_MS).after(0, 5_000);
  await readsReach(clock.state, 1 + intervals);
  clock.state.head = 1;
  await ticking;
}

describe('HeadWatch: every waiter of a process woken by one head read per interval', () => {
  it('answers at once when the head is already past the block', async () => {
    const { state, read } = node(10);
    assert.equal(await new HeadWatch(read, INTERVAL_MS).after(9, 1_000), 10);
    assert.equal(state.reads, 1);
  });

  it('wakes every waiter whose block the head passed, from one read per interval, and leaves the others waiting', async () => {
    const { state, read } = node(10);
    const watch = new HeadWatch(read, INTERVAL_MS);
    const early = Array.from({ length: 100 }, () => watch.after(10, 5_000));
    const late = watch.after(11, 5_000);
    let lateAnswered = false;
    void late.then(() => (lateAnswered = true));
    // 100 + 1 first looks, then one read per interval for all of them.
    await readsReach(state, 101 + 3);
    const readsWhileWaiting = state.reads;
    assert.ok(readsWhileWaiting <= 101 + 4, `reads: ${readsWhileWaiting}`);
    state.head = 11;
    assert.deepEqual(new Set(await Promise.all(early)), new Set([11]));
    // Two more reads of head 11 leave the waiter for block 11 waiting.
    await readsReach(state, state.reads + 2);
    assert.equal(lateAnswered, false, 'the waiter for block 11 still waits');
    state.head = 12;
    assert.equal(await late, 12);
    // Nobody waits: the loop stops reading.
    const readsWhenDone = state.reads;
    await intervalsPass(3);
    assert.equal(state.reads, readsWhenDone);
  });

  it('answers null when its time is up first (its caller heartbeats and asks again)', async () => {
    const { read } = node(10);
    const started = Date.now();
    assert.equal(await new HeadWatch(read, INTERVAL_MS).after(10, 60), null);
    assert.ok(Date.now() - started >= 55);
  });

  it('a read that fails fails the waiters it leaves, as their own read would', async () => {
    const { state, read } = node(10);
    const watch = new HeadWatch(read, INTERVAL_MS);
    const waiting = watch.after(10, 5_000);
    state.failing = new Error('node away');
    await assert.rejects(waiting, /node away/);
    state.failing = undefined;
    state.head = 11;
    assert.equal(await watch.after(10, 5_000), 11, 'the next wait reads again');
  });
});
