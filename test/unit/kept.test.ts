import assert from 'node:assert/strict';
import { Kept } from '../../chains/kept';

describe('Kept: what an adapter keeps, bounded', () => {
  it('makes a value once while it is kept, and again once it went', () => {
    const kept = new Kept<string, string>(2);
    const made: string[] = [];
    const make = (key: string) => () => {
      made.push(key);
      return `value of ${key}`;
    };
    assert.equal(kept.getOrMake('a', make('a')), 'value of a');
    assert.equal(kept.getOrMake('a', make('a')), 'value of a');
    kept.getOrMake('b', make('b'));
    kept.getOrMake('a', make('a')); // b is now the least recently used
    kept.getOrMake('c', make('c'));
    assert.equal(kept.size, 2);
    assert.equal(kept.getOrMake('a', make('a')), 'value of a');
    kept.getOrMake('b', make('b'));
    assert.deepEqual(made, ['a', 'b', 'c', 'b']);
  });

  it('never holds more than its capacity, however many keys pass through it', () => {
    const kept = new Kept<number, number>(100);
    for (let i = 0; i < 10_000; i++) kept.set(i, i);
    assert.equal(kept.size, 100);
    assert.equal(kept.get(9_999), 9_999);
    assert.equal(kept.get(9_899), undefined);
  });

  it('keeps what a load resolved to, and loads again after a load failed', async () => {
    const kept = new Kept<string, string>(10);
    let loads = 0;
    const failing = () => {
      loads++;
      return Promise.reject(new Error('node unavailable'));
    };
    const loading = () => {
      loads++;
      return Promise.resolve('wallet');
    };
    await assert.rejects(kept.getOrLoad('a', failing), /node unavailable/);
    assert.equal(await kept.getOrLoad('a', loading), 'wallet');
    assert.equal(await kept.getOrLoad('a', loading), 'wallet');
    assert.equal(loads, 2);
  });
});
