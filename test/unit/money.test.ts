import assert from 'node:assert/strict';
import { parseUnits as ethersParseUnits } from 'ethers';
import fc from 'fast-check';
import { AmountError, convertDecimals, feeFor, formatUnits, parseUnits } from '../../domain/money';

const NUM_RUNS = 500;

/** Token decimals as found in practice (0 for odd tokens, 6 for USDC/USDT, 18 for ETH-like, up to 36). */
const decimalsArb = fc.integer({ min: 0, max: 36 });

/** Non-negative base units, up to the size of a uint256. */
const unitsArb = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

/** A canonical decimal integer part: "0" or no leading zero. */
const wholeArb = fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...'123456789'), digits(0, 30)).map(([h, t]) => h + t));

/** A valid decimal string together with decimals large enough to hold its fraction. */
const validDecimalArb = fc
  .tuple(wholeArb, digits(0, 36), decimalsArb)
  .map(([whole, fraction, extra]) => {
    const decimals = Math.min(36, fraction.length + (extra % 8));
    return { text: fraction ? `${whole}.${fraction}` : whole, decimals };
  });

/** What formatUnits prints for a decimal string: no trailing fraction zeros, no bare ".". */
const canonical = (text: string): string => {
  const [whole = '', fraction = ''] = text.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  return trimmed ? `${whole}.${trimmed}` : whole;
};

const rejects = (text: string, decimals: number) =>
  assert.throws(() => parseUnits(text, decimals), AmountError, `parseUnits(${JSON.stringify(text)}, ${decimals}) should be rejected`);

