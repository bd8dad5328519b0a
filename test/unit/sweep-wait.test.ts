import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sweepWaitMs } from '../../domain/payment';

const AFTER_MS = 30_000;

/** Payment ids as the database makes them (random UUIDs), here drawn from a hash so every run checks the same ones. */
const paymentIds = Array.from({ length: 2_000 }, (_, i) => {
  const hex = createHash('sha256').update(`payment ${i}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
});

describe('when a completed payment is swept', () => {
  it('waits sweepAfterMs, then less than as long again, the same for a payment every time', () => {
    for (const id of paymentIds) {
      const wait = sweepWaitMs(id, AFTER_MS);
      assert.ok(wait >= AFTER_MS && wait < 2 * AFTER_MS, `${id}: ${wait} ms`);
      assert.equal(sweepWaitMs(id, AFTER_MS), wait);
    }
  });

  it('spreads a burst of payments evenly over the second span, so their sweeps do not reach the chains together', () => {
    const tenths = Array.from({ length: 10 }, () => 0);
    for (const id of paymentIds) tenths[Math.floor(((sweepWaitMs(id, AFTER_MS) - AFTER_MS) / AFTER_MS) * 10)]!++;
    for (const [i, count] of tenths.entries()) assert.ok(count > 150 && count < 250, `tenth ${i} of the span: ${count} of ${paymentIds.length} sweeps`);
  });

  it('sweeps at once when the operator sets no wait', () => {
    for (const id of paymentIds.slice(0, 10)) assert.equal(sweepWaitMs(id, 0), 0);
  });
});
