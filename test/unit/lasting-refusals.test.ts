import assert from 'node:assert/strict';
import { lastingRefusals, type TxRefusal } from '../../domain/chain-txs';

/** The node's refusal of `txHash` at one check. */
const refusal = (txHash: string, expires: boolean): TxRefusal => ({ reason: 'Custom program error: #11', txHash, expires });

/** Feeds the checks in turn; the 1-based checks at which the refusals last. */
function lastingAt(checks: Array<TxRefusal | undefined>): number[] {
  const judge = lastingRefusals(3);
  return checks.flatMap((check, i) => (judge(check) ? [i + 1] : []));
}

describe('when a node’s refusals of a transaction go to an operator (lastingRefusals)', () => {
  it('a transaction that never expires: at the limit of refusals in a row, and again at every one after', () => {
    const a = refusal('a', false);
    assert.deepEqual(lastingAt([a, a, a, a]), [3, 4]);
  });

  it('a check the node did not refuse starts the count again', () => {
    const a = refusal('a', false);
    assert.deepEqual(lastingAt([a, a, undefined, a, a]), []);
  });

  it('a transaction that expires is refused as long as it can land without going to the operator: it is signed again then', () => {
    const a = refusal('a', true);
    assert.deepEqual(lastingAt(Array.from({ length: 150 }, () => a)), []);
  });

  it('the transaction signed again after a refused one expired: its own refusals in a row count, and they last', () => {
    const a = refusal('a', true);
    const b = refusal('b', true);
    assert.deepEqual(lastingAt([a, a, a, a, b, b, b]), [7]);
  });

  it('the transaction signed again that the node takes: nothing lasts, and a later refusal of a new one waits for its expiry', () => {
    const a = refusal('a', true);
    const c = refusal('c', true);
    assert.deepEqual(lastingAt([a, a, a, undefined, c, c, c, c]), []);
  });
});