describe('domain/money', () => {
  describe('parseUnits', () => {
    it('parses examples into base units', () => {
      assert.equal(parseUnits('0', 6), 0n);
      assert.equal(parseUnits('1', 6), 1_000_000n);
      assert.equal(parseUnits('12.5', 6), 12_500_000n);
      assert.equal(parseUnits('12.50', 6), 12_500_000n);
      assert.equal(parseUnits('0.000001', 6), 1n);
      assert.equal(parseUnits('10.000000', 6), 10_000_000n);
      assert.equal(parseUnits('7', 0), 7n);
      assert.equal(parseUnits('1.000000000000000001', 18), 1_000_000_000_000_000_001n);
      assert.equal(parseUnits('999999999999999999.999999', 6), 999_999_999_999_999_999_999_999n);
      // Exact even far beyond Number.MAX_SAFE_INTEGER: no float on the way.
      assert.equal(parseUnits('9007199254740993', 0), 9_007_199_254_740_993n);
    });

    it('rejects malformed amounts (examples)', () => {
      for (const bad of [
        '', ' ', '-1', '-0', '+1', '1e6', '1E6', '1e-6', '0x10', '01', '00', '00.5', '1.', '.5', '.', '1..5', '1.2.3',
        ' 1', '1 ', '1 000', '1,5', '1_000', 'Infinity', 'NaN', 'abc', '١', '１', '1\n', '\t1',
      ]) {
        rejects(bad, 6);
      }
    });

    it('rejects more fraction digits than the token has, even zeros', () => {
      rejects('0.0000001', 6);
      rejects('1.1234567', 6);
      rejects('1.0000000', 6);
      rejects('5.0', 0);
      assert.throws(() => parseUnits('0.0000001', 6), /more than 6 decimal places/);
    });

    it('property: agrees with ethers.parseUnits on every valid decimal within the token decimals', () => {
      fc.assert(
        fc.property(validDecimalArb, ({ text, decimals }) => {
          assert.equal(parseUnits(text, decimals), ethersParseUnits(text, decimals));
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('property: round trip formatUnits(parseUnits(s)) is s without trailing fraction zeros', () => {
      fc.assert(
        fc.property(validDecimalArb, ({ text, decimals }) => {
          assert.equal(formatUnits(parseUnits(text, decimals), decimals), canonical(text));
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('property: a fraction longer than the token decimals is rejected', () => {
      fc.assert(
        fc.property(wholeArb, fc.integer({ min: 0, max: 20 }), digits(1, 10), (whole, decimals, extra) => {
          const fraction = '1'.repeat(decimals) + extra;
          rejects(`${whole}.${fraction}`, decimals);
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('property: negatives, signs, exponents, spaces, leading zeros, bare dots are rejected', () => {
      const mutation = fc.oneof(
        fc.constant((s: string) => `-${s}`),
        fc.constant((s: string) => `+${s}`),
        fc.constant((s: string) => `0${s}`),
        fc.constant((s: string) => `${s}.`),
        fc.constant((s: string) => `${s}e2`),
        fc.constant((s: string) => `${s}E-2`),
        fc.constant((s: string) => ` ${s}`),
        fc.constant((s: string) => `${s} `),
      );
      fc.assert(
        fc.property(validDecimalArb, mutation, ({ text }, mutate) => {
          rejects(mutate(text), 36);
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('property: a space or exponent marker anywhere inside a valid amount is rejected', () => {
      fc.assert(
        fc.property(validDecimalArb, fc.nat(), fc.constantFrom(' ', 'e', 'E', '-', '+', '_', ','), ({ text }, at, ch) => {
          const i = at % (text.length + 1);
          rejects(text.slice(0, i) + ch + text.slice(i), 36);
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('property: ".<digits>" (no integer part) is rejected', () => {
      fc.assert(
        fc.property(digits(1, 10), (fraction) => rejects(`.${fraction}`, 18)),
        { numRuns: 100 },
      );
    });
  });

  describe('formatUnits', () => {
    it('formats examples without trailing zeros', () => {
      assert.equal(formatUnits(0n, 6), '0');
      assert.equal(formatUnits(1n, 6), '0.000001');
      assert.equal(formatUnits(1_000_000n, 6), '1');
      assert.equal(formatUnits(12_500_000n, 6), '12.5');
      assert.equal(formatUnits(1_234_500n, 6), '1.2345');
      assert.equal(formatUnits(5n, 0), '5');
      assert.equal(formatUnits(-1_500_000n, 6), '-1.5');
      assert.equal(formatUnits(10n ** 24n, 6), '1000000000000000000');
    });

    it('property: parseUnits(formatUnits(u)) === u for every non-negative amount', () => {
      fc.assert(
        fc.property(unitsArb, decimalsArb, (units, decimals) => {
          const text = formatUnits(units, decimals);
          assert.match(text, /^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/);
          assert.equal(parseUnits(text, decimals), units);
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('property: negative amounts format as "-" + the absolute value', () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 1n, max: 2n ** 128n }), decimalsArb, (units, decimals) => {
          assert.equal(formatUnits(-units, decimals), `-${formatUnits(units, decimals)}`);
        }),
        { numRuns: 200 },
      );
    });
  });

  describe('convertDecimals', () => {
    it('converts examples, rounding down', () => {
      assert.equal(convertDecimals(1_234_567n, 6, 6), 1_234_567n);
      assert.equal(convertDecimals(1_234_567n, 6, 18), 1_234_567_000_000_000_000n);
      assert.equal(convertDecimals(1_234_567_999_999_999_999n, 18, 6), 1_234_567n);
      assert.equal(convertDecimals(999_999_999_999n, 18, 6), 0n);
      assert.equal(convertDecimals(19n, 1, 0), 1n);
    });

    it('property: never rounds up, and loses less than one target unit', () => {
      fc.assert(
        fc.property(unitsArb, decimalsArb, decimalsArb, (units, from, to) => {
          const out = convertDecimals(units, from, to);
          assert.ok(out >= 0n);
          // Compare the values exactly: out / 10^to <= units / 10^from < (out + 1) / 10^to.
          const outScaled = out * 10n ** BigInt(from);
          const inScaled = units * 10n ** BigInt(to);
          assert.ok(outScaled <= inScaled, `rounded up: ${units}@${from} -> ${out}@${to}`);
          assert.ok((out + 1n) * 10n ** BigInt(from) > inScaled, `rounded down by more than one unit: ${units}@${from} -> ${out}@${to}`);
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('property: widening is exact and reversible', () => {
      fc.assert(
        fc.property(unitsArb, decimalsArb, fc.integer({ min: 0, max: 20 }), (units, from, widen) => {
          const to = from + widen;
          assert.equal(convertDecimals(convertDecimals(units, from, to), to, from), units);
          assert.equal(formatUnits(convertDecimals(units, from, to), to), formatUnits(units, from));
        }),
        { numRuns: NUM_RUNS },
      );
    });
  });

  describe('feeFor', () => {
    it('computes examples in basis points, rounding down', () => {
      assert.equal(feeFor(10_000_000n, 50), 50_000n); // 10 USDC at 0.5 % = 0.05
      assert.equal(feeFor(12_345_678n, 50), 61_728n); // 61_728.39 rounded down
      assert.equal(feeFor(199n, 50), 0n);
      assert.equal(feeFor(200n, 50), 1n);
      assert.equal(feeFor(1_000n, 0), 0n);
      assert.equal(feeFor(1_000n, 10_000), 1_000n);
    });

    it('property: 0 <= fee <= amount, fee + payout = amount, fee is the floor of amount * bps / 10000', () => {
      fc.assert(
        fc.property(unitsArb, fc.integer({ min: 0, max: 10_000 }), (units, bps) => {
          const fee = feeFor(units, bps);
          assert.ok(fee >= 0n && fee <= units, `fee ${fee} out of [0, ${units}]`);
          assert.ok(fee * 10_000n <= units * BigInt(bps), 'fee rounded up');
          assert.ok((fee + 1n) * 10_000n > units * BigInt(bps), 'fee rounded down by more than one unit');
          assert.equal(fee + (units - fee), units);
        }),
        { numRuns: NUM_RUNS },
      );
    });

    it('property: fee is monotonic in the amount and in the rate', () => {
      fc.assert(
        fc.property(unitsArb, unitsArb, fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), (a, b, r1, r2) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          const [rlo, rhi] = r1 <= r2 ? [r1, r2] : [r2, r1];
          assert.ok(feeFor(lo, r1) <= feeFor(hi, r1));
          assert.ok(feeFor(a, rlo) <= feeFor(a, rhi));
        }),
        { numRuns: NUM_RUNS },
      );
    });
  });
});
